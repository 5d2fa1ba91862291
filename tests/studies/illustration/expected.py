"""What a run of the illustration study is expected to schedule and write, read by the shared
workflow tests through the registry (tests/studies/per_study.py): jobs per rule that the config
implies (rules not named run once), the files besides its target's outputs, and those that must
not depend on --cores or on job order."""

#: Files of a run besides the study's outputs and report section.
OUTPUTS = ["results/illustration/points.csv"]
#: Files that must not depend on --cores or on job order.
DETERMINISTIC = ["results/tables/illustration.csv", "results/illustration/points.csv"]


def job_counts(config: dict) -> dict[str, int]:
    return {}
