"""DCM, FastDCM, DICA and COIR (krepro.dcm): exactness against naive N×N oracles.

The oracles here build the paper's matrices explicitly (eq. (12), eqs. (16)–(21), DICA's Q
matrix entry by entry) on problems small and well-conditioned enough (N ≤ 120, RBF γ = 2 in
3-d, no kernel-PCA truncation) that a dense non-symmetric eigensolver is accurate to ~1e-9;
the 1e-6 tolerances leave three orders of magnitude for round-off.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn
from scipy import linalg
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

from krepro.dcm import COIR, DCM, DICA, FastDCM, fit_shared
from krepro.dcm.core import (
    ExactFeatureMap,
    between_domain_covariance,
    fastdcm_paper,
    informative_top,
    output_factor,
    smoother_gram,
)
from krepro.kernels import DegenerateKernelWarning, gram

GAMMA = 2.0
EPS = 1e-3
TIGHT = {"rank_tol": 1e-14, "pinv_tol": 1e-14}


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense problems: BLAS threads only add contention on a shared box."""
    with threadpool_limits(1):
        yield


def problem(n=80, seed=0, n_classes=4, n_domains=3):
    """Small multi-class, multi-domain problem; 4 classes give distinct top eigenvalues."""
    rng = np.random.default_rng(seed)
    domains = np.arange(n) % n_domains
    X = rng.normal(size=(n, 3)) + 0.5 * domains[:, None]
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n), [-1.0, 0.0, 1.0])
    assert len(np.unique(y)) == n_classes
    X_test = rng.normal(size=(15, 3))
    return X, y, domains, X_test


def centre(K):
    n = K.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    return H @ K @ H


def centre_cross(Kt, K):
    """Centre test-vs-train kernel rows with the training means."""
    row = K.mean(axis=0)
    return Kt - row[None, :] - Kt.mean(axis=1, keepdims=True) + row.mean()


def delta(v):
    return (np.asarray(v)[:, None] == np.asarray(v)[None, :]).astype(float)


def direct_eq12(X, y, domains, X_test, *, center, rho, m):
    """Eq. (12) as an N×N generalised eigenproblem, solved with a dense QZ (the oracle)."""
    n = X.shape[0]
    Kx, Ky, Kd = gram(X, kernel="rbf", gamma=GAMMA), delta(y), delta(domains)
    Kt = gram(X_test, X, kernel="rbf", gamma=GAMMA)
    if center:
        Kt = centre_cross(Kt, Kx)
        Kx, Ky, Kd = centre(Kx), centre(Ky), centre(Kd)
    I = np.eye(n)
    S_y = Ky @ linalg.inv(Ky + n * EPS * I)
    S_d = Kd @ linalg.inv(Kd + n * EPS * I)
    L = S_y @ Kx @ Kx + Kx + rho * I
    R = S_d @ Kx @ Kx + Kx + rho * I
    values, vectors = linalg.eig(L, R)
    finite = np.isfinite(values) & (np.abs(values.imag) < 1e-8)
    values, vectors = values[finite].real, vectors[:, finite].real
    order = np.argsort(values)[::-1][:m]
    return values[order], Kt @ vectors[:, order]


def assert_same_directions(Z1, Z2):
    """Columns equal up to sign and scale: |correlation| = 1."""
    for k in range(Z1.shape[1]):
        corr = np.corrcoef(Z1[:, k], Z2[:, k])[0, 1]
        assert abs(corr) == pytest.approx(1.0, abs=1e-6), (k, corr)


# ------------------------------------------------------------------ exact DCM = eq. (12)


@pytest.mark.parametrize(("center", "regularize"), [(False, False), (True, True), (False, True)])
def test_reduced_form_equals_direct_eq12(center, regularize):
    X, y, d, X_test = problem()
    m = 3
    model = DCM(m, gamma=GAMMA, epsilon=EPS, center=center, regularize=regularize, **TIGHT)
    model.fit(X, y, domains=d)
    rho = X.shape[0] * EPS if regularize else 0.0
    values, Z_direct = direct_eq12(X, y, d, X_test, center=center, rho=rho, m=m)
    np.testing.assert_allclose(model.eigenvalues_, values, rtol=1e-6)
    assert model.eigenvalues_[0] > model.eigenvalues_[1] + 1e-3  # distinct: directions defined
    assert_same_directions(model.transform(X_test), Z_direct)


def test_scale_n_is_the_one_over_n_of_eq10():
    X, y, d, _ = problem()
    n = X.shape[0]
    model = DCM(2, gamma=GAMMA, epsilon=EPS, center=False, regularize=False, scale_n=True, **TIGHT)
    model.fit(X, y, domains=d)
    Kx, Ky, Kd = gram(X, kernel="rbf", gamma=GAMMA), delta(y), delta(d)
    I = np.eye(n)
    S_y = Ky @ linalg.inv(Ky + n * EPS * I) / n
    S_d = Kd @ linalg.inv(Kd + n * EPS * I) / n
    values = linalg.eigvals(S_y @ Kx @ Kx + Kx, S_d @ Kx @ Kx + Kx).real
    np.testing.assert_allclose(model.eigenvalues_, np.sort(values)[::-1][:2], rtol=1e-6)


# ------------------------------------------------------------------ FastDCM


def nystroem_blocks(values, landmarks, params, center):
    values = values[:, None] if values.ndim == 1 else values
    C = gram(values, values[landmarks], **params)
    W = C[landmarks]
    return (C - C.mean(axis=0) if center else C), W


@pytest.mark.parametrize("center", [True, False])
def test_paper_fastdcm_without_omega_ridge_equals_reduced_form(center):
    X, y, d, X_test = problem(n=120)
    m, M = 3, 12  # 12 landmarks in 3 domains: the delta block W_d is singular
    reduced = FastDCM(
        m,
        gamma=GAMMA,
        epsilon=EPS,
        n_landmarks=M,
        center=center,
        regularize=False,
        random_state=3,
        **TIGHT,
    ).fit(X, y, domains=d)
    L = reduced.landmarks_
    assert np.linalg.matrix_rank(delta(d[L])) < M
    Cx, Wx = nystroem_blocks(X, L, {"kernel": "rbf", "gamma": GAMMA}, center)
    Cy, Wy = nystroem_blocks(y.astype(float), L, {"kernel": "delta"}, center)
    Cd, Wd = nystroem_blocks(d.astype(float), L, {"kernel": "delta"}, center)
    values, projection = fastdcm_paper(
        Cx, Wx, Cy, Wy, Cd, Wd, EPS, m, omega_ridge=False, pinv_tol=1e-14
    )
    np.testing.assert_allclose(values, reduced.eigenvalues_, rtol=1e-6)
    Ct = gram(X_test, X[L], kernel="rbf", gamma=GAMMA)
    Ct = Ct - gram(X, X[L], kernel="rbf", gamma=GAMMA).mean(axis=0) if center else Ct
    assert_same_directions(Ct @ projection, reduced.transform(X_test))
    # As printed (with +NεI inside Ω) the spectrum moves only slightly (note §3.2: 1-3%).
    paper = FastDCM(
        m,
        gamma=GAMMA,
        epsilon=EPS,
        n_landmarks=M,
        center=center,
        solver="paper",
        random_state=3,
        **TIGHT,
    ).fit(X, y, domains=d)
    np.testing.assert_array_equal(paper.landmarks_, L)
    np.testing.assert_allclose(paper.eigenvalues_[0], values[0], rtol=0.1)


@pytest.mark.parametrize(
    ("cls", "kwargs"),
    [
        (DCM, {"regularize": True}),
        (DCM, {"regularize": False}),
        (DCM, {"target_kernel": "rbf", "target_gamma": 0.5}),
        (DICA, {}),
        (DICA, {"supervised": False}),
        (COIR, {}),
        (COIR, {"target_kernel": "rbf", "target_gamma": 0.5}),
    ],
)
def test_nystroem_with_all_points_as_landmarks_equals_exact(cls, kwargs):
    X, y, d, X_test = problem(n=60)
    y_fit = y if kwargs.get("target_kernel") != "rbf" else X[:, 0] + X[:, 1]
    common = {"gamma": GAMMA, "epsilon": EPS, **TIGHT, **kwargs}
    exact = cls(2, approximation="exact", **common).fit(X, y_fit, domains=d)
    fast = cls(2, approximation="nystroem", n_landmarks=len(X), random_state=0, **common)
    fast.fit(X, y_fit, domains=d)
    np.testing.assert_allclose(fast.eigenvalues_, exact.eigenvalues_, rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(fast.transform(X_test), exact.transform(X_test), atol=1e-5)


# ------------------------------------------------------------------ closed forms


@pytest.mark.parametrize("center", [True, False])
def test_delta_kernel_closed_form_equals_n_by_n_solve(center):
    X, y, d, _ = problem()
    n = X.shape[0]
    fmap = ExactFeatureMap(X, {"kernel": "rbf", "gamma": GAMMA}, center=center, rank_tol=1e-14)
    for labels in (y, d):
        K = centre(delta(labels)) if center else delta(labels)
        S = K @ linalg.inv(K + n * EPS * np.eye(n))
        naive = fmap.F.T @ S @ fmap.F
        closed = smoother_gram(fmap.F, output_factor(labels, "delta", center=center), n * EPS)
        np.testing.assert_allclose(closed, naive, atol=1e-9 * np.abs(naive).max())
    # RBF outputs: one Cholesky solve, same matrix.
    target = X[:, 0] ** 2
    K = gram(target[:, None], kernel="rbf", gamma=0.5)
    K = centre(K) if center else K
    naive = fmap.F.T @ K @ linalg.inv(K + n * EPS * np.eye(n)) @ fmap.F
    closed = smoother_gram(fmap.F, output_factor(target, "rbf", 0.5, center=center), n * EPS)
    np.testing.assert_allclose(closed, naive, atol=1e-8 * np.abs(naive).max())


@pytest.mark.parametrize("center", [True, False])
def test_training_features_are_the_factor(center):
    # f(X_train) = K~ U L^(-1/2) = U L^(1/2) = F: returned without a kernel block; equal to
    # the kernel path (computed here) up to the eigenvectors' residuals.
    X, _, _, X_test = problem()
    fmap = ExactFeatureMap(X, {"kernel": "rbf", "gamma": GAMMA}, center=center, rank_tol=1e-8)
    K = gram(X, kernel="rbf", gamma=GAMMA)
    K = centre(K) if center else K
    kernel_path = K @ fmap.projector
    got = fmap.features(X.copy())  # by content, not identity
    assert got is fmap.F and not got.flags.writeable
    np.testing.assert_allclose(got, kernel_path, atol=1e-8 * np.abs(kernel_path).max())
    assert fmap.features(X_test).shape == (len(X_test), fmap.rank)  # others: kernel path


def dica_q(domains):
    """DICA's Q (``L`` in dica.m) entry by entry, as in Muandet et al. 2013."""
    labels = np.unique(domains)
    G = len(labels)
    size = {g: int(np.sum(domains == g)) for g in labels}
    n = len(domains)
    Q = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            gi, gj = domains[i], domains[j]
            if gi == gj:
                Q[i, j] = 1 / (G * size[gi] ** 2) - 1 / (G**2 * size[gi] ** 2)
            else:
                Q[i, j] = -1 / (G**2 * size[gi] * size[gj])
    return Q


def test_dica_trace_kq_is_between_domain_variance_of_mean_embeddings():
    X, _, _, _ = problem(n=50)
    domains = np.repeat([0, 1, 2, 3], [5, 10, 15, 20])  # unequal domain sizes
    K = gram(X, kernel="rbf", gamma=GAMMA)
    labels = np.unique(domains)
    # <mu_g, mu_h> = mean of the (g, h) kernel block.
    inner = np.array(
        [[K[np.ix_(domains == g, domains == h)].mean() for h in labels] for g in labels]
    )
    G = len(labels)
    variance = np.trace(inner) / G - inner.sum() / G**2
    assert np.trace(K @ dica_q(domains)) == pytest.approx(variance, rel=1e-10)
    fmap = ExactFeatureMap(X, {"kernel": "rbf", "gamma": GAMMA}, center=True, rank_tol=1e-14)
    T_q = between_domain_covariance(fmap.F, domains)
    np.testing.assert_allclose(T_q, fmap.F.T @ dica_q(domains) @ fmap.F, atol=1e-12)
    assert np.trace(T_q) == pytest.approx(variance, rel=1e-8)


def test_dica_reduced_form_equals_dica_m():
    X, y, d, X_test = problem(n=60)
    n = X.shape[0]
    lam = n * EPS
    model = DICA(2, gamma=GAMMA, epsilon=EPS, **TIGHT).fit(X, y, domains=d)
    Kx, Ky = centre(gram(X, kernel="rbf", gamma=GAMMA)), centre(delta(y))
    Kt = centre_cross(
        gram(X_test, X, kernel="rbf", gamma=GAMMA), gram(X, kernel="rbf", gamma=GAMMA)
    )
    I = np.eye(n)
    A = linalg.solve(
        Kx @ dica_q(d) @ Kx + Kx + lam * I, Ky @ linalg.solve(Ky + n * EPS * I, Kx @ Kx)
    )
    values, vectors = linalg.eig(A / n)
    order = np.argsort(values.real)[::-1][:2]
    np.testing.assert_allclose(model.eigenvalues_, values.real[order], rtol=1e-6)
    assert_same_directions(model.transform(X_test), Kt @ vectors[:, order].real)


def test_coir_reduced_form_equals_n_by_n():
    X, y, d, X_test = problem(n=60)
    n = X.shape[0]
    model = COIR(2, gamma=GAMMA, epsilon=EPS, **TIGHT).fit(X, y, domains=d)
    K = gram(X, kernel="rbf", gamma=GAMMA)
    Kx, Ky = centre(K), centre(delta(y))
    I = np.eye(n)
    S_y = Ky @ linalg.inv(Ky + n * EPS * I)
    values, vectors = linalg.eig(linalg.solve(Kx + n * EPS * I, S_y @ Kx))
    order = np.argsort(values.real)[::-1][:2]
    np.testing.assert_allclose(model.eigenvalues_, values.real[order], rtol=1e-6)
    Kt = centre_cross(gram(X_test, X, kernel="rbf", gamma=GAMMA), K)
    assert_same_directions(model.transform(X_test), Kt @ vectors[:, order].real)


# ------------------------------------------------------------------ behaviour


def test_transform_centres_with_training_means_not_batch_means():
    X, y, d, X_test = problem()
    for model in (DCM(gamma=GAMMA), FastDCM(gamma=GAMMA, n_landmarks=10, random_state=0)):
        model.fit(X, y, domains=d)
        batch = model.transform(X_test)
        one_by_one = np.vstack([model.transform(X_test[i : i + 1]) for i in range(len(X_test))])
        np.testing.assert_allclose(one_by_one, batch, atol=1e-12)


def test_singular_landmark_blocks_give_finite_projections():
    X, y, d, X_test = problem(n=100, n_domains=2)
    model = FastDCM(2, gamma=GAMMA, n_landmarks=30, random_state=1)  # W_d, W_y rank 2 and 4
    Z = model.fit(X, y, domains=d).transform(X_test)
    assert np.all(np.isfinite(Z))
    paper = FastDCM(2, gamma=GAMMA, n_landmarks=30, random_state=1, solver="paper")
    assert np.all(np.isfinite(paper.fit(X, y, domains=d).transform(X_test)))


def test_domains_none_means_one_domain():
    X, y, _, X_test = problem()
    none = DCM(gamma=GAMMA).fit(X, y)
    one = DCM(gamma=GAMMA).fit(X, y, domains=np.zeros(len(X)))
    assert none.n_domains_ == 1
    np.testing.assert_allclose(none.transform(X_test), one.transform(X_test))


def test_pipeline_routes_domains_by_fit_params_and_by_metadata_routing():
    X, y, d, X_test = problem()
    y2 = (y >= 2).astype(int)
    reference = DCM(gamma=GAMMA).fit(X, y2, domains=d)
    pipe = make_pipeline(DCM(gamma=GAMMA), StandardScaler(), SVC(kernel="linear"))
    pipe.fit(X, y2, dcm__domains=d)
    np.testing.assert_allclose(pipe[0].transform(X_test), reference.transform(X_test))
    with sklearn.config_context(enable_metadata_routing=True):
        routed = make_pipeline(
            DCM(gamma=GAMMA).set_fit_request(domains=True),
            StandardScaler(),
            SVC(kernel="linear"),
        )
        routed.fit(X, y2, domains=d)
        np.testing.assert_allclose(routed[0].transform(X_test), reference.transform(X_test))
        assert routed.predict(X_test).shape == (len(X_test),)


def test_fit_shared_equals_separate_fits_and_shares_the_feature_map():
    X, y, d, X_test = problem()
    models = [
        DCM(gamma=GAMMA),
        DCM(gamma=GAMMA, regularize=False),
        DICA(gamma=GAMMA),
        COIR(gamma=GAMMA),
    ]
    fitted = fit_shared(models, X, y, domains=d)
    assert all(cpu >= 0 and wall >= 0 for _, cpu, wall in fitted)
    assert fitted[0][0].feature_map_ is fitted[3][0].feature_map_
    for model, _, _ in fitted:
        alone = type(model)(**model.get_params()).fit(X, y, domains=d)
        np.testing.assert_allclose(model.transform(X_test), alone.transform(X_test))


def test_dcm_projection_separates_classes_better_than_domains():
    """Sanity: with a domain shift along x_3, DCM's top direction tracks y, not the domain."""
    rng = np.random.default_rng(5)
    n = 300
    d = rng.integers(0, 5, n)
    X = rng.normal(size=(n, 3))
    X[:, 2] += 2.0 * d
    y = (X[:, 0] > 0).astype(int)
    z = DCM(1, gamma=0.3).fit(X, y, domains=d).transform(X)[:, 0]
    assert abs(np.corrcoef(z, y)[0, 1]) > 0.6
    domain_means = np.array([z[d == g].mean() for g in range(5)])
    assert domain_means.std() < 0.3


def test_invalid_parameters_are_named():
    X, y, d, _ = problem()
    with pytest.raises(ValueError, match="approximation"):
        DCM(approximation="svd").fit(X, y, domains=d)
    with pytest.raises(ValueError, match="nystroem"):
        DCM(solver="paper").fit(X, y, domains=d)
    with pytest.raises(ValueError, match="domains"):
        DCM().fit(X, y, domains=d[:-1])


# Once per class; a parameter variant only where it takes another code path: FastDCM's
# solver="paper" solves the Nyström problem as the paper prints it (another solve function).
# DCM(regularize=False) and DICA(supervised=False) change a matrix of the same pencil (same
# input handling, fit and transform): their numerics are tested below, not their API again.
@parametrize_with_checks(
    [
        DCM(),
        FastDCM(random_state=0),
        FastDCM(solver="paper", random_state=0),
        DICA(),
        COIR(),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------------------ informative rank, determinism


def binary_domains_problem(n_domains=7, size=90, dim=10, seed=4):
    """Table-3-like data: binary labels, 7 domains with different covariances."""
    rng = np.random.default_rng(seed)
    domains = np.repeat(np.arange(n_domains), size)
    scales = rng.uniform(0.5, 2.0, size=(n_domains, dim))
    X = rng.normal(size=(n_domains * size, dim)) * scales[domains]
    b = rng.normal(size=dim)
    y = np.where(X @ b + rng.normal(size=len(X)) >= 0, 1, -1)
    return X, y, domains, rng.normal(size=(40, dim))


DETERMINISM_MODELS = [
    pytest.param(lambda: DCM(2, gamma=0.1), id="DCM-centred"),
    pytest.param(lambda: DCM(2, gamma=0.1, center=False), id="DCM-uncentred"),
    pytest.param(lambda: DCM(2, gamma=0.1, regularize=False), id="DCM-eq12"),
    pytest.param(lambda: FastDCM(2, gamma=0.1, n_landmarks=60, random_state=0), id="FastDCM"),
    pytest.param(
        lambda: FastDCM(2, gamma=0.1, n_landmarks=60, random_state=0, solver="paper"),
        id="FastDCM-paper",
    ),
    pytest.param(lambda: COIR(2, gamma=0.1), id="COIR-centred"),
    pytest.param(lambda: COIR(2, gamma=0.1, center=False), id="COIR-uncentred"),
    pytest.param(lambda: DICA(2, gamma=0.1), id="DICA"),
]


def _fit_transform(factory, X, y, d, X_test):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = factory().fit(X, y, domains=d)
    return model, model.transform(X_test)


@pytest.mark.parametrize(
    ("center", "n_informative"), [(True, 1), (False, 2)], ids=["centred", "uncentred"]
)
def test_binary_labels_keep_only_the_informative_rank(center, n_informative):
    """Centred binary delta kernel: rank(T_y) = 1, so one DCM/COIR component (2 uncentred).

    Asking for more warns; the eigenvalue after the kept ones belongs to the degenerate
    cluster (at 1 for DCM, 0 for COIR) and is not returned.
    """
    X, y, d, _ = binary_domains_problem()
    for model in (DCM(3, gamma=0.1, center=center), COIR(3, gamma=0.1, center=center)):
        with pytest.warns(UserWarning, match="non-degenerate"):
            model.fit(X, y, domains=d)
        assert model.n_components_ == n_informative
        assert model.components_.shape[1] == n_informative
    quiet = DCM(n_informative, gamma=0.1, center=center)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        quiet.fit(X, y, domains=d)


def test_informative_top_stops_at_the_first_degenerate_eigenvalue():
    vectors = np.eye(6)
    values = np.array([1.0, 4.0, 1.0 + 1e-13, 0.5, 1.0, 2.5])
    kept, V = informative_top(values, vectors, 5)
    np.testing.assert_array_equal(kept, [4.0, 2.5])
    np.testing.assert_array_equal(V, vectors[:, [1, 5]])
    # A cluster at the top: the top pair is returned (the estimator warns).
    kept, _ = informative_top(np.array([2.0, 2.0, 1.0]), np.eye(3), 2)
    assert len(kept) == 1
    kept, _ = informative_top(np.array([3.0, 2.0, 1.0]), np.eye(3), 2)
    np.testing.assert_array_equal(kept, [3.0, 2.0])


@pytest.mark.parametrize("factory", DETERMINISM_MODELS)
def test_result_does_not_depend_on_memory_layout(factory):
    X, y, d, X_test = binary_domains_problem()
    model, reference = _fit_transform(factory, X, y, d, X_test)
    wide = np.zeros((X.shape[0], 2 * X.shape[1]))
    wide[:, ::2] = X
    for variant in (np.asfortranarray(X), wide[:, ::2], X[::-1][::-1]):
        other, Z = _fit_transform(factory, variant, y, d, np.asfortranarray(X_test))
        assert other.n_components_ == model.n_components_
        np.testing.assert_allclose(Z, reference, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("factory", DETERMINISM_MODELS)
def test_result_does_not_depend_on_dtype_beyond_float32_rounding(factory):
    X, y, d, X_test = binary_domains_problem()
    X32, X_test32 = X.astype(np.float32), X_test.astype(np.float32)
    _, Z32 = _fit_transform(factory, X32, y, d, X_test32)
    # float32 input is its exact float64 values: identical arithmetic.
    _, Z64 = _fit_transform(factory, X32.astype(np.float64), y, d, X_test32.astype(np.float64))
    np.testing.assert_array_equal(Z32, Z64)
    # Against the unrounded data: differences of the order of float32 rounding (~6e-8
    # relative), amplified by the conditioning of the eigenproblem.
    _, Z = _fit_transform(factory, X, y, d, X_test)
    assert Z32.shape == Z.shape
    np.testing.assert_allclose(Z32, Z, atol=1e-3 * np.abs(Z).max())


@pytest.mark.parametrize("factory", DETERMINISM_MODELS)
def test_result_does_not_depend_on_the_number_of_blas_threads(factory):
    X, y, d, X_test = binary_domains_problem()
    results = []
    for threads in (1, 2):
        with threadpool_limits(threads):
            results.append(_fit_transform(factory, X, y, d, X_test))
    (one, Z1), (two, Z2) = results
    assert one.n_components_ == two.n_components_
    np.testing.assert_allclose(Z1, Z2, rtol=1e-7, atol=1e-7)


def test_sign_is_deterministic_largest_training_projection_positive():
    X, y, d, _ = binary_domains_problem()
    for model in (DCM(1, gamma=0.1), COIR(1, gamma=0.1), DICA(1, gamma=0.1)):
        Z = model.fit(X, y, domains=d).transform(X)
        assert Z[np.argmax(np.abs(Z[:, 0])), 0] > 0
        flipped = type(model)(**model.get_params()).fit(X, -y, domains=d).transform(X)
        np.testing.assert_allclose(flipped, Z, atol=1e-8)


# ------------------------------------------------------------ low-rank smoother factors


def _low_rank_problem(r=60, k_y=3, k_d=5, seed=21):
    rng = np.random.default_rng(seed)
    a_diag = np.sort(rng.uniform(0.5, 20.0, r))[::-1]
    B_y, B_d = rng.normal(size=(r, k_y)), 0.7 * rng.normal(size=(r, k_d))
    return a_diag, B_y, B_d


def _same_columns_up_to_sign(actual, expected, atol):
    signs = np.sign(np.sum(actual * expected, axis=0))
    np.testing.assert_allclose(actual * signs, expected, atol=atol)


@pytest.mark.parametrize(("a", "rho"), [(1.0, 0.0), (1 / 150, 0.3)])
def test_dcm_solve_on_the_factors_span_equals_the_dense_pencil(a, rho):
    from krepro.dcm.core import dcm_solve

    a_diag, B_y, B_d = _low_rank_problem()
    T_y, T_d = B_y @ B_y.T, B_d @ B_d.T
    dense = dcm_solve(a_diag, T_y, T_d, 3, a=a, rho=rho)
    low = dcm_solve(a_diag, T_y, T_d, 3, a=a, rho=rho, factors=(B_y, B_d))
    np.testing.assert_allclose(low[0], dense[0], rtol=1e-10)
    _same_columns_up_to_sign(low[1], dense[1], atol=1e-10 * np.abs(dense[1]).max())
    # Other factors give other pairs: the comparison can fail.
    other = dcm_solve(a_diag, T_y, T_d, 3, a=a, rho=rho, factors=(B_y, 2 * B_d))
    assert np.abs(other[0] - dense[0]).max() > 1e-3


def test_coir_and_dica_on_the_factor_equal_the_dense_solves():
    from krepro.dcm.core import coir_solve, dica_solve

    a_diag, B_y, B_d = _low_rank_problem(seed=22)
    T_y, T_q = B_y @ B_y.T, B_d @ B_d.T
    dense = coir_solve(a_diag, T_y, 2, 0.4)
    low = coir_solve(a_diag, T_y, 2, 0.4, factor=B_y)
    np.testing.assert_allclose(low[0], dense[0], rtol=1e-10)
    _same_columns_up_to_sign(low[1], dense[1], atol=1e-10 * np.abs(dense[1]).max())
    dense = dica_solve(a_diag, T_y, T_q, 2, 0.4, 150)
    low = dica_solve(a_diag, T_y, T_q, 2, 0.4, 150, factor=B_y)
    np.testing.assert_allclose(low[0], dense[0], rtol=1e-10)
    _same_columns_up_to_sign(low[1], dense[1], atol=1e-10 * np.abs(dense[1]).max())


def test_low_rank_path_falls_back_to_the_dense_pencil_for_a_top_cluster():
    # T_y = 0 and T_d ≠ 0: every informative eigenvalue is below the cluster at 1, which
    # then comes first; its basis is the dense solver's choice, so the dense path is kept.
    from krepro.dcm.core import _dcm_low_rank

    a_diag, B_y, B_d = _low_rank_problem(seed=23)
    assert _dcm_low_rank(a_diag, 0.0 * B_y, B_d, 2, 1.0, 0.0) is None
    assert _dcm_low_rank(a_diag, B_y, B_d, 2, 1.0, 0.0) is not None


@pytest.mark.parametrize("factory", [DCM, COIR, DICA])
def test_estimators_on_low_rank_outputs_equal_the_dense_pencils(factory, monkeypatch):
    import krepro.dcm.base as dcm_base

    X, y, d, X_test = binary_domains_problem()
    _, low = _fit_transform(lambda: factory(1, gamma=0.1), X, y, d, X_test)
    monkeypatch.setattr(dcm_base, "smoother_factor", lambda *args: None)
    _, dense = _fit_transform(lambda: factory(1, gamma=0.1), X, y, d, X_test)
    np.testing.assert_allclose(low, dense, atol=1e-8 * np.abs(dense).max())


# --------------------------------------------------------------------------- extreme scales


def _extreme_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    return X, np.where(rng.random(40) > 0.5, 1, -1), rng.integers(0, 2, 40)


@pytest.mark.parametrize("estimator", [DCM, DICA, COIR])
@pytest.mark.parametrize(("scale", "gamma"), [(1.0, 1.7e308), (1e160, 1.0), (1e300, 1e-300)])
def test_huge_gamma_or_scale_fits_a_finite_projection(estimator, scale, gamma):
    # Reproducer: DCM/DICA/COIR(gamma=1.7e308).fit raised "LinAlgError: sterf ... did not
    # converge" from NaN in the Gram matrix (2 gamma overflowed). K is now the identity
    # (every distinct pair at kernel value 0), with a DegenerateKernelWarning.
    X, y, domains = _extreme_data()
    X = X * scale
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = estimator(gamma=gamma).fit(X, y, domains=domains)
        Z = model.transform(X)
    assert np.isfinite(Z).all() and np.isfinite(model.eigenvalues_).all()
    assert DegenerateKernelWarning in {type(w.message) for w in caught}
    assert not any(issubclass(type(w.message), RuntimeWarning) for w in caught)


def test_constant_gram_from_a_tiny_gamma_is_an_error_that_says_so():
    X, y, domains = _extreme_data()
    with (
        pytest.warns(DegenerateKernelWarning, match="all ones"),
        pytest.raises(ValueError, match="gamma is so small"),
    ):
        DCM(gamma=1e-300).fit(X, y, domains=domains)
    with (
        pytest.warns(DegenerateKernelWarning, match="all ones"),
        pytest.raises(ValueError, match="gamma is so small"),
    ):
        FastDCM(gamma=1e-300, n_landmarks=10, random_state=0).fit(X, y, domains=domains)


def test_fastdcm_at_extreme_scales_is_finite():
    # Before: "array must not contain infs or NaNs" from the landmark block's eigh.
    X, y, domains = _extreme_data()
    with pytest.warns(DegenerateKernelWarning), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "FastDCM: n_components", UserWarning)
        model = FastDCM(gamma=1.0, n_landmarks=10, random_state=0).fit(
            X * 1e160, y, domains=domains
        )
    assert np.isfinite(model.transform(X * 1e160)).all()


def _binary_domains(seed=0, n=150, n_domains=3):
    rng = np.random.default_rng(seed)
    domains = np.arange(n) % n_domains
    X = rng.normal(size=(n, 3)) * (1.0 + 0.3 * domains[:, None])  # domains differ in spread
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    return X, y, domains


def _one_direction(estimators, X, y, domains):
    """Fit COIR, DICA, DCM sharing one feature map; their single informative projections."""
    import warnings

    from krepro.dcm import fit_shared

    cache = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # one informative component, expected
        fitted = [e for e, _, _ in fit_shared(estimators, X, y, domains=domains, cache=cache)]
    return fitted, cache


def test_fig2_binary_labels_give_one_direction_shared_up_to_sign_with_one_domain():
    """Why Fig. 2 shows COIR, DICA and DCM coinciding (up to sign).

    With binary labels and a centred delta target kernel, T_y = κ b bᵀ has rank 1, so each
    method has one informative direction W ∝ (A + NεI + Δ)⁻¹ b (A = FᵀF): Δ = 0 for COIR,
    A T_q for DICA, γ/(γ − 1) T_d A for DCM. With one domain both domain terms vanish and
    the three projections are the same up to sign.
    """
    from krepro.dcm import COIR, DCM, DICA

    X, y, _ = _binary_domains()
    fitted, _ = _one_direction(
        [COIR(2, gamma=0.5), DICA(2, gamma=0.5), DCM(2, gamma=0.5)], X, y, None
    )
    Z = [est.transform(X) for est in fitted]
    assert all(z.shape[1] == 1 for z in Z)
    for z in Z[1:]:
        assert abs(np.corrcoef(Z[0][:, 0], z[:, 0])[0, 1]) > 1 - 1e-9


def test_fig2_binary_labels_directions_follow_the_closed_form_with_domains():
    from krepro.dcm import COIR, DCM, DICA
    from krepro.dcm.core import between_domain_covariance

    X, y, domains = _binary_domains()
    estimators = [COIR(2, gamma=0.5), DICA(2, gamma=0.5), DCM(2, gamma=0.5)]
    (coir, dica, dcm), cache = _one_direction(estimators, X, y, domains)
    fmap = dcm.feature_map_
    F, A, N = fmap.F, fmap.eigenvalues, X.shape[0]
    ridge = N * dcm.epsilon
    T_y = dcm._T_y(y, cache, dcm.feature_map_key_, None)
    T_d = dcm._T_d(domains, cache, dcm.feature_map_key_, None)
    values, vectors = np.linalg.eigh(T_y)
    assert values[-2] < 1e-10 * values[-1]  # rank 1
    b = vectors[:, -1]
    gamma = dcm.eigenvalues_[0]
    closed = {
        "coir": np.diag(A + ridge),
        "dica": np.diag(A + ridge) + np.diag(A) @ between_domain_covariance(F, domains),
        "dcm": np.diag(A + ridge) + gamma / (gamma - 1.0) * T_d @ np.diag(A),
    }
    for name, est in zip(closed, (coir, dica, dcm), strict=True):
        expected = F @ np.linalg.solve(closed[name], b)
        got = F @ est.components_[:, 0]
        cosine = expected @ got / np.linalg.norm(expected) / np.linalg.norm(got)
        assert abs(cosine) > 1 - 1e-8, name
    # DCM differs from COIR only inside the span of its domain term (rank ≤ domains − 1).
    assert np.linalg.matrix_rank(T_d, tol=1e-8 * np.abs(T_d).max()) <= len(set(domains)) - 1
