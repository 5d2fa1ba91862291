"""The ridge study's fitting path (krepro.studies.ridge.run) against the estimators of
:mod:`krepro.fairness.ridge` and scikit-learn: the experiment (§7.2) is ObliviousRidge /
KernelRidge at the λ it selects."""

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge

from krepro.fairness.oblivious import ObliviousKernel
from krepro.fairness.ridge import ObliviousRidge


@pytest.mark.parametrize(("experiment", "gamma"), [(1, 0.0), (1, 0.5), (2, 0.3), (2, 1.0)])
def test_experiment_path_equals_estimators_at_the_selected_lambda(experiment, gamma):
    """The experiment's eigendecomposition path (`fit_and_score`), taken at the λ it selects
    on the validation set, predicts what `ObliviousRidge` (ORR, M-ORR) and `KernelRidge` (KRR)
    fitted with that λ predict, to 1e-8, on the paper's sizes and dyadic partition."""
    from krepro.data.synthetic import ridge_splits
    from krepro.seeding import generator
    from krepro.studies.ridge.run import fit_and_score

    sizes = {"n_train": 500, "n_estimation": 500, "n_validation": 100, "n_test": 100}
    partition = {"low": -5.0, "high": 5.0, "cells_per_axis": 16}
    lambdas = 2.0 ** np.arange(-5, 6)
    rng = generator(7, "ridge-test", experiment, gamma)
    train, estimation, validation, test = ridge_splits(
        rng, sizes, gamma, experiment, 0.1, partition["low"], partition["high"]
    )
    oblivious_params = {
        "kernel": "rbf",
        "gamma": 1.0,
        "partition": "dyadic",
        "partition_bounds": (partition["low"], partition["high"]),
        "cells_per_axis": partition["cells_per_axis"],
    }
    oblivious = ObliviousKernel(**oblivious_params).fit(
        estimation.X, sensitive_features=estimation.S
    )
    results = fit_and_score(train, validation, test, oblivious, kernel_gamma=1.0, lambdas=lambdas)
    for method, mode in (("ORR", "oblivious"), ("M-ORR", "m-oblivious")):
        model = ObliviousRidge(alpha=results[method]["lambda"], mode=mode, **oblivious_params)
        model.fit(
            train.X,
            train.y,
            sensitive_features=train.S,
            X_estimation=estimation.X,
            sensitive_features_estimation=estimation.S,
        )
        expected = model.predict(test.X, sensitive_features=test.S)
        np.testing.assert_allclose(results[method]["prediction"], expected, rtol=0, atol=1e-8)
        mse = np.mean((expected - test.y) ** 2)
        assert results[method]["test_mse"] == pytest.approx(mse, rel=1e-10)
    krr = KernelRidge(alpha=results["KRR"]["lambda"], kernel="rbf", gamma=1.0)
    expected = krr.fit(train.X, train.y).predict(test.X)
    np.testing.assert_allclose(results["KRR"]["prediction"], expected, rtol=0, atol=1e-8)
