"""What a run of the adult_full study is expected to schedule and write, read by the shared
workflow tests through the registry (tests/studies/per_study.py): jobs per rule that the config
implies (rules not named run once)."""


def job_counts(config: dict) -> dict[str, int]:
    return {"adult_full_fit": len(config["adult_full"]["methods"])}
