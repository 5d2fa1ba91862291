"""Cross-field checks of the workflow config: what the JSON schema cannot express.

``workflow/schemas/config.schema.yaml`` checks every key on its own (type, range, known
names). The constraints between keys, and those on the values a report needs, live here: a
λ, α or C grid whose minimum exceeds its maximum, a range with ``low >= high``, as many
training domains as domains, more folds than training points, a ``primary_variant`` that is
not a variant, ridge γ values without both ends 0 and 1, and so on. Left unchecked, each
starts jobs that fail later (sometimes only in the summary job, after every fit) with a
message that does not name the config key ("argmin of an empty sequence", "high − low < 0",
``KeyError: 'M-ORR'``). :func:`check_config` runs before the workflow builds its DAG and
raises one :class:`ValueError` listing every problem, each with the dotted keys and their
values. config/README.md states each of these constraints.
"""

from __future__ import annotations

import math

__all__ = ["check_config", "config_problems"]


def _ordered(problems, section, low_key, high_key, *, strict, prefix):
    """``section[low_key] <= section[high_key]`` (``<`` when ``strict``)."""
    low, high = section[low_key], section[high_key]
    if low > high or (strict and low == high):
        relation = "smaller than" if strict else "at most"
        problems.append(
            f"{prefix}.{low_key} = {low!r} must be {relation} {prefix}.{high_key} = {high!r}."
        )


def _primary_variant(problems, section, prefix):
    primary = section["primary_variant"]
    if primary not in section["variants"]:
        problems.append(
            f"{prefix}.primary_variant = {primary!r} is not one of {prefix}.variants "
            f"{sorted(section['variants'])}."
        )


def _grids(problems, config):
    """λ, α and C grids: the smallest exponent must not exceed the largest."""
    for name, variant in config["ridge"]["variants"].items():
        _ordered(
            problems,
            variant,
            "log2_lambda_min",
            "log2_lambda_max",
            strict=False,
            prefix=f"ridge.variants.{name}",
        )
    cme_oblivious = config["cme_oblivious"]
    _ordered(
        problems,
        cme_oblivious,
        "log2_lambda_min",
        "log2_lambda_max",
        strict=False,
        prefix="cme_oblivious",
    )
    _ordered(
        problems,
        cme_oblivious["cme"],
        "log10_alpha_min",
        "log10_alpha_max",
        strict=False,
        prefix="cme_oblivious.cme",
    )
    for name, selection in config["students"]["c_selections"].items():
        _ordered(
            problems,
            selection,
            "log2_C_min",
            "log2_C_max",
            strict=False,
            prefix=f"students.c_selections.{name}",
        )
    _ordered(
        problems,
        config["rates"]["cme"],
        "log10_alpha_min",
        "log10_alpha_max",
        strict=False,
        prefix="rates.cme",
    )
    _ordered(
        problems,
        config["fair_regression"]["cme"],
        "log10_alpha_min",
        "log10_alpha_max",
        strict=False,
        prefix="fair_regression.cme",
    )


def _ranges(problems, config):
    """Supports and partition boxes: ``low < high``."""
    _ordered(
        problems, config["ridge"]["partition"], "low", "high", strict=True, prefix="ridge.partition"
    )
    _ordered(
        problems,
        config["cme_oblivious"]["partition"],
        "low",
        "high",
        strict=True,
        prefix="cme_oblivious.partition",
    )
    for name, variant in config["students"]["variants"].items():
        _ordered(problems, variant, "low", "high", strict=True, prefix=f"students.variants.{name}")
    _ordered(
        problems,
        config["projection"]["partition"],
        "low",
        "high",
        strict=True,
        prefix="projection.partition",
    )
    _ordered(
        problems,
        config["rates"]["gram_cost"],
        "low",
        "high",
        strict=True,
        prefix="rates.gram_cost",
    )


def _variants(problems, config):
    for section in ("ridge", "students", "coverage"):
        _primary_variant(problems, config[section], section)
    adult = config["adult"]
    unknown = [grid for grid in adult["run_grids"] if grid not in adult["grids"]]
    if unknown:
        problems.append(
            f"adult.run_grids {unknown} are not among adult.grids {sorted(adult['grids'])}."
        )
    if adult["primary_grid"] not in adult["run_grids"]:
        problems.append(
            f"adult.primary_grid = {adult['primary_grid']!r} is not one of adult.run_grids"
            f" {adult['run_grids']}."
        )
    if adult["primary_protocol"] not in adult["protocols"]:
        problems.append(
            f"adult.primary_protocol = {adult['primary_protocol']!r} is not one of"
            f" adult.protocols {sorted(adult['protocols'])}."
        )
    for name, variant in adult.get("variants", {}).items():
        if (variant["protocol"], variant["grid"]) not in (
            (p, g) for p in adult["protocols"] for g in adult["run_grids"]
        ):
            problems.append(
                f"adult.variants.{name} reads {variant['protocol']}/{variant['grid']}, which is"
                " not run (adult.protocols × adult.run_grids)."
            )
    students = config["students"]
    selections = students["c_selections"]
    if students["primary_c_selection"] not in selections:
        problems.append(
            f"students.primary_c_selection = {students['primary_c_selection']!r} is not one of"
            f" students.c_selections {sorted(selections)}."
        )
    for name, selection in selections.items():
        unknown = [v for v in selection["variants"] if v not in students["variants"]]
        if unknown:
            problems.append(
                f"students.c_selections.{name}.variants {unknown} are not among"
                f" students.variants {sorted(students['variants'])}."
            )
    primary = selections.get(students["primary_c_selection"])
    if (
        primary is not None
        and students["primary_variant"] in students["variants"]
        and students["primary_variant"] not in primary["variants"]
    ):
        problems.append(
            f"students.primary_variant = {students['primary_variant']!r} is not run under"
            f" students.primary_c_selection = {students['primary_c_selection']!r}"
            " (add it to that selection's variants)."
        )


def _readings(problems, config):
    """The primary reading of each protocol axis is one of the readings run.

    Every section with a ``primary`` mapping (axis → reading) runs the readings listed
    under the section's key of the same name.
    """
    for section, settings in config.items():
        if not isinstance(settings, dict) or not isinstance(settings.get("primary"), dict):
            continue
        for axis, primary in settings["primary"].items():
            readings = settings.get(axis, [])
            if primary not in readings:
                problems.append(
                    f"{section}.primary.{axis} = {primary!r} is not one of the readings"
                    f" {section}.{axis} = {readings}."
                )


def _folds(problems, config):
    """Cross-validation needs at least one training point per fold."""
    for section, n_train in (("students", "n_train"), ("adult", "n_train_corrected")):
        n_folds, n = config[section]["n_folds"], config[section][n_train]
        if n_folds > n:
            problems.append(
                f"{section}.n_folds = {n_folds} exceeds {section}.{n_train} = {n} "
                "(every fold needs a training point)."
            )


def _domains(problems, config):
    dcm = config["dcm_synthetic"]
    if dcm["n_train_domains"] >= dcm["n_domains"]:
        problems.append(
            f"dcm_synthetic.n_train_domains = {dcm['n_train_domains']} must be smaller than "
            f"dcm_synthetic.n_domains = {dcm['n_domains']} (the rest are the unseen domains)."
        )
    # scipy.stats.wishart needs df > dim − 1.
    for prefix, section in (("dcm_synthetic", dcm), ("dcm_synthetic.fig2", dcm["fig2"])):
        if section["wishart_df"] <= section["dim"] - 1:
            problems.append(
                f"{prefix}.wishart_df = {section['wishart_df']} must exceed {prefix}.dim − 1 = "
                f"{section['dim'] - 1} (Wishart W(ηI, df) in dimension dim)."
            )


def _cme(problems, config):
    first, second = config["cme"]["contrast_x"]
    if first == second:
        problems.append(
            f"cme.contrast_x = {config['cme']['contrast_x']} must hold two different points "
            "(the claim compares the conditional laws at two x)."
        )


def _coverage(problems, config):
    coverage = config["coverage"]
    for key in ("partitions", "targets"):
        if coverage[key] != sorted(set(coverage[key])):
            problems.append(f"coverage.{key} = {coverage[key]} must be strictly increasing.")
    n, partitions = coverage["n_samples"], coverage["partitions"]
    bad = [p for p in partitions if n % p or p % min(partitions)]
    if bad:
        problems.append(
            f"coverage.partitions {bad}: every P must divide coverage.n_samples = {n} and be "
            f"a multiple of the smallest P = {min(partitions)} (nested partitions)."
        )


# γ values the ridge report reads, and the experiments it compares (ridge/report.py: the
# gaps at γ = 0 and γ = 1; M-ORR − ORR in experiment 2 against experiment 1).
RIDGE_GAMMA_ENDS = (0.0, 1.0)
RIDGE_EXPERIMENTS = (1, 2)


def _ridge(problems, config):
    ridge = config["ridge"]
    # The report matches γ with numpy.isclose's default tolerance.
    missing = [
        end
        for end in RIDGE_GAMMA_ENDS
        if not any(
            math.isclose(gamma, end, rel_tol=1e-5, abs_tol=1e-8) for gamma in ridge["gammas"]
        )
    ]
    if missing:
        problems.append(
            f"ridge.gammas = {ridge['gammas']} must contain 0 and 1 (missing"
            f" {', '.join(f'{g:g}' for g in missing)}): the report compares the methods at"
            " both ends."
        )
    missing = [e for e in RIDGE_EXPERIMENTS if e not in ridge["experiments"]]
    if missing:
        problems.append(
            f"ridge.experiments = {ridge['experiments']} must contain 1 and 2 (missing"
            f" {missing}): the report compares the M-ORR − ORR gap of experiment 2 with"
            " experiment 1's."
        )


def _rates(problems, config):
    rates = config["rates"]
    extra = [d for d in rates["cme"]["dims"] if d not in rates["continuous"]["dims"]]
    if extra:
        problems.append(
            f"rates.cme.dims {extra} are not among rates.continuous.dims"
            f" {rates['continuous']['dims']} (the CME runs on the continuous settings only)."
        )


def _fair_regression(problems, config):
    sweeps = config["fair_regression"]["sweeps"]
    # The claims of oblivious.fair_regression compare t = 1 with CorrelationRemover's α = 1.
    for key in ("oblivious", "correlation_remover"):
        if not any(math.isclose(value, 1.0, abs_tol=1e-9) for value in sweeps[key]):
            problems.append(
                f"fair_regression.sweeps.{key} = {sweeps[key]} must contain 1: the claims"
                " compare the full setting (t = 1, α = 1)."
            )


_CHECKS = (
    _grids,
    _ranges,
    _variants,
    _readings,
    _folds,
    _domains,
    _cme,
    _coverage,
    _ridge,
    _rates,
    _fair_regression,
)


def config_problems(config):
    """Every cross-field problem of a schema-valid config, one message each.

    Parameters
    ----------
    config : dict
        The workflow config after ``snakemake.utils.validate`` (all required keys present).

    Returns
    -------
    list of str
        Messages naming the dotted keys and their values; empty when the config is sound.
    """
    problems = []
    for check in _CHECKS:
        check(problems, config)
    return problems


def check_config(config):
    """Raise a :class:`ValueError` listing every cross-field problem of ``config``.

    Parameters
    ----------
    config : dict
        The workflow config after schema validation.

    Raises
    ------
    ValueError
        One line per problem, each naming the config keys involved and their values.
    """
    problems = config_problems(config)
    if problems:
        raise ValueError("Invalid config:\n" + "\n".join(f"  - {p}" for p in problems))
