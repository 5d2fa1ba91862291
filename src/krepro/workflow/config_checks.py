"""Cross-field checks of the workflow config: what the JSON schema cannot express.

``workflow/schemas/config.schema.yaml`` checks every key on its own (type, range, known
names). The constraints between keys, and those on the values a report needs, are checked
before the workflow builds its DAG: a λ, α or C grid whose minimum exceeds its maximum, a
range with ``low >= high``, as many training domains as domains, more folds than training
points, a ``primary_variant`` that is not a variant, γ values without both ends 0 and 1,
and so on. Left unchecked, each starts jobs that fail later (sometimes only in the summary
job, after every fit) with a message that does not name the config key ("argmin of an empty
sequence", "high − low < 0", ``KeyError: 'M-ORR'``).

The checks that span the config (every section's primary readings) live here; those of one
study's section live in its folder (``Study.config_checks``, in ``checks.py``), built from
:mod:`krepro.config_rules`. :func:`check_config` runs both, the spanning checks first and then
the studies' in the registry's order, and raises one :class:`ValueError` listing every
problem, each with the dotted keys and their values. config/README.md states each of these
constraints.

The studies come in as an argument (the Snakefile passes :data:`krepro.studies.STUDIES`): the
workflow's plumbing does not import the studies.
"""

from __future__ import annotations

__all__ = ["check_config", "config_problems"]


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


_CHECKS = (_readings,)


def config_problems(config, studies):
    """Every cross-field problem of a schema-valid config, one message each.

    Parameters
    ----------
    config : dict
        The workflow config after ``snakemake.utils.validate`` (all required keys present).
    studies : iterable of krepro.studies.Study
        The studies whose checks run (``STUDIES.values()``), in this order.

    Returns
    -------
    list of str
        Messages naming the dotted keys and their values; empty when the config is sound.
    """
    problems = []
    for check in _CHECKS:
        check(problems, config)
    for study in studies:
        check = study.config_check()
        if check is not None:
            check(problems, config)
    return problems


def check_config(config, studies):
    """Raise a :class:`ValueError` listing every cross-field problem of ``config``.

    Parameters
    ----------
    config : dict
        The workflow config after schema validation.
    studies : iterable of krepro.studies.Study
        The studies whose checks run (``STUDIES.values()``).

    Raises
    ------
    ValueError
        One line per problem, each naming the config keys involved and their values.
    """
    problems = config_problems(config, studies)
    if problems:
        raise ValueError("Invalid config:\n" + "\n".join(f"  - {p}" for p in problems))
