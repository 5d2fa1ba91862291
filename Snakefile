"""krepro: reproduce the tables and figures of the kernel-method papers.

Targets: all (default), one per study (krepro.studies.STUDIES: one folder
src/krepro/studies/<name>/ and one rule file workflow/rules/<name>.smk each), and snapshot;
`snakemake targets` lists them with what they reproduce and their run times. Every output of
a run goes under the config's results_dir (results/; results/paper/ with config/paper.yaml).
See README.md.
"""

import time
from pathlib import Path

from snakemake.utils import min_version

from krepro.workflow.epilogue import run_epilogue

min_version("9.0")

RUN_STARTED = time.time()


# Resolved next to this file, so that `--directory elsewhere` still finds the defaults.
configfile: Path(workflow.basedir) / "config" / "config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"


# Each study's jobs, in its own rule file, named after its target.
for _name in STUDIES:

    include: f"workflow/rules/{_name}.smk"


include: "workflow/rules/report.smk"


# One target rule per study: `snakemake <study>` builds its outputs (on the submit host).
for _study in STUDIES.values():

    rule:
        name:
            _study.name
        input:
            study_outputs(_study.name),
        localrule: True


rule all:
    """Every study's target, and results/report.md: every reproduced number beside the
    paper's, with a verdict.

    Outputs: the outputs of every target, results/report.md.
    Run time: quick scale about 8 min on 2 cores (estimate).
    """
    default_target: True
    input:
        [study_outputs(name) for name in STUDIES if STUDIES[name].target],
        results("report.md"),


rule targets:
    """Print the experiments (target rules) with what they reproduce, outputs and run times."""
    log:
        logs("targets.log"),
    localrule: True
    run:
        Path(log[0]).write_text(describe_targets() + "\n", encoding="utf-8")
        print(describe_targets())


# The run's last lines name its report.md and the HTML command (only when it wrote report.md).
onsuccess:
    epilogue = run_epilogue(
        config["results_dir"],
        workflow.configfiles,
        Path(workflow.basedir) / "config" / "config.yaml",
        RUN_STARTED,
    )
    if epilogue:
        print(epilogue)
