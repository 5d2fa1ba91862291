"""Config checks of the Adult study (``STUDY.config_checks``): what the schema cannot say
about the ``adult`` section, checked before the workflow builds its DAG."""

from __future__ import annotations

from krepro.config_rules import enough_folds

__all__ = ["check"]


def check(problems, config):
    """Append the problems of ``config["adult"]`` to ``problems``: readings (grids, protocol,
    variants) that are run, and enough training points for the folds."""
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
    enough_folds(problems, adult, "n_train_corrected", prefix="adult")
