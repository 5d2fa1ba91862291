"""What a run of the ridge study is expected to schedule and write, read by the shared workflow
tests through the registry (tests/studies/per_study.py): jobs per rule that the config implies
(rules not named run once), the files besides its target's outputs, those that must not depend
on --cores or on job order, and those that merge several jobs' records (the kill-and-resume
run)."""

#: Files of a run besides the study's outputs and report section.
OUTPUTS = ["results/tables/ridge_best_constant.csv", "results/ridge/ridge.csv"]
#: Files that must not depend on --cores or on job order (the run records also hold CPU
#: times, so they are compared through the tidy table results/ridge/ridge.csv).
DETERMINISTIC = [
    "results/tables/ridge.csv",
    "results/ridge/ridge.csv",
    "results/tables/ridge_best_constant.csv",
]
#: The kill-and-resume run: the folders where each job writes its one JSON record, and the
#: files that merge them (where an order of completion could leak into a result).
RECORDS = ["results/ridge/runs"]
MERGED = DETERMINISTIC


def n_ridge_fits(config: dict) -> int:
    ridge = config["ridge"]
    return len(ridge["variants"]) * len(ridge["experiments"])


def job_counts(config: dict) -> dict[str, int]:
    return {"ridge_fit": n_ridge_fits(config)}
