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

from krepro.records import read_records
from krepro.studies.adult_full.bootstrap import bootstrap_detail, judge_bootstrap, paired_bootstrap
from krepro.studies.adult_full.figures import plot_adult_full
from krepro.studies.adult_full.run import METHOD_LABELS, SWEEP_METHODS, read_predictions
from krepro.studies.adult_full.tables import (
    adult_full_markdown,
    adult_full_table,
    method_value,
    sweep_table,
    table1_beside,
)
from krepro.studies.families import deciding, member_listing
from krepro.studies.judging import ClaimSet, Outcome, judge_readings
from krepro.studies.labels import NOT_REPRODUCED, REPRODUCED
from krepro.studies.render import read_tables, write_outputs, write_section
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import Section

__all__ = ["adult_full_section", "adult_full_verdicts", "summary"]

#: The methods each tested claim compares: without their results it is not judged.
CLAIM_METHODS = {
    "oblivious_reduces_beta": ("svm", "oblivious"),
    "oblivious_lowest_deo_rbf": ("oblivious", "svm", "ferm"),
    "ferm_reduces_deo": ("svm", "ferm"),
    "oblivious_beyond_correlation_remover": ("correlation_remover", "oblivious"),
}


class _Run:
    """What the checks read: the tables (point estimates), the paired replicates of every
    method's metrics and the paper's Table 1 rows."""

    def __init__(self, table, sweep, replicates, table1):
        self.table, self.sweep, self.replicates = table, sweep, replicates
        self.paper = {entry["method"]: entry for entry in table1}
        self.n_test = int(table["n_test"].iloc[0])
        self.n_resamples = min(len(frame) for frame in replicates.values())

    def has(self, *methods):
        return all(m in self.replicates and (self.table["method"] == m).any() for m in methods)

    def point(self, method, metric):
        return method_value(self.table, method, metric)

    def draws(self, method, metric):
        return self.replicates[method][metric].to_numpy(dtype=float)

    def difference(self, first, second, metric):
        """(point, replicates) of metric(first) − metric(second), paired."""
        point = self.point(first, metric) - self.point(second, metric)
        return point, self.draws(first, metric) - self.draws(second, metric)

    def detail(self, judgement):
        return bootstrap_detail(judgement, n_test=self.n_test, n_resamples=self.n_resamples)


def _features_match_exact(run, claim, seed):
    sweep = run.sweep
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
    return Outcome(
        detail,
        verdict=REPRODUCED if worst >= threshold else NOT_REPRODUCED,
        measured=f"min agreement {worst:.4f}",
        tolerance=f"≥ {threshold:g}",
        n_repetitions=None,
    )


def _reduces_beta(run, claim, seed):
    if not run.has(*CLAIM_METHODS["oblivious_reduces_beta"]):
        return None
    svm_beta, obl_beta = run.point("svm", "beta"), run.point("oblivious", "beta")
    reduction = 1.0 - obl_beta / svm_beta
    reduction_draws = 1.0 - run.draws("oblivious", "beta") / run.draws("svm", "beta")
    gain, gain_draws = run.difference("svm", "oblivious", "error")
    result, stability = judge_bootstrap(
        claim,
        {"reduces_beta": {"": reduction}, "minimal_error_increase": {"": gain}},
        {"reduces_beta": {"": reduction_draws}, "minimal_error_increase": {"": gain_draws}},
    )
    parts = member_listing(
        result.members, template="{name}: {word} (effect {effect:+.3g}, [{low:.3g}, {high:.3g}])"
    )
    table1_relative = run.paper["oblivious_rbf"]["relative_beta_percent"]
    detail = (
        f"e_β {obl_beta:.3f} vs the SVM's {svm_beta:.3f} (relative {1 - reduction:.0%}; Table 1:"
        f" {table1_relative}%), error {run.point('oblivious', 'error'):.3f} vs"
        f" {run.point('svm', 'error'):.3f}. Parts: reduces_beta = 1 − e_β(oblivious) /"
        " e_β(SVM), minimal_error_increase = error(SVM) − error(oblivious); " + parts + "."
        f" {deciding(result, 'part', run.detail)}"
    )
    return Outcome(
        detail,
        result,
        stability,
        paper_value=f"{table1_relative}%",
        measured=f"{100 * (1 - reduction):.0f}%, Δerror {-gain:+.3f}",
    )


def _lowest_deo(run, claim, seed):
    if not run.has(*CLAIM_METHODS["oblivious_lowest_deo_rbf"]):
        return None
    rivals = ("svm", "ferm")
    points, draws = {}, {}
    for rival in rivals:
        points[rival], draws[rival] = run.difference(rival, "oblivious", "deo")
    result, stability = judge_bootstrap(claim, points, draws)
    members = member_listing(
        {f"vs {METHOD_LABELS[n]}": j for n, j in result.members.items()},
        template="{name}: {word} ({effect:+.3f}, [{low:.3f}, {high:.3f}])",
    )
    deo = {m: run.point(m, "deo") for m in ("oblivious", *rivals)}
    paper = run.paper
    detail = (
        f"DEO: oblivious {deo['oblivious']:.3f}, FERM {deo['ferm']:.3f}, SVM {deo['svm']:.3f}"
        f" (Table 1: {paper['oblivious_rbf']['deo']}, {paper['ferm_rbf']['deo']},"
        f" {paper['svm_rbf']['deo']}). Ranking as a family: DEO(rival) − DEO(oblivious), paired,"
        f" per rival (Holm); {members}. Deciding comparison (vs"
        f" {METHOD_LABELS[result.deciding]}): {run.detail(result.judgement)}"
    )
    return Outcome(
        detail,
        result,
        stability,
        paper_value=str(paper["oblivious_rbf"]["deo"]),
        measured=f"{deo['oblivious']:.3f}",
    )


def _difference(run, claim, claim_id, metric, text, **fields):
    """The outcome of a claim on one paired difference metric(first) − metric(second)."""
    first, second = CLAIM_METHODS[claim_id]
    if not run.has(first, second):
        return None
    point, draws = run.difference(first, second, metric)
    result, stability = judge_bootstrap(claim, point, draws)
    detail = f"{text} Effect {metric}({first}) − {metric}({second}), paired: "
    return Outcome(detail + run.detail(result.judgement), result, stability, **fields)


def _ferm_reduces_deo(run, claim, seed):
    deo = {m: run.point(m, "deo") for m in ("svm", "ferm")}
    ferm, svm = run.paper["ferm_rbf"]["deo"], run.paper["svm_rbf"]["deo"]
    return _difference(
        run,
        claim,
        "ferm_reduces_deo",
        "deo",
        f"DEO: FERM {deo['ferm']:.3f} vs SVM {deo['svm']:.3f} (Table 1: {ferm} vs {svm}).",
        paper_value=f"{ferm} vs {svm}",
        measured=f"{deo['ferm']:.3f} vs {deo['svm']:.3f}",
    )


def _beyond_correlation_remover(run, claim, seed):
    beta = {m: run.point(m, "beta") for m in ("oblivious", "correlation_remover")}
    return _difference(
        run,
        claim,
        "oblivious_beyond_correlation_remover",
        "beta",
        f"e_β: oblivious {beta['oblivious']:.3f} vs CorrelationRemover"
        f" {beta['correlation_remover']:.3f}.",
        measured=f"{beta['oblivious']:.3f} vs {beta['correlation_remover']:.3f}",
    )


CHECKS = {
    "features_match_exact": _features_match_exact,
    "oblivious_reduces_beta": _reduces_beta,
    "oblivious_lowest_deo_rbf": _lowest_deo,
    "ferm_reduces_deo": _ferm_reduces_deo,
    "oblivious_beyond_correlation_remover": _beyond_correlation_remover,
}


def _no_data(claim_id):
    return (
        f"Not judged: the run has no results for {', '.join(CLAIM_METHODS[claim_id])}"
        " (adult_full.methods); the claim stays inconclusive rather than contradicted."
    )


def adult_full_verdicts(table, sweep, reference, *, replicates, readings, scale):
    """Verdict records of every claim of ``oblivious: adult_full``.

    Parameters
    ----------
    table : DataFrame
        :func:`adult_full_table` (the point estimates on the whole test set).
    sweep : DataFrame
        :func:`sweep_table`.
    reference : mapping
        The study's block of ``config/paper_reference.yaml``: ``adult_full`` (its claims)
        and ``adult`` (the paper's Table 1 rows, ``table1``).
    replicates : mapping of str to DataFrame
        Per method, the paired test-set bootstrap replicates of ``error``, ``deo`` and
        ``beta`` (:func:`~krepro.studies.adult_full.bootstrap.paired_bootstrap`).
    readings : list of Reading
        :func:`krepro.studies.adult_full.readings.readings`.
    scale : str
        ``config["scale"]``.

    Returns
    -------
    list of Verdict
    """
    claims = ClaimSet("adult_full", "oblivious", reference["adult_full"], scale, no_data=_no_data)
    run = _Run(table, sweep, replicates, reference["adult"]["table1"])
    return judge_readings(claims, CHECKS, readings, lambda reading: run)


def adult_full_section(
    table, sweep, reference, *, replicates, readings, selection, settings, scale
):
    """The ``adult_full`` :class:`~krepro.studies.verdicts.Section`.

    Parameters
    ----------
    table, sweep, reference, replicates, readings, scale
        As in :func:`adult_full_verdicts`.
    selection : mapping
        The hyper-parameter selection record (C, γ, scores).
    settings : mapping
        The ``adult_full`` config section.
    """
    n_resamples = min(len(frame) for frame in replicates.values())
    verdicts = adult_full_verdicts(
        table, sweep, reference, replicates=replicates, readings=readings, scale=scale
    )
    paper = {entry["method"]: entry for entry in reference["adult"]["table1"]}
    return Section(
        experiment="adult_full",
        title="Adult at full scale: explicit kernel features beside fairlearn (extension)",
        intro=_intro(table, selection, settings, n_resamples),
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
    exact = sweep[sweep["kind"] == "exact"][["method", "test_error", "deo", "beta"]]
    features = sweep[sweep["kind"] == "features"][
        ["method", "n_components", "test_error", "deo", "beta", "agreement"]
    ]
    n_sweep = int(sweep["n_train"].iloc[0])
    return "\n".join(
        [
            "### All of Adult",
            "",
            adult_full_markdown(table),
            "",
            "Relative e_β is the method's e_β over the SVM's (explicit features). Fit CPU-s"
            " include the feature map.",
            "",
            "### Beside Table 1 (RBF rows)",
            "",
            markdown_table(table1_beside(table, paper), digits=3),
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
    the verdicts beside the paper's Table 1."""
    inp, out, params = job.input, job.output, job.params
    runs = pd.DataFrame.from_records(read_records(inp.runs))
    y_test, s_test, predictions = read_predictions(inp.predictions, params.methods)
    n_resamples = int(params.settings["bootstrap_resamples"])
    replicates = paired_bootstrap(
        y_test, s_test, predictions, n_resamples=n_resamples, seed=params.seed
    )
    table = adult_full_table(runs, replicates)
    sweep = sweep_table(pd.DataFrame.from_records(read_records([inp.sweep])))
    markdown = adult_full_markdown(table) + "\n"
    write_outputs(out, runs=runs, table=table, markdown=markdown, sweep=sweep)
    table, sweep = read_tables(out, "table", "sweep")
    plot_adult_full(table, sweep, out.figure)
    (selection,) = read_records([inp.selection])
    section = adult_full_section(
        table,
        sweep,
        params.reference,
        replicates=replicates,
        readings=params.readings,
        selection=selection,
        settings=params.settings,
        scale=params.scale,
    )
    write_section(section, out.json, out.md)
