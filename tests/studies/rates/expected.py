"""What a run of the rates study is expected to schedule and write, read by the shared workflow
tests through the registry (tests/studies/per_study.py): jobs per rule that the config implies
(rules not named run once), and the files that must not depend on --cores or on job order."""

#: Files that must not depend on --cores or on job order.
DETERMINISTIC = ["results/tables/oblivious_rates.csv"]


def job_counts(config: dict) -> dict[str, int]:
    rates = config["rates"]
    return {"rates_run": len(rates["finite"]["n_values"]) + len(rates["continuous"]["dims"])}
