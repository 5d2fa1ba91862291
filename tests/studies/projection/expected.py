"""What a run of the projection study is expected to schedule and write, read by the shared
workflow tests through the registry (tests/studies/per_study.py): jobs per rule that the config
implies (rules not named run once), the files that must not depend on --cores or on job order,
and those that merge several jobs' records (the kill-and-resume run)."""

#: Files that must not depend on --cores or on job order.
DETERMINISTIC = ["results/tables/projection.csv"]
#: The kill-and-resume run: the folders where each job writes its one JSON record (one γ),
#: and the files that merge them.
RECORDS = ["results/projection/runs"]
MERGED = DETERMINISTIC


def job_counts(config: dict) -> dict[str, int]:
    return {"projection_run": len(config["projection"]["gammas"])}
