"""krepro.svm_predict.svr_predict equals libsvm's own SVR.predict."""

import numpy as np
import pytest
from sklearn.svm import SVC, SVR

from krepro.svm_predict import svr_predict


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
