"""krepro.dcm.svm_predict.svr_predict equals libsvm's own SVR.predict."""

import numpy as np
import pytest
from sklearn.svm import SVC, SVR

from krepro.dcm.svm_predict import rbf_svr_predictions, svr_predict


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 5))
    y = 10 * np.sin(X[:, 0]) + X[:, 1] + rng.standard_normal(300)  # most points are SVs
    return X, y, rng.standard_normal((120, 5))


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "rbf", "gamma": "auto"},
        {"kernel": "rbf", "gamma": "scale"},
        {"kernel": "rbf", "gamma": 0.37},
        {"kernel": "linear"},
    ],
)
def test_equals_libsvm_predict(data, params):
    X, y, X_test = data
    model = SVR(C=1.0, epsilon=0.1, **params).fit(X, y)
    assert model.support_.size > 100
    expected = model.predict(X_test)
    np.testing.assert_allclose(svr_predict(model, X_test), expected, rtol=0, atol=1e-10)
    np.testing.assert_allclose(svr_predict(model, X), model.predict(X), rtol=0, atol=1e-10)


def test_refuses_what_it_does_not_cover(data):
    X, y, X_test = data
    with pytest.raises(ValueError, match="kernel"):
        svr_predict(SVR(kernel="poly").fit(X, y), X_test)
    with pytest.raises(ValueError, match="SVR"):
        svr_predict(SVC().fit(X, y > 0), X_test)
    with pytest.raises(Exception, match="not fitted"):
        svr_predict(SVR(), X_test)


@pytest.mark.parametrize("gamma", [None, 0.37])
def test_rbf_svr_predictions_solve_the_rbf_svr_problem(data, gamma):
    # The same problem as SVR(kernel="rbf"); libsvm stops at its 1e-3 tolerance either way,
    # so the two fits agree to that tolerance (the targets here span about +-12).
    X, y, X_test = data
    model = SVR(kernel="rbf", gamma="auto" if gamma is None else gamma, C=1.0, epsilon=0.1)
    expected = model.fit(X, y).predict(X_test)
    got = rbf_svr_predictions(X, y, X_test, gamma=gamma, C=1.0, epsilon=0.1)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-2)
    # A different problem is visibly different (the check can fail).
    other = rbf_svr_predictions(X, y, X_test, gamma=gamma, C=0.1, epsilon=0.1)
    assert np.abs(other - expected).max() > 0.1
