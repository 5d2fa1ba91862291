"""What a run of the students study is expected to schedule and write, read by the shared
workflow tests through the registry (tests/studies/per_study.py): jobs per rule that the config
implies (rules not named run once), and the files that must not depend on --cores or on job
order."""

#: Files that must not depend on --cores or on job order.
DETERMINISTIC = ["results/tables/students.csv"]


def job_counts(config: dict) -> dict[str, int]:
    selections = config["students"]["c_selections"].values()
    return {"students_fit": sum(len(spec["variants"]) for spec in selections)}
