"""Verdicts and report section of ``adult_full``: Adult at full scale beside fairlearn; the
summary job.

Every method is fitted once, on one train/test split, so the claims' intervals come from a
paired **test-set bootstrap** (:mod:`krepro.studies.adult_full.bootstrap`): the test rows are
resampled ``bootstrap_resamples`` times, every method's error, DEO and e_β computed on each
resample, and each claim's effect (a difference or ratio of those, oriented as the claim reads)
judged by its logical form from ``config/paper_reference.yaml`` (``oblivious: adult_full``)
with the interval θ̂ ± t·se, se the standard deviation of the effect's replicates. The
intervals cover the sampling of the test set only, not the training randomness. The paper's
numbers are Table 1's (``oblivious: adult: table1``).
"""

from __future__ import annotations

import pandas as pd

from krepro.records import atomic_write_text, read_records
from krepro.studies.adult_full.bootstrap import (
    bootstrap_detail,
    judge_bootstrap,
    judge_bootstrap_parts,
    paired_bootstrap,
)
from krepro.studies.adult_full.figures import plot_adult_full
from krepro.studies.adult_full.run import METHOD_LABELS, SWEEP_METHODS, read_predictions
from krepro.studies.adult_full.tables import (
    DISPLAY_COLUMNS,
    adult_full_markdown,
    adult_full_table,
    sweep_table,
)
from krepro.studies.claims import Judgement, member_word
from krepro.studies.render import write_section
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    Section,
    claim_verdict,
)

__all__ = ["adult_full_section", "summary"]

EXPERIMENT = "adult_full"
PAPER = "oblivious"
# Table 1 rows (oblivious: adult: table1) that the full-data methods stand beside.
TABLE1_ROWS = {"svm": "svm_rbf", "ferm": "ferm_rbf", "oblivious": "oblivious_rbf"}


def _table1(table1):
    return {entry["method"]: entry for entry in table1}


def _common(scale, n_repetitions=1):
    return {
        "experiment": EXPERIMENT,
        "paper": PAPER,
        "scale": scale,
        "n_repetitions": n_repetitions,
    }


def _check_features_match_exact(sweep, claim):
    features = sweep[sweep["kind"] == "features"]
    parts, worst, exact = [], 1.0, True
    for method in SWEEP_METHODS:
        rows = features[features["method"] == method]
        if rows.empty:
            continue
        last = rows.loc[rows["n_components"].astype(float).idxmax()]
        worst = min(worst, float(last["agreement"]))
        exact &= int(last["n_components"]) >= int(last["n_train"])
        parts.append(
            f"{METHOD_LABELS[method]} {float(last['agreement']):.4f} at {int(last['n_components'])}"
            " landmarks"
        )
    threshold = claim["min_agreement"]
    verdict = REPRODUCED if worst >= threshold else NOT_REPRODUCED
    n_train = int(sweep["n_train"].iloc[0])
    if exact:
        why = (
            f" Identity: every one of the {n_train:,} training rows is a landmark (for the"
            " oblivious SVMs: learner and estimation halves), so the Nyström features span the"
            " kernel exactly on the training rows and the feature fit is the exact fit;"
            " agreement measures only the solvers' tolerance."
        )
    else:
        why = (
            f" The sweep stops short of the {n_train:,} training rows (the identity holds only"
            " with every row a landmark, as at the paper scale): here agreement measures the"
            " Nyström approximation as well as the solvers' tolerance."
        )
    detail = (
        "Share of test predictions equal to the exact method's: "
        + "; ".join(parts)
        + f" (threshold {threshold:g})."
        + why
    )
    return verdict, detail, worst


def _value(table, method, column):
    rows = table[table["method"] == method]
    return float(rows[column].iloc[0]) if len(rows) else float("nan")


class _Boot:
    """Point estimates (the table) and paired replicates of every method's metrics."""

    def __init__(self, table, replicates):
        self.table, self.replicates = table, replicates
        self.n_test = int(table["n_test"].iloc[0])
        self.n_resamples = min(len(frame) for frame in replicates.values())

    def has(self, *methods):
        return all(m in self.replicates and (self.table["method"] == m).any() for m in methods)

    def point(self, method, metric):
        return _value(self.table, method, metric)

    def draws(self, method, metric):
        return self.replicates[method][metric].to_numpy(dtype=float)

    def difference(self, first, second, metric):
        """(point, replicates) of metric(first) − metric(second), paired."""
        point = self.point(first, metric) - self.point(second, metric)
        return point, self.draws(first, metric) - self.draws(second, metric)

    def detail(self, judgement):
        return bootstrap_detail(judgement, n_test=self.n_test, n_resamples=self.n_resamples)


def _missing(reference, claim_id, methods, scale):
    """An inconclusive record for a claim whose methods were not run."""
    detail = (
        f"Not judged: the run has no results for {', '.join(methods)} (adult_full.methods);"
        " the claim stays inconclusive rather than contradicted."
    )
    claim = reference["claims"][claim_id]
    judgement = Judgement(
        verdict=INCONCLUSIVE,
        effect=float("nan"),
        ci_low=float("nan"),
        ci_high=float("nan"),
        margin=float(claim.get("margin", float("nan"))),
        alpha=float(claim.get("alpha", 0.05)),
        reason="no results",
    )
    return claim_verdict(reference, claim_id, None, detail, **_common(scale), judgement=judgement)


def _reduces_beta(reference, boot, paper, scale):
    claim_id = "oblivious_reduces_beta"
    if not boot.has("svm", "oblivious"):
        return _missing(reference, claim_id, ["svm", "oblivious"], scale)
    claim = reference["claims"][claim_id]
    svm_beta, obl_beta = boot.point("svm", "beta"), boot.point("oblivious", "beta")
    reduction = 1.0 - obl_beta / svm_beta
    reduction_draws = 1.0 - boot.draws("oblivious", "beta") / boot.draws("svm", "beta")
    gain, gain_draws = boot.difference("svm", "oblivious", "error")
    result, stability = judge_bootstrap_parts(
        claim,
        {"reduces_beta": {"": reduction}, "minimal_error_increase": {"": gain}},
        {"reduces_beta": {"": reduction_draws}, "minimal_error_increase": {"": gain_draws}},
    )
    parts = "; ".join(
        f"{part}: {member_word(j.verdict)}"
        f" (effect {j.effect:+.3g}, [{j.ci_low:.3g}, {j.ci_high:.3g}])"
        for part, j in result.members.items()
    )
    table1_relative = paper["oblivious_rbf"]["relative_beta_percent"]
    detail = (
        f"e_β {obl_beta:.3f} vs the SVM's {svm_beta:.3f} (relative {1 - reduction:.0%}; Table 1:"
        f" {table1_relative}%), error {boot.point('oblivious', 'error'):.3f} vs"
        f" {boot.point('svm', 'error'):.3f}. Parts: reduces_beta = 1 − e_β(oblivious) /"
        " e_β(SVM), minimal_error_increase = error(SVM) − error(oblivious); " + parts + "."
        f" Deciding part ({result.deciding}): {boot.detail(result.judgement)}"
    )
    return claim_verdict(
        reference,
        claim_id,
        result.verdict,
        detail,
        **_common(scale),
        paper_value=f"{table1_relative}%",
        measured=f"{100 * (1 - reduction):.0f}%, Δerror {-gain:+.3f}",
        judgement=result.judgement,
        stability=stability,
    )


def _lowest_deo(reference, boot, paper, scale):
    claim_id = "oblivious_lowest_deo_rbf"
    rivals = ("svm", "ferm")
    if not boot.has("oblivious", *rivals):
        return _missing(reference, claim_id, ["oblivious", *rivals], scale)
    points, draws = {}, {}
    for rival in rivals:
        points[rival], draws[rival] = boot.difference(rival, "oblivious", "deo")
    result, stability = judge_bootstrap(reference["claims"][claim_id], points, draws)
    members = "; ".join(
        f"vs {METHOD_LABELS[n]}: {member_word(j.verdict)}"
        f" ({j.effect:+.3f}, [{j.ci_low:.3f}, {j.ci_high:.3f}])"
        for n, j in result.members.items()
    )
    deo = {m: boot.point(m, "deo") for m in ("oblivious", *rivals)}
    detail = (
        f"DEO: oblivious {deo['oblivious']:.3f}, FERM {deo['ferm']:.3f}, SVM {deo['svm']:.3f}"
        f" (Table 1: {paper['oblivious_rbf']['deo']}, {paper['ferm_rbf']['deo']},"
        f" {paper['svm_rbf']['deo']}). Ranking as a family: DEO(rival) − DEO(oblivious), paired,"
        f" per rival (Holm); {members}. Deciding comparison (vs"
        f" {METHOD_LABELS[result.deciding]}): {boot.detail(result.judgement)}"
    )
    return claim_verdict(
        reference,
        claim_id,
        result.verdict,
        detail,
        **_common(scale),
        paper_value=str(paper["oblivious_rbf"]["deo"]),
        measured=f"{deo['oblivious']:.3f}",
        judgement=result.judgement,
        stability=stability,
    )


def _single(reference, boot, claim_id, first, second, metric, scale, text, **fields):
    """A claim on one paired difference metric(first) − metric(second)."""
    if not boot.has(first, second):
        return _missing(reference, claim_id, [first, second], scale)
    point, draws = boot.difference(first, second, metric)
    result, stability = judge_bootstrap(reference["claims"][claim_id], point, draws)
    detail = f"{text} Effect {metric}({first}) − {metric}({second}), paired: "
    detail += boot.detail(result.judgement)
    return claim_verdict(
        reference,
        claim_id,
        result.verdict,
        detail,
        **_common(scale),
        judgement=result.judgement,
        stability=stability,
        **fields,
    )


def adult_full_section(table, sweep, reference, table1, *, replicates, selection, settings, scale):
    """The ``adult_full`` :class:`~krepro.studies.verdicts.Section`.

    Parameters
    ----------
    table : DataFrame
        :func:`adult_full_table` (the point estimates on the whole test set).
    sweep : DataFrame
        :func:`sweep_table`.
    reference : mapping
        ``oblivious: adult_full`` of ``config/paper_reference.yaml``.
    table1 : list of mapping
        ``oblivious: adult: table1`` (the paper's Table 1 rows).
    replicates : mapping of str to DataFrame
        Per method, the paired test-set bootstrap replicates of ``error``, ``deo`` and
        ``beta`` (:func:`~krepro.studies.adult_full.bootstrap.paired_bootstrap`).
    selection : mapping
        The hyper-parameter selection record (C, γ, scores).
    settings : mapping
        The ``adult_full`` config section.
    scale : str
        ``config["scale"]``.
    """
    claims = reference["claims"]
    paper = _table1(table1)
    boot = _Boot(table, replicates)
    verdicts = []

    verdict, detail, worst = _check_features_match_exact(sweep, claims["features_match_exact"])
    verdicts.append(
        claim_verdict(
            reference,
            "features_match_exact",
            verdict,
            detail,
            **_common(scale, n_repetitions=None),
            measured=f"min agreement {worst:.4f}",
            tolerance=f"≥ {claims['features_match_exact']['min_agreement']:g}",
        )
    )
    verdicts.append(_reduces_beta(reference, boot, paper, scale))
    verdicts.append(_lowest_deo(reference, boot, paper, scale))
    deo = {m: boot.point(m, "deo") for m in ("svm", "ferm")}
    verdicts.append(
        _single(
            reference,
            boot,
            "ferm_reduces_deo",
            "svm",
            "ferm",
            "deo",
            scale,
            f"DEO: FERM {deo['ferm']:.3f} vs SVM {deo['svm']:.3f} (Table 1:"
            f" {paper['ferm_rbf']['deo']} vs {paper['svm_rbf']['deo']}).",
            paper_value=f"{paper['ferm_rbf']['deo']} vs {paper['svm_rbf']['deo']}",
            measured=f"{deo['ferm']:.3f} vs {deo['svm']:.3f}",
        )
    )
    beta = {m: boot.point(m, "beta") for m in ("oblivious", "correlation_remover")}
    verdicts.append(
        _single(
            reference,
            boot,
            "oblivious_beyond_correlation_remover",
            "correlation_remover",
            "oblivious",
            "beta",
            scale,
            f"e_β: oblivious {beta['oblivious']:.3f} vs CorrelationRemover"
            f" {beta['correlation_remover']:.3f}.",
            measured=f"{beta['oblivious']:.3f} vs {beta['correlation_remover']:.3f}",
        )
    )

    return Section(
        experiment=EXPERIMENT,
        title="Adult at full scale: explicit kernel features beside fairlearn (extension)",
        intro=_intro(table, selection, settings, boot.n_resamples),
        verdicts=verdicts,
        body=_body(table, sweep, paper),
    )


def _intro(table, selection, settings, n_resamples):
    n_train, n_test = int(table["n_train"].max()), int(table["n_test"].iloc[0])
    eg = settings["exponentiated_gradient"]
    grid = settings["grid"]
    selected = f"C = {selection['C']:g}, γ = {selection['gamma']:g}"
    if selection.get("scores"):
        how = (
            f"chosen for the plain SVM by accuracy on {selection['validation_fraction']:.0%} of"
            f" the training rows over C ∈ {grid['C']}, γ ∈ {grid['gamma']}"
        )
    else:
        how = "fixed by the config (one-point grid)"
    return (
        f"Corrected protocol on all of Adult ({n_train:,} training rows for the classifier of"
        f" the SVM, FERM and fairlearn rows; {n_test:,} test rows). RBF kernel through"
        f" {settings['n_components']} {settings['approximation']} features, one LinearSVC"
        f" (primal squared hinge) for every method; {selected}, {how}, shared by every method."
        " Oblivious SVMs: gender removed from X, conditional means estimated on"
        f" {'the second half' if settings['oblivious_estimation'] == 'split' else 'all'} of the"
        " training rows (the classifier learns on the first half). ExponentiatedGradient:"
        f" TruePositiveRateParity, eps = {eg['eps']:g}, {eg['max_iter']} iteration(s)."
        " ThresholdOptimizer: TPR parity on the SVM's decision values; both fairlearn"
        " reductions predict at random (seeded). Table 1's RBF rows ran on 1,628 rows."
        " One fit per method: the claims' intervals and the table's standard errors come from"
        f" {n_resamples} paired bootstrap resamples of the test rows (the same resampled rows"
        " for every method); they cover the sampling of the test set, not the training"
        " randomness."
    )


def _body(table, sweep, paper):
    display = table[list(DISPLAY_COLUMNS)].rename(columns=DISPLAY_COLUMNS)
    beside = []
    for method, row_name in TABLE1_ROWS.items():
        entry = paper[row_name]
        beside.append(
            {
                "method": METHOD_LABELS[method],
                "error (Table 1)": entry["mean_prediction_error"],
                "error (all of Adult)": _value(table, method, "error"),
                "DEO (Table 1)": entry["deo"],
                "DEO (all of Adult)": _value(table, method, "deo"),
                "e_β (Table 1)": entry["beta"],
                "e_β (all of Adult)": _value(table, method, "beta"),
            }
        )
    exact = sweep[sweep["kind"] == "exact"][["method", "test_error", "deo", "beta"]]
    features = sweep[sweep["kind"] == "features"][
        ["method", "n_components", "test_error", "deo", "beta", "agreement"]
    ]
    n_sweep = int(sweep["n_train"].iloc[0])
    return "\n".join(
        [
            "### All of Adult",
            "",
            markdown_table(display, digits=3),
            "",
            "Relative e_β is the method's e_β over the SVM's (explicit features). Fit CPU-s"
            " include the feature map.",
            "",
            "### Beside Table 1 (RBF rows)",
            "",
            markdown_table(pd.DataFrame(beside), digits=3),
            "",
            f"### Landmark sweep ({n_sweep:,} training rows, fixed C and γ)",
            "",
            "Exact Gram-matrix methods (`ferm` = the SVM under ⟨w, u⟩ = 0 solved exactly on the"
            " projected kernel, the limit of the explicit-feature FERM; `ferm_qp` = the dual QP"
            " of Donini et al., eq. (14), which restricts w to Σ α_i y_i φ(x_i) with 0 ≤ α ≤ C"
            " and reaches a higher primal objective):",
            "",
            markdown_table(exact, digits=3),
            "",
            "Explicit features (libsvm linear SVM on the features; agreement = share of test"
            " predictions equal to the exact method's):",
            "",
            markdown_table(features, digits=4),
        ]
    )


def summary(job, log):
    """Job ``adult_full_summary``: tidy run table, the paired test-set bootstrap of every
    method's predictions, the adult_full table (.csv, .md, with bootstrap standard errors), the
    landmark-sweep table, the figure (error vs DEO with bootstrap intervals, and the sweep) and
    the verdicts beside the paper's Table 1.

    The figure and the verdicts each read the tables back from the files just written, as
    separate jobs would.
    """
    inp, out, params = job.input, job.output, job.params
    runs = pd.DataFrame.from_records(read_records(inp.runs))
    atomic_write_text(out.runs, runs.to_csv(index=False))
    y_test, s_test, predictions = read_predictions(inp.predictions, params.methods)
    replicates = paired_bootstrap(
        y_test,
        s_test,
        predictions,
        n_resamples=int(params.settings["bootstrap_resamples"]),
        seed=params.seed,
    )
    table = adult_full_table(runs, replicates)
    atomic_write_text(out.table, table.to_csv(index=False))
    atomic_write_text(out.markdown, adult_full_markdown(table) + "\n")
    sweep = sweep_table(pd.DataFrame.from_records(read_records([inp.sweep])))
    atomic_write_text(out.sweep, sweep.to_csv(index=False))

    plot_adult_full(pd.read_csv(out.table), pd.read_csv(out.sweep), out.figure)

    reference = job.params.reference
    (selection,) = read_records([inp.selection])
    section = adult_full_section(
        pd.read_csv(out.table),
        pd.read_csv(out.sweep),
        reference["adult_full"],
        reference["adult"]["table1"],
        replicates=replicates,
        selection=selection,
        settings=params.settings,
        scale=params.scale,
    )
    write_section(section, out.json, out.md)
