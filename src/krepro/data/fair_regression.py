r"""Regression data with a continuous sensitive feature, for fair regression.

* :func:`gaussian_shift_sample` — synthetic data whose conditional law of X given S is
  Gaussian, so that the conditional mean embedding :math:`E[\varphi(X)\mid S=s]` of the RBF
  kernel is known in closed form (:func:`true_conditional_embedding`,
  :func:`true_conditional_embedding_inner`): the ground truth for the estimators of
  :math:`E[\varphi(X)\mid S]` (partition plug-in, Prop. 6 of the oblivious-data paper; CME).
* :func:`load_diabetes_age` — scikit-learn's bundled diabetes data (Efron et al. 2004, 442
  patients), target: disease progression after one year, S = age in years; the other nine
  baseline variables are the features.
* :func:`load_parkinsons_age` — UCI Parkinson's telemonitoring (Tsanas et al. 2010), target
  total (or motor) UPDRS, the 16 voice measures as features, S = age; age is a property of
  the subject (constant over a subject's recordings), so splits are by subject
  (:func:`krepro.data.parkinsons.subject_split`) and S takes at most 42 values.
* :func:`load_adult_age` — UCI Adult (Kohavi 1996) as a classification case with a
  continuous S: target 1{income > 50K}, S = age in years, the other 13 attributes as
  features (nominal ones one-hot).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from krepro.data.parkinsons import FEATURES, TARGETS, load_parkinsons

__all__ = [
    "SensitiveRegression",
    "gaussian_shift_sample",
    "load_adult_age",
    "load_diabetes_age",
    "load_parkinsons_age",
    "true_conditional_embedding",
    "true_conditional_embedding_inner",
]


@dataclass(frozen=True)
class SensitiveRegression:
    """Features ``X`` (n, d), target ``y`` (n,), continuous sensitive feature ``S`` (n,).

    ``groups`` holds the unit a split must keep together (Parkinson's: the subject), or None;
    ``feature_names`` names the columns of ``X``.
    """

    X: np.ndarray
    y: np.ndarray
    S: np.ndarray
    feature_names: tuple
    groups: np.ndarray | None = None

    def __len__(self):
        return len(self.y)


def _shift_vector(d, shift, shifted_axes):
    if not 0 <= shifted_axes <= d:
        raise ValueError(f"shifted_axes must lie in [0, d = {d}], got {shifted_axes}.")
    vector = np.zeros(d)
    vector[:shifted_axes] = shift
    return vector


def gaussian_shift_sample(
    rng, n, *, d=2, shift=1.5, shifted_axes=1, sd=1.0, s_effect=1.0, noise_sd=0.1
):
    r"""Synthetic regression data with a known :math:`E[\varphi(X)\mid S]`.

    .. math::

        S \sim U[0, 1],\quad X \mid S = s \sim N(s\,m,\ \sigma^2 I_d),\quad
        Y = \sin(2X_1) + \tfrac12 X_d + \beta S + \varepsilon,\quad
        \varepsilon \sim N(0, \sigma_\varepsilon^2),

    with :math:`m` = ``shift`` on the first ``shifted_axes`` axes and 0 elsewhere,
    :math:`\sigma` = ``sd``, :math:`\beta` = ``s_effect``. X depends on S only through
    the mean of the shifted axes, so for the RBF kernel the conditional mean embedding is
    :func:`true_conditional_embedding`.

    Parameters
    ----------
    rng : numpy.random.Generator
    n : int
    d : int >= 1, default=2
    shift : float, default=1.5
    shifted_axes : int in [0, d], default=1
    sd : float > 0, default=1.0
    s_effect : float, default=1.0
        Direct effect :math:`\beta` of S on Y.
    noise_sd : float >= 0, default=0.1

    Returns
    -------
    SensitiveRegression
    """
    if d < 1:
        raise ValueError(f"d must be at least 1, got {d}.")
    if not sd > 0:
        raise ValueError(f"sd must be > 0, got {sd}.")
    if noise_sd < 0:
        raise ValueError(f"noise_sd must be >= 0, got {noise_sd}.")
    mean = _shift_vector(d, shift, shifted_axes)
    S = rng.uniform(0.0, 1.0, n)
    X = S[:, None] * mean + sd * rng.standard_normal((n, d))
    y = np.sin(2.0 * X[:, 0]) + 0.5 * X[:, -1] + s_effect * S + noise_sd * rng.standard_normal(n)
    return SensitiveRegression(X=X, y=y, S=S, feature_names=tuple(f"x{j + 1}" for j in range(d)))


def true_conditional_embedding(points, s, *, gamma, d=2, shift=1.5, shifted_axes=1, sd=1.0):
    r""":math:`\langle E[\varphi(X)\mid S=s], \varphi(x)\rangle = E[k(X, x)\mid S=s]` of
    :func:`gaussian_shift_sample` for :math:`k(x, x') = \exp(-\gamma\lVert x-x'\rVert^2)`.

    For :math:`X \sim N(\mu, \sigma^2 I_d)` (a Gaussian integral),

    .. math::

        E\,k(X, x) = (1 + 2\gamma\sigma^2)^{-d/2}
            \exp\Bigl(-\frac{\gamma\lVert x - \mu\rVert^2}{1 + 2\gamma\sigma^2}\Bigr),
        \qquad \mu = s\,m .

    Parameters
    ----------
    points : array-like of shape (p, d)
    s : array-like of shape (q,)
    gamma : float > 0
    d, shift, shifted_axes, sd
        As :func:`gaussian_shift_sample`.

    Returns
    -------
    ndarray of shape (q, p)
    """
    points = np.asarray(points, dtype=float).reshape(-1, d)
    s = np.asarray(s, dtype=float).ravel()
    centres = s[:, None] * _shift_vector(d, shift, shifted_axes)
    factor = 1.0 + 2.0 * gamma * sd**2
    squared = np.sum((centres[:, None, :] - points[None, :, :]) ** 2, axis=2)
    return factor ** (-d / 2) * np.exp(-gamma * squared / factor)


def true_conditional_embedding_inner(s_a, s_b, *, gamma, d=2, shift=1.5, shifted_axes=1, sd=1.0):
    r""":math:`\langle E[\varphi(X)\mid S=s], E[\varphi(X)\mid S=s']\rangle` of
    :func:`gaussian_shift_sample` for the RBF kernel.

    With :math:`X, X'` independent, :math:`X - X' \sim N((s - s')m, 2\sigma^2 I_d)`:
    :math:`(1 + 4\gamma\sigma^2)^{-d/2}\exp(-\gamma (s-s')^2\lVert m\rVert^2 /
    (1 + 4\gamma\sigma^2))`.

    Returns
    -------
    ndarray of shape (len(s_a), len(s_b))
    """
    s_a = np.asarray(s_a, dtype=float).ravel()
    s_b = np.asarray(s_b, dtype=float).ravel()
    norm_sq = float(np.sum(_shift_vector(d, shift, shifted_axes) ** 2))
    factor = 1.0 + 4.0 * gamma * sd**2
    return factor ** (-d / 2) * np.exp(
        -gamma * norm_sq * (s_a[:, None] - s_b[None, :]) ** 2 / factor
    )


def load_diabetes_age():
    """scikit-learn's diabetes data with S = age (years) and the nine other baseline
    variables as features (unscaled: sex coded 1/2, BMI, blood pressure, six serum values).

    Returns
    -------
    SensitiveRegression
        442 rows, ``X`` of shape (442, 9), ``y`` the disease progression one year after
        baseline, ``S`` the age in years (19–79).
    """
    from sklearn.datasets import load_diabetes

    bunch = load_diabetes(scaled=False, as_frame=True)
    frame = bunch.data
    features = [c for c in frame.columns if c != "age"]
    return SensitiveRegression(
        X=frame[features].to_numpy(dtype=float),
        y=bunch.target.to_numpy(dtype=float),
        S=frame["age"].to_numpy(dtype=float),
        feature_names=tuple(features),
    )


def load_parkinsons_age(path, *, target="total", verify=True):
    """Parkinson's telemonitoring with S = age: 16 voice features, UPDRS target, subjects.

    Parameters
    ----------
    path : path-like
        ``parkinsons_updrs.data`` (its SHA-256 is checked, as
        :func:`krepro.data.parkinsons.load_parkinsons`).
    target : {"total", "motor"}, default="total"
    verify : bool, default=True

    Returns
    -------
    SensitiveRegression
        5,875 recordings, ``groups`` the subject of each (split by subject: age is constant
        within a subject).
    """
    if target not in TARGETS:
        raise ValueError(f"target must be one of {sorted(TARGETS)}, got {target!r}.")
    data = load_parkinsons(path, verify=verify)
    frame = pd.read_csv(path, usecols=["subject#", "age"])
    if not np.array_equal(frame["subject#"].to_numpy(dtype=int), data.subject):
        raise ValueError(f"{path}: the age column is not aligned with the subjects.")
    return SensitiveRegression(
        X=data.X,
        y=data.targets[target],
        S=frame["age"].to_numpy(dtype=float),
        feature_names=FEATURES,
        groups=data.subject,
    )


def load_adult_age(path, *, verify=True):
    """UCI Adult's ``adult.data`` with S = age: income > 50K as a 0/1 target.

    Rows with a missing value (``?``) are dropped, as in :mod:`krepro.data.adult`. The
    features are the four numeric attributes other than age (``fnlwgt``, ``education-num``,
    ``capital-gain``, ``capital-loss``, ``hours-per-week``) and the nominal ones one-hot
    encoded with the categories of the whole file (gender among them: S here is age).

    Parameters
    ----------
    path : path-like
        ``adult.data`` (its SHA-256 is checked unless ``verify`` is False).
    verify : bool, default=True

    Returns
    -------
    SensitiveRegression
        30,162 rows; ``y`` in {0, 1}; ``S`` the age in years (17–90).
    """
    from krepro.data.adult import COLUMNS, NOMINAL, read_adult
    from krepro.data.download import registered_sha256, verify_sha256

    if verify:
        verify_sha256(path, registered_sha256("adult", "adult.data"))
    frame = read_adult(path).dropna().reset_index(drop=True)
    numeric = [c for c in COLUMNS[:-1] if c not in NOMINAL and c != "age"]
    encoded = pd.get_dummies(frame[list(NOMINAL)], dtype=float)
    X = np.hstack([frame[numeric].to_numpy(dtype=float), encoded.to_numpy()])
    return SensitiveRegression(
        X=X,
        y=(frame["income"].to_numpy() == ">50K").astype(float),
        S=frame["age"].to_numpy(dtype=float),
        feature_names=(*numeric, *encoded.columns),
    )
