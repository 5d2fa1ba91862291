"""Config checks of the students study (``STUDY.config_checks``): what the schema cannot say
about the ``students`` section, checked before the workflow builds its DAG."""

from __future__ import annotations

from krepro.config_rules import enough_folds, ordered, primary_variant

__all__ = ["check"]


def check(problems, config):
    """Append the problems of ``config["students"]`` to ``problems``: ordered C grids,
    generator variants with ``low < high``, a primary variant and C selection that exist and
    run together, C selections that run known variants, and enough training points for the
    folds."""
    students = config["students"]
    selections = students["c_selections"]
    for name, selection in selections.items():
        ordered(
            problems,
            selection,
            "log2_C_min",
            "log2_C_max",
            strict=False,
            prefix=f"students.c_selections.{name}",
        )
    for name, variant in students["variants"].items():
        ordered(problems, variant, "low", "high", strict=True, prefix=f"students.variants.{name}")
    primary_variant(problems, students, "students")
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
    enough_folds(problems, students, "n_train", prefix="students")
