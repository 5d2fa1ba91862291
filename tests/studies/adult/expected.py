"""What a run of the adult study is expected to schedule and write, read by the shared workflow
tests through the registry (tests/studies/per_study.py): jobs per rule that the config implies
(rules not named run once), and the files that must not depend on --cores or on job order."""

#: Files that must not depend on --cores or on job order.
DETERMINISTIC = ["results/tables/adult_table1.csv"]


def job_counts(config: dict) -> dict[str, int]:
    adult = config["adult"]
    return {"adult_fit": len(adult["protocols"]) * len(adult["run_grids"]) * adult["n_splits"]}
