"""What a run of the dcm_synthetic study is expected to schedule and write, read by the shared
workflow tests through the registry (tests/studies/per_study.py): jobs per rule that the config
implies (rules not named run once), and the files that must not depend on --cores or on job
order."""

#: Files that must not depend on --cores or on job order.
DETERMINISTIC = ["results/tables/dcm_table3.csv", "results/dcm_synthetic/fig2_projections.csv"]


def job_counts(config: dict) -> dict[str, int]:
    settings = config["dcm_synthetic"]
    return {
        "dcm_synthetic_fit": len(settings["etas"])
        * len(settings["gammas"])
        * len(settings["centring"])
        * len(settings["b_scale"]),
    }
