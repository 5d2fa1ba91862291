"""Building blocks of the workflow config's cross-field checks.

The workflow's :func:`krepro.workflow.config_checks.check_config` runs the checks that span
the config, then each study's own (``Study.config_checks``, in the study's folder). Both
build their messages here, so that every problem reads the same: the dotted keys and their
values. A check appends its messages to a ``problems`` list, one per problem.
"""

from __future__ import annotations

__all__ = ["enough_folds", "ordered", "primary_variant"]


def ordered(problems, section, low_key, high_key, *, strict, prefix):
    """``section[low_key] <= section[high_key]`` (``<`` when ``strict``)."""
    low, high = section[low_key], section[high_key]
    if low > high or (strict and low == high):
        relation = "smaller than" if strict else "at most"
        problems.append(
            f"{prefix}.{low_key} = {low!r} must be {relation} {prefix}.{high_key} = {high!r}."
        )


def primary_variant(problems, section, prefix):
    """``section["primary_variant"]`` is one of ``section["variants"]``."""
    primary = section["primary_variant"]
    if primary not in section["variants"]:
        problems.append(
            f"{prefix}.primary_variant = {primary!r} is not one of {prefix}.variants "
            f"{sorted(section['variants'])}."
        )


def enough_folds(problems, section, n_key, *, prefix):
    """Cross-validation needs at least one training point per fold:
    ``section["n_folds"] <= section[n_key]``."""
    n_folds, n = section["n_folds"], section[n_key]
    if n_folds > n:
        problems.append(
            f"{prefix}.n_folds = {n_folds} exceeds {prefix}.{n_key} = {n} "
            "(every fold needs a training point)."
        )
