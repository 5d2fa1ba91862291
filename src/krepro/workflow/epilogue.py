"""The last lines a run prints: where its report is and how to render the HTML report.

The Snakefile's ``onsuccess`` handler calls :func:`run_epilogue`. It speaks only when the
run (re)wrote ``<results_dir>/report.md``, so a run of one experiment, a dry run or
``snakemake targets`` prints nothing more.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["configfile_flags", "run_epilogue"]


def _shown(path, cwd) -> str:
    """``path`` relative to ``cwd`` when it lies below it, else as it is."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path(cwd).resolve()))
    except ValueError:
        return str(path)


def configfile_flags(config_files, default, cwd=".") -> str:
    """``--configfile`` flags that repeat a run's config files, the default one left out.

    Examples
    --------
    >>> configfile_flags(["/repo/config/config.yaml", "config/paper.yaml"],
    ...                  default="/repo/config/config.yaml", cwd="/repo")
    ' --configfile config/paper.yaml'
    >>> configfile_flags(["/repo/config/config.yaml"], default="/repo/config/config.yaml")
    ''
    """
    default = Path(default).resolve()
    extra = [_shown(path, cwd) for path in config_files if Path(path).resolve() != default]
    return "".join(f" --configfile {path}" for path in extra)


def run_epilogue(results_dir, config_files, default_config, started_at, cwd=".") -> str:
    """The lines naming the run's ``report.md`` and the HTML command, or ``""``.

    Parameters
    ----------
    results_dir : str
        The config's ``results_dir``.
    config_files : list of path-like
        Snakemake's ``workflow.configfiles``.
    default_config : path-like
        The config file the Snakefile always loads (``config/config.yaml``).
    started_at : float
        When the run started (``time.time()``); a ``report.md`` older than that is not this
        run's and nothing is printed.
    cwd : path-like, default="."
        The working directory, to show paths relative to it.
    """
    report = Path(results_dir) / "report.md"
    try:
        written = os.stat(report).st_mtime >= started_at
    except FileNotFoundError:
        written = False
    if not written:
        return ""
    flags = configfile_flags(config_files, default_config, cwd)
    html = Path(results_dir) / "report.html"
    return "\n".join(
        [
            f"Report: {report} (every reproduced number beside the paper's, with its verdict;"
            f" all verdicts: {Path(results_dir) / 'verdicts.csv'})",
            f"HTML report with every figure and table: snakemake{flags} --report {html}",
        ]
    )
