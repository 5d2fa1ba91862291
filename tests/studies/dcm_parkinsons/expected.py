"""What a run of the dcm_parkinsons study is expected to schedule and write, read by the shared
workflow tests through the registry (tests/studies/per_study.py): jobs per rule that the config
implies (rules not named run once), and the rules a config can leave without jobs."""

from tests.studies.dcm_parkinsons.test_run import parkinsons_fit_jobs

#: Rules that a config can leave without jobs (one fit rule per reading layout).
OPTIONAL_RULES = {"dcm_parkinsons_fit", "dcm_parkinsons_fit_readings"}


def job_counts(config: dict) -> dict[str, int]:
    return parkinsons_fit_jobs(config)
