"""Points of paper Fig. 2 and their dependence on S."""

from krepro.experiments.illustration import dependence_summary, run
from krepro.workflow.records import atomic_write_text
from krepro.workflow.runtime import job

with job(snakemake):
    settings = dict(snakemake.params.settings)
    n_permutations = settings.pop("n_permutations")
    points = run(seed=snakemake.params.seed, **settings)
    atomic_write_text(snakemake.output.points, points.to_csv(index=False))
    summary = dependence_summary(points, seed=snakemake.params.seed, n_permutations=n_permutations)
    atomic_write_text(snakemake.output.summary, summary.to_csv(index=False))
