"""Coverage study: per-repetition table, Table 1 (long CSV and the paper's layout), the
coverage heat map (Fig. 1 analogue), coverage vs log2 P, RMSE vs P, and the verdicts.

The figures and the verdicts each read the tables back from the files just written, as
separate jobs would.
"""

import pandas as pd

from krepro.experiments.coverage import load_shards
from krepro.workflow.records import atomic_write_text
from krepro.report.coverage import coverage_section
from krepro.report.coverage_figures import plot_coverage, plot_coverage_heatmap, plot_rmse
from krepro.report.coverage_tables import aggregate, table1_markdown, tidy
from krepro.studies.render import write_section
from krepro.studies.verdicts import paper_reference
from krepro.workflow.runtime import job

with job(snakemake):
    out, params = snakemake.output, snakemake.params
    shards = load_shards(snakemake.input.shards)
    rho = {str(shard["variant"]): float(shard["setting_rho"]) for shard in shards}
    runs = tidy(shards)
    table = aggregate(runs, params.confidence_level, params.subsets, rho)
    atomic_write_text(out.runs, runs.to_csv(index=False))
    atomic_write_text(out.table, table.to_csv(index=False))
    atomic_write_text(out.markdown, table1_markdown(table, params.primary_variant))

    table = pd.read_csv(out.table)
    nominal, variant = params.confidence_level, params.primary_variant
    plot_coverage_heatmap(table, out.coverage, variant, nominal)
    plot_coverage(table, out.lines, variant, nominal)
    plot_rmse(table, out.rmse, variant)

    reference = paper_reference(snakemake.input.reference, "coverage")
    section = coverage_section(
        pd.read_csv(out.table),
        pd.read_csv(out.runs),
        reference,
        variant,
        params.settings,
        scale=params.scale,
    )
    write_section(section, out.json, out.md)
