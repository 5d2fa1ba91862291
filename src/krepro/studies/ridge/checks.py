"""Config checks of the ridge study (``STUDY.config_checks``): what the schema cannot say
about the ``ridge`` section, checked before the workflow builds its DAG."""

from __future__ import annotations

import math

from krepro.config_rules import ordered, primary_variant

__all__ = ["EXPERIMENTS", "GAMMA_ENDS", "check"]

# γ values the ridge report reads, and the experiments it compares (report.py: the gaps at
# γ = 0 and γ = 1; M-ORR − ORR in experiment 2 against experiment 1).
GAMMA_ENDS = (0.0, 1.0)
EXPERIMENTS = (1, 2)


def check(problems, config):
    """Append the problems of ``config["ridge"]`` to ``problems``: ordered λ grids, a
    partition with ``low < high``, a primary variant among the variants, and the γ values
    and experiments the report compares."""
    ridge = config["ridge"]
    for name, variant in ridge["variants"].items():
        ordered(
            problems,
            variant,
            "log2_lambda_min",
            "log2_lambda_max",
            strict=False,
            prefix=f"ridge.variants.{name}",
        )
    ordered(problems, ridge["partition"], "low", "high", strict=True, prefix="ridge.partition")
    primary_variant(problems, ridge, "ridge")
    # The report matches γ with numpy.isclose's default tolerance.
    missing = [
        end
        for end in GAMMA_ENDS
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
    missing = [e for e in EXPERIMENTS if e not in ridge["experiments"]]
    if missing:
        problems.append(
            f"ridge.experiments = {ridge['experiments']} must contain 1 and 2 (missing"
            f" {missing}): the report compares the M-ORR − ORR gap of experiment 2 with"
            " experiment 1's."
        )
