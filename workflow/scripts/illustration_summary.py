"""Paper Fig. 2 from the sampled points, and the verdicts on the dependence on S of h(X) and
of ⟨h, Z⟩."""

import pandas as pd

from krepro.studies.illustration.report import illustration_section
from krepro.studies.figures import plot_illustration
from krepro.studies.render import write_section
from krepro.studies.verdicts import paper_reference
from krepro.workflow.runtime import job

with job(snakemake):
    plot_illustration(pd.read_csv(snakemake.input.points), snakemake.output.figure)

    reference = paper_reference(snakemake.input.reference, "oblivious", "illustration")
    section = illustration_section(
        pd.read_csv(snakemake.input.summary), reference, scale=snakemake.params.scale
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
