"""snapshots/<scale>/: the finished run's report, verdicts, tables, figures and provenance."""

from krepro.workflow.runtime import job
from krepro.workflow.snapshot import repair_snapshot, write_snapshot

with job(snakemake) as logger:
    inp = snakemake.input
    # A publish killed between its renames: the previous snapshot back, staging removed.
    for repair in repair_snapshot(snakemake.params.destination):
        logger.warning("%s", repair)
    record = write_snapshot(
        snakemake.params.destination,
        report=inp.report,
        verdicts=inp.verdicts,
        provenance=inp.provenance,
        tables=inp.tables,
        figures=inp.figures,
        benchmarks=snakemake.params.benchmarks,
        logs=snakemake.params.logs,
    )
    logger.info(
        "%s: %d files, wall %.0f s, CPU %.0f s",
        snakemake.params.destination,
        len(record["files"]) + 1,
        record["wall_seconds"],
        sum(record["rule_cpu_seconds"].values()),
    )
