"""What a study exposes to the workflow, the report and the tests: the :class:`Study` record.

A study is one experiment of one paper: a folder ``krepro/studies/<name>/`` whose
``__init__.py`` defines ``STUDY = Study(...)``, with its run code, aggregation, report section
and figures beside it, and the Snakemake rules of its jobs in ``workflow/rules/<name>.smk``.
The registry (:data:`krepro.studies.STUDIES`) finds the folders; nothing else lists them.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping

__all__ = ["PAPERS", "Paper", "Study"]


@dataclasses.dataclass(frozen=True)
class Paper:
    """A paper whose claims the studies check.

    Parameters
    ----------
    key : str
        Its block in ``config/paper_reference.yaml`` and the ``paper`` column of the verdicts.
    title : str
        Its row in the report's scorecard.
    """

    key: str
    title: str


#: The papers of the studies, by key.
PAPERS = {
    paper.key: paper
    for paper in (
        Paper(
            "oblivious", "Oblivious data for fairness with kernels (Grünewälder & Khaleghi 2021)"
        ),
        Paper("cme", "Conditional mean embeddings (CME note)"),
        Paper("dcm", "Domain-based covariance minimisation (DCM, Wu 2021)"),
        Paper("coverage", "Uncertainty quantification for distributed regression (Avanesov 2021)"),
    )
}


@dataclasses.dataclass(frozen=True)
class Study:
    """One experiment: its target, paper, outputs, job functions and report section.

    Parameters
    ----------
    name : str
        The folder's name: the Snakemake target (``snakemake <name>``), the config section
        and the report section (``<results_dir>/report/<name>.json``).
    paper : Paper
        The paper whose claims it checks.
    order : int
        Position in ``snakemake targets``, ``rule all`` and ``report.md`` (ascending).
    summary : str
        What it reproduces (the paper's section, table or figure), one paragraph.
    outputs : tuple of str
        The files the target builds, relative to the run's ``results_dir``.
    quick_run_time : str
        An estimate of the target's wall-clock time on 2 cores at the quick scale
        (``"20 s"``). The papers' scale is measured, not estimated: :meth:`describe` takes
        the CPU seconds of the committed snapshot's run
        (:func:`krepro.workflow.run_times.snapshot_run_times`).
    jobs : mapping of str to str
        Job name to ``"<module>:<function>"`` inside the study's package: the functions the
        workflow's generic script ``workflow/scripts/study_job.py`` calls, each with the job
        (Snakemake's ``snakemake`` object: ``input``, ``output``, ``params``, ``wildcards``,
        ``rule``, ``threads``) and the job's logger.
    datasets : tuple of str, default=()
        The downloaded data sets its jobs read (keys of :data:`krepro.data.download.DATASETS`).
    config_checks : str, optional
        ``"<module>:<function>"`` inside the study's package (by convention ``"checks:check"``,
        in ``checks.py``): what the config schema cannot say about the study's config section.
        The workflow calls it before it builds the DAG, as ``function(problems, config)``
        (``config`` schema-valid), and the function appends one message per problem to the
        list ``problems``, naming the dotted keys and their values. ``None``: no such checks.
    reference : tuple of str, default=()
        The keys of its block in ``config/paper_reference.yaml`` (its paper's key, then
        usually its own name): the claims its report judges.
    reference_only : tuple of str, optional
        Where the block also holds other studies' blocks (a paper's own claims beside its
        studies): the block's entries the report reads.
    readings : str, optional
        ``"<module>:<function>"`` inside the study's package: the function that returns the
        study's readings (a list of :class:`krepro.studies.readings.Reading`) from its config
        section. The rule files expand their run lists from it and the report judges every
        claim under each (:meth:`readings_of`). ``None``: one reading, ``primary``.
    target : bool, default=True
        ``False`` for a study built only as part of another target (none today).
    """

    name: str
    paper: Paper
    order: int
    summary: str
    outputs: tuple[str, ...]
    quick_run_time: str
    jobs: Mapping[str, str]
    datasets: tuple[str, ...] = ()
    config_checks: str | None = None
    reference: tuple[str, ...] = ()
    reference_only: tuple[str, ...] | None = None
    readings: str | None = None
    target: bool = True

    @property
    def package(self) -> str:
        """Dotted name of the study's package."""
        return f"{__package__}.{self.name}"

    @property
    def section(self) -> str:
        """The report section the study writes (JSON, relative to ``results_dir``)."""
        return f"report/{self.name}.json"

    def describe(self, paper_cpu_seconds=None) -> str:
        """What ``snakemake targets`` prints: summary, outputs, run times.

        ``paper_cpu_seconds``: the target's CPU seconds in the committed paper-scale
        snapshot (``None``: not in it).
        """
        paper = (
            "not in the committed snapshot"
            if paper_cpu_seconds is None
            else f"{paper_cpu_seconds:,.0f} CPU-s in the committed snapshot's run"
        )
        return (
            f"{self.summary.strip()}\n\n"
            f"Outputs: {', '.join(f'results/{path}' for path in self.outputs)}.\n"
            f"Run time: quick scale about {self.quick_run_time} on 2 cores (estimate); "
            f"paper scale {paper}."
        )

    def entry(self, job: str) -> str:
        """``"krepro.studies.<name>.<module>:<function>"`` of one job."""
        module, function = self.jobs[job].split(":")
        return f"{self.package}.{module}:{function}"

    def module(self, job: str) -> str:
        """Dotted name of the module holding one job's function."""
        return self.entry(job).split(":")[0]

    def job_function(self, job: str):
        """The function of one job, imported."""
        return resolve_entry(self.entry(job))

    def config_check(self):
        """The function of :attr:`config_checks`, imported (``None`` when there is none)."""
        if self.config_checks is None:
            return None
        return resolve_entry(f"{self.package}.{self.config_checks}")

    def readings_of(self, settings: Mapping) -> list:
        """The study's readings under its config section ``settings`` (:attr:`readings`)."""
        if self.readings is None:
            from krepro.studies.readings import Reading

            return [Reading("primary")]
        return list(resolve_entry(f"{self.package}.{self.readings}")(settings))


def resolve_entry(entry: str):
    """The function named ``"<dotted module>:<function>"``."""
    module, _, function = entry.partition(":")
    return getattr(importlib.import_module(module), function)
