"""What a run of the fair_regression study is expected to schedule and write, read by the shared
workflow tests through the registry (tests/studies/per_study.py): jobs per rule that the config
implies (rules not named run once)."""


def job_counts(config: dict) -> dict[str, int]:
    return {"fair_regression_fit": len(config["fair_regression"]["datasets"])}
