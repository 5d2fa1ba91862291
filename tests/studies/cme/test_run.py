"""The ``cme`` study's run (krepro.studies.cme.run): structure, determinism, library
identities, parameter checks."""

import numpy as np
import pandas as pd
import pytest

from krepro.cme import ConditionalMeanEmbedding
from krepro.studies.cme import run as experiment

SMALL = {
    "n_train": 80,
    "n_heldout": 100,
    "n_query": 21,
    "n_repetitions": 2,
    "lambdas": [1e-2, 1e-4, 1.0],
    "n_eval": 31,
}


def test_run_structure_determinism_and_library_identities():
    results = experiment.run_experiment(seed=3, **SMALL)
    table, claims = results["table"], results["claims"]
    assert list(table.columns[:4]) == [
        "lambda",
        "mean_abs_weight_sum_minus_one",
        "share_negative_weights",
        "mmd_error",
    ]
    np.testing.assert_array_equal(table["lambda"], [1e-4, 1e-2, 1.0])  # sorted
    assert (table["n_reps"] == 2).all()
    for kernel in experiment.OUTPUT_KERNELS:
        assert table[f"selected_{kernel}"].sum() == 1
    assert set(claims["claim"]) == {"setup", *experiment.CLAIMS}
    assert len(results["query"]) == 3 * 21 and len(results["sample"]) == 80
    assert len(results["curves"]) == 3 * 3 * 31 and len(results["weights"]) == 3 * 2 * 80
    # same seed → same numbers; another seed → other numbers
    again = experiment.run_experiment(seed=3, **SMALL)
    pd.testing.assert_frame_equal(table, again["table"])
    assert not np.allclose(
        table["mmd_error"], experiment.run_experiment(seed=4, **SMALL)["table"]["mmd_error"]
    )

    # The experiment forms the linear and delta embeddings from shared weights: they equal
    # the library's predict_mean and category_scores fitted on the same sample.
    sample, query = results["sample"], results["query"]
    X = sample[["x"]].to_numpy()
    for lam in SMALL["lambdas"]:
        grid = query[np.isclose(query["lambda"], lam)]
        x = grid[["x"]].to_numpy()
        linear = ConditionalMeanEmbedding(gamma=20.0, output_kernel="linear", alpha=lam)
        np.testing.assert_allclose(
            grid["mean_linear"], linear.fit(X, sample["y"]).predict_mean(x), atol=1e-10
        )
        delta = ConditionalMeanEmbedding(gamma=20.0, output_kernel="delta", alpha=lam)
        scores = delta.fit(X, sample["c"]).category_scores(x)
        np.testing.assert_allclose(grid[["score_0", "score_1", "score_2"]], scores, atol=1e-10)
        np.testing.assert_allclose(grid["weight_sum"], scores.sum(axis=1), atol=1e-10)


def test_run_rejects_bad_parameters():
    with pytest.raises(ValueError, match="Unknown cme parameter"):
        experiment.run_experiment(seed=0, n_points=10)
    with pytest.raises(ValueError, match="lambdas"):
        experiment.run_experiment(seed=0, lambdas=[1e-3])
    with pytest.raises(ValueError, match="n_repetitions"):
        experiment.run_experiment(seed=0, n_repetitions=1)
