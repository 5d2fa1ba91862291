"""Avanesov, distributed regression: Fig. 1 and Table 1, coverage of bootstrap bands."""

import math

from krepro.studies.coverage.readings import shards
from krepro.studies.readings import the_primary

COVERAGE = config["coverage"]
# The readings (krepro.studies.coverage.readings): penalty variant × band.
COVERAGE_READINGS = study_readings("coverage")


# Job time limit: ~1 CPU-s per repetition at N = 2^16 (benchmarks/coverage.py: 0.6-0.9), x3.
COVERAGE_SECONDS_PER_REP = 3 * COVERAGE["n_samples"] / 65536
# Shards: blocks of shard_size repetitions per penalty variant, named by their first and
# last repetition (krepro.studies.coverage.readings.shards).
COVERAGE_SHARDS = [
    results(f"coverage/shards/{variant}/reps-{first:05d}-{last:05d}.npz")
    for variant, first, last in shards(COVERAGE_READINGS, COVERAGE["shard_size"])
]
# What a repetition depends on, per variant: everything but n_repetitions, shard_size and
# subsets, so that changing those does not rerun existing shards.
COVERAGE_SHARD_SECTION = {
    variant: {
        **{
            k: v
            for k, v in COVERAGE.items()
            if k not in ("shard_size", "subsets", "variants")
        },
        "variants": {
            variant: {k: v for k, v in spec.items() if k != "n_repetitions"},
        },
    }
    for variant, spec in COVERAGE["variants"].items()
}


rule coverage_shard:
    output:
        results("coverage/shards/{variant}/reps-{first}-{last}.npz"),
    log:
        logs("coverage/shards/{variant}/reps-{first}-{last}.log"),
    benchmark:
        benchmarks("coverage_shard/{variant}/reps-{first}-{last}.tsv")
    wildcard_constraints:
        first=r"\d{5}",
        last=r"\d{5}",
    priority: 1
    threads: 1
    resources:
        mem_mb=2000,
        runtime=lambda wc: max(
            5,
            math.ceil(
                (int(wc.last) - int(wc.first) + 1) * COVERAGE_SECONDS_PER_REP / 60
            ),
        ),
    params:
        seed=config["seed"],
        section=lambda wildcards: COVERAGE_SHARD_SECTION[wildcards.variant],
        entry=job_entry("coverage", "shard"),
        code=job_code("coverage", "shard"),
    script:
        STUDY_JOB_SCRIPT


# Table 1, the figures and the report section in one job (seconds in all; the shards hold
# the computation).
rule coverage_summary:
    input:
        shards=COVERAGE_SHARDS,
    output:
        runs=results("coverage/repetitions.csv"),
        table=report(
            results("tables/coverage_table1.csv"),
            caption="../report/coverage_table1.rst",
            category="Distributed regression tables",
        ),
        markdown=report(
            results("tables/coverage_table1.md"),
            caption="../report/coverage_table1_md.rst",
            category="Distributed regression tables",
        ),
        coverage=report(
            results("figures/coverage_fig1.png"),
            caption="../report/coverage_fig1.rst",
            category="Distributed regression",
        ),
        lines=report(
            results("figures/coverage_fig1_lines.png"),
            caption="../report/coverage_fig1_lines.rst",
            category="Distributed regression",
        ),
        rmse=report(
            results("figures/coverage_rmse.png"),
            caption="../report/coverage_rmse.rst",
            category="Distributed regression",
        ),
        json=results("report/coverage.json"),
        md=results("report/coverage.md"),
    log:
        logs("coverage/summary.log"),
    benchmark:
        benchmarks("coverage_summary.tsv")
    localrule: True
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        reference=study_reference("coverage"),
        confidence_level=COVERAGE["confidence_level"],
        subsets=COVERAGE["subsets"],
        readings=COVERAGE_READINGS,
        scale=config["scale"],
        settings={
            "n_samples": COVERAGE["n_samples"],
            "partitions": COVERAGE["partitions"],
            "targets": COVERAGE["targets"],
            "n_repetitions": the_primary(COVERAGE_READINGS).repetitions,
            "n_resamples": COVERAGE["n_resamples"],
            "confidence_level": COVERAGE["confidence_level"],
            "nu": COVERAGE["kernel"]["nu"],
        },
        entry=job_entry("coverage", "summary"),
        code=job_code("coverage", "summary"),
    script:
        STUDY_JOB_SCRIPT
