r"""Vectorised predictions of fitted scikit-learn ``SVR`` models (libsvm).

libsvm predicts one test point at a time, evaluating the kernel against every support
vector in a scalar loop: with nearly all training points support vectors (ε-SVR on
unscaled UPDRS targets, :mod:`krepro.experiments.dcm_parkinsons`), predicting 1,700 points
from 4,100 support vectors costs as much as a fifth of the fit. The same prediction is

.. math:: \hat f(x) = \sum_{i \in SV} \alpha_i\, k(x, x_i) + b,

one kernel block and one matrix–vector product (BLAS). Values agree with libsvm's to
round-off (the kernel block by :func:`krepro.kernels.gram`; ~1e-12 relative).
"""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVR
from sklearn.utils.validation import check_is_fitted

from krepro.kernels import gram

__all__ = ["svr_predict"]

_KERNELS = ("linear", "rbf")


def svr_predict(model, X):
    r"""``model.predict(X)`` of a fitted ``SVR``: :math:`\sum_i \alpha_i k(x, x_i) + b`, vectorised.

    Parameters
    ----------
    model : sklearn.svm.SVR
        Fitted on dense data, ``kernel`` "linear" or "rbf" (``gamma`` as resolved by the
        fit, ``model._gamma``).
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    values : ndarray of shape (n_samples,)

    Raises
    ------
    ValueError
        For another estimator or kernel, or a model fitted on sparse data.
    """
    if not isinstance(model, SVR):
        raise ValueError(f"model must be a fitted sklearn.svm.SVR, got {type(model).__name__}.")
    check_is_fitted(model)
    if model.kernel not in _KERNELS:
        raise ValueError(f"kernel must be one of {_KERNELS}, got {model.kernel!r}.")
    if getattr(model, "_sparse", False):
        raise ValueError("Only models fitted on dense data are supported.")
    coefficients = np.asarray(model.dual_coef_)
    X = np.asarray(X, dtype=float)
    support = model.support_vectors_
    if model.kernel == "linear":
        values = X @ (coefficients[0] @ support)
    else:
        values = gram(X, support, kernel="rbf", gamma=model._gamma) @ coefficients[0]
    return values + model.intercept_[0]  # libsvm: sum - rho; intercept_ = -rho
