"""What a run of the coverage study is expected to schedule and write, read by the shared
workflow tests through the registry (tests/studies/per_study.py): jobs per rule that the config
implies (rules not named run once), the files besides its target's outputs, those that must not
depend on --cores or on job order, and those that merge several jobs' records (the kill-and-resume
run)."""

import math

#: Files of a run besides the study's outputs and report section.
OUTPUTS = ["results/coverage/repetitions.csv"]
#: Files that must not depend on --cores or on job order.
DETERMINISTIC = ["results/tables/coverage_table1.csv", "results/coverage/repetitions.csv"]
#: The kill-and-resume run: the files that merge its shards of repetitions.
MERGED = DETERMINISTIC


def job_counts(config: dict) -> dict[str, int]:
    settings = config["coverage"]
    shards = sum(
        math.ceil(variant["n_repetitions"] / settings["shard_size"])
        for variant in settings["variants"].values()
    )
    return {"coverage_shard": shards}
