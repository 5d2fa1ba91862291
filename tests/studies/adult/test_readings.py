"""The Adult readings (krepro.studies.adult.readings) and the fit jobs the rule file expands
from them."""

from krepro.studies.adult.readings import fit_jobs, job_methods, readings

SETTINGS = {
    "protocols": {"reference": {}, "corrected": {}},
    "run_grids": ["paper", "repository"],
    "primary_protocol": "reference",
    "primary_grid": "paper",
    "n_splits": 4,
    "reading_splits": 2,
    "methods": ["svm_rbf", "ferm_rbf"],
    "primary_methods": ["ferm_rbf_exact"],
    "variants": {
        "cv_misaligned": {"protocol": "reference", "grid": "paper", "method": "ferm_rbf_misaligned"}
    },
}


def test_readings_protocol_by_grid_then_the_variant_rows():
    found = readings(SETTINGS)
    assert [(r.name, r.primary, r.repetitions) for r in found] == [
        ("reference/paper", True, 4),
        ("reference/repository", False, 2),
        ("corrected/paper", False, 2),
        ("corrected/repository", False, 2),
        ("reference/paper+cv_misaligned", False, 2),
    ]
    assert found[-1].axes == {"protocol": "reference", "grid": "paper", "variant": "cv_misaligned"}
    unset = readings({**SETTINGS, "reading_splits": None})
    assert {r.repetitions for r in unset} == {4}


def test_fit_jobs_and_their_methods():
    found = readings(SETTINGS)
    jobs = fit_jobs(found)
    assert jobs[:4] == [("reference", "paper", s) for s in range(4)]
    assert len(jobs) == 4 + 3 * 2
    # the primary's own methods on every split, the variant on the first reading_splits
    assert job_methods(found, SETTINGS, "reference", "paper", 1) == [
        "svm_rbf",
        "ferm_rbf",
        "ferm_rbf_exact",
        "ferm_rbf_misaligned",
    ]
    assert job_methods(found, SETTINGS, "reference", "paper", 3) == [
        "svm_rbf",
        "ferm_rbf",
        "ferm_rbf_exact",
    ]
    assert job_methods(found, SETTINGS, "corrected", "paper", 0) == ["svm_rbf", "ferm_rbf"]
