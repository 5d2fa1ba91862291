"""Per-repetition table and Table 1 (long CSV and the paper's layout) of the coverage study."""

from krepro.experiments.coverage import load_shards
from krepro.records import atomic_write_text
from krepro.report.coverage_tables import aggregate, table1_markdown, tidy
from krepro.runtime import job

with job(snakemake):
    params = snakemake.params
    shards = load_shards(snakemake.input)
    rho = {str(shard["variant"]): float(shard["setting_rho"]) for shard in shards}
    runs = tidy(shards)
    table = aggregate(runs, params.confidence_level, params.subsets, rho)
    atomic_write_text(snakemake.output.runs, runs.to_csv(index=False))
    atomic_write_text(snakemake.output.table, table.to_csv(index=False))
    atomic_write_text(snakemake.output.markdown, table1_markdown(table, params.primary_variant))
