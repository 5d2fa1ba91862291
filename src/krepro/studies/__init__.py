"""The studies: one folder per experiment, and :data:`STUDIES`, the registry every list of
experiments reads (the Snakefile's targets and ``rule all``, the report, ``snakemake
targets``, the README check and the tests).

Each sub-package ``krepro/studies/<name>/`` defines ``STUDY`` (a :class:`Study`); the registry
finds them by listing this package's folders, so that adding a study touches its own folder,
its config sections and its rule file, and nothing else. Beside the registry: the verdict
records (:mod:`~krepro.studies.verdicts`), their renderings (:mod:`~krepro.studies.render`),
the report's assembly (:mod:`~krepro.studies.assemble`), shared table and figure helpers,
and what several studies share: model selection (:mod:`~krepro.studies.selection`) and the
one-class guard (:mod:`~krepro.studies.guards`), so that no study imports another.
"""

from __future__ import annotations

import importlib
import pkgutil

from krepro.studies.study import PAPERS, Paper, Study

__all__ = ["PAPERS", "STUDIES", "Paper", "Study", "discover"]


def discover(path=None, package=__name__):
    """Every study package under a folder, as ``{name: Study}`` in the studies' order.

    Parameters
    ----------
    path : list of str, optional
        Folders to search (default: this package's); each sub-package is a study.
    package : str, default="krepro.studies"
        The dotted name the sub-packages are imported under.

    Raises
    ------
    TypeError
        When a sub-package has no ``STUDY`` record or its name is not the folder's.
    """
    found = []
    for info in pkgutil.iter_modules(__path__ if path is None else path):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        study = getattr(module, "STUDY", None)
        if not isinstance(study, Study):
            raise TypeError(f"{module.__name__} defines no STUDY = krepro.studies.Study(...).")
        if study.name != info.name:
            raise TypeError(f"{module.__name__}: STUDY.name is {study.name!r}, not {info.name!r}.")
        found.append(study)
    return {study.name: study for study in sorted(found, key=lambda s: (s.order, s.name))}


#: Every study, by name, in the order of the report.
STUDIES = discover()
