r"""Kernel functions behind one entry point, :func:`gram`.

Every estimator in :mod:`krepro` evaluates kernels through :func:`gram`, so that one set of
parameter names (scikit-learn's ``kernel``, ``gamma``, ``degree``, ``coef0``) means the same
thing everywhere.

Supported kernels
-----------------
``"linear"``
    :math:`k(x, y) = \langle x, y\rangle`.
``"poly"`` (alias ``"polynomial"``)
    :math:`k(x, y) = (\gamma\langle x, y\rangle + c_0)^d`.
``"rbf"``
    :math:`k(x, y) = \exp(-\gamma\lVert x - y\rVert^2)` (scikit-learn's convention; the
    oblivious-data paper's "RBF with :math:`\sigma = 1`" is
    :math:`\exp(-\lVert x-y\rVert^2/\sigma)`, i.e. ``gamma = 1``).
``"matern"``
    :math:`k(r) = \frac{2^{1-\nu}}{\Gamma(\nu)}(\sqrt{2\nu}\,r/\ell)^\nu
    K_\nu(\sqrt{2\nu}\,r/\ell)` for :math:`\nu \in \{1/2, 3/2, 5/2, 7/2\}`, evaluated with
    the closed forms (exponential times a polynomial) and parameters ``nu`` and
    ``length_scale``.
``"delta"``
    :math:`k(x, y) = 1\{x = y\}` (all coordinates equal), the kernel of a finite set; the
    points are labels of any hashable type, compared by :mod:`krepro.validation`'s rules
    (``1 == 1.0``, ``1 != "1"``, NaN is an error).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.metrics.pairwise import pairwise_kernels

from krepro.validation import GroupEncoder, check_sensitive_features

__all__ = ["KERNELS", "MATERN_ORDERS", "gram", "kernel_params"]

MATERN_ORDERS = (0.5, 1.5, 2.5, 3.5)
KERNELS = ("linear", "poly", "polynomial", "rbf", "matern", "delta")

# Parameters each kernel accepts; anything else is an error rather than silently ignored.
_ACCEPTED = {
    "linear": set(),
    "poly": {"gamma", "degree", "coef0"},
    "polynomial": {"gamma", "degree", "coef0"},
    "rbf": {"gamma"},
    "matern": {"nu", "length_scale"},
    "delta": set(),
}


def _as_2d(X, name):
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 1-d or 2-d array, got shape {X.shape}.")
    return X


def _delta(X, Y):
    r""":math:`1\{x = y\}` for labels of any type, compared as :mod:`krepro.validation` does.

    The rows of ``X`` are encoded once; a row of ``Y`` that is not among them matches nothing.
    Missing labels (NaN, None) are an error rather than a label unequal to everything.
    """
    encoder = GroupEncoder("X")
    codes_X = encoder.fit_transform(X)
    if Y is None:
        codes_Y = codes_X
    else:
        Y = check_sensitive_features(Y, name="Y")
        if Y.shape[1] != encoder.n_columns_:
            raise ValueError(
                f"X and Y must have the same number of features, got {encoder.n_columns_} "
                f"and {Y.shape[1]}."
            )
        codes_Y = encoder.transform(Y, unknown="ignore")
    return (codes_X[:, None] == codes_Y[None, :]).astype(float)


def _matern(distances, nu, length_scale):
    """Closed-form Matérn kernel for half-integer ``nu`` (Rasmussen & Williams eq. 4.16)."""
    if length_scale <= 0:
        raise ValueError(f"length_scale must be positive, got {length_scale!r}.")
    r = distances / length_scale
    if nu == 0.5:
        return np.exp(-r)
    if nu == 1.5:
        a = np.sqrt(3.0) * r
        return (1.0 + a) * np.exp(-a)
    if nu == 2.5:
        a = np.sqrt(5.0) * r
        return (1.0 + a + a**2 / 3.0) * np.exp(-a)
    if nu == 3.5:
        a = np.sqrt(7.0) * r
        return (1.0 + a + 2.0 * a**2 / 5.0 + a**3 / 15.0) * np.exp(-a)
    raise ValueError(f"Matérn order nu must be one of {MATERN_ORDERS}, got {nu!r}.")


def kernel_params(kernel, gamma=None, degree=3, coef0=1.0, kernel_params=None):
    """Collect the keyword parameters of ``kernel`` from scikit-learn style arguments.

    Estimators store ``gamma``, ``degree``, ``coef0`` and ``kernel_params`` separately (the
    scikit-learn convention); this helper keeps only those that ``kernel`` understands.
    """
    params = dict(kernel_params or {})
    if kernel in ("rbf", "poly", "polynomial") and gamma is not None:
        params.setdefault("gamma", gamma)
    if kernel in ("poly", "polynomial"):
        params.setdefault("degree", degree)
        params.setdefault("coef0", coef0)
    return params


def gram(X, Y=None, kernel="rbf", **params):
    r"""Kernel matrix :math:`K_{ij} = k(x_i, y_j)`.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features) or (n_samples_X,)
        First set of points; a 1-d array is one feature.
    Y : array-like of shape (n_samples_Y, n_features), default=None
        Second set of points; ``None`` means ``Y = X``.
    kernel : {"linear", "poly", "polynomial", "rbf", "matern", "delta"}, default="rbf"
        Kernel name (see the module docstring for the formulas).
    **params
        Kernel parameters: ``gamma`` (rbf, poly; ``None`` means ``1 / n_features`` as in
        scikit-learn), ``degree`` and ``coef0`` (poly), ``nu`` (default 1.5) and
        ``length_scale`` (default 1.0) for matern.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.kernels import gram
    >>> round(float(gram([[0.0]], [[np.sqrt(2.0)]], "matern", nu=3.5)[0, 0]), 6)
    0.328067
    """
    if kernel not in _ACCEPTED:
        raise ValueError(f"Unknown kernel {kernel!r}; expected one of {KERNELS}.")
    unknown = set(params) - _ACCEPTED[kernel]
    if unknown:
        raise ValueError(
            f"Kernel {kernel!r} does not take parameter(s) {sorted(unknown)}; "
            f"it accepts {sorted(_ACCEPTED[kernel]) or 'none'}."
        )
    if kernel == "delta":
        return _delta(X, Y)
    X = _as_2d(X, "X")
    Y = X if Y is None else _as_2d(Y, "Y")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X and Y must have the same number of features, got {X.shape[1]} and {Y.shape[1]}."
        )
    if kernel == "matern":
        # Direct differences: euclidean_distances' |x|^2 - 2<x,y> + |y|^2 expansion loses ~1e-8 at
        # coincident points, which the non-smooth nu = 1/2 kernel turns into a ~1e-8 error.
        distances = cdist(X, Y)
        return _matern(
            distances, float(params.get("nu", 1.5)), float(params.get("length_scale", 1.0))
        )
    metric = "poly" if kernel == "polynomial" else kernel
    return pairwise_kernels(X, Y, metric=metric, **params)
