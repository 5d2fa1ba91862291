"""Tests of :class:`krepro.fairness.oblivious.ObliviousKernel` against feature-space oracles.

The oracles compute the oblivious feature of the paper (eq. (9)),
``Z = φ(x) − E_n[φ(X) | S ∈ cell(s)] + E_n[φ(X)]``, with explicit loops over an explicit
finite-dimensional feature map, the empty-cell convention ``E_n[· | S ∈ B] = 0`` included.
"""

import itertools
import tracemalloc
import warnings

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import krepro.fairness.oblivious
from krepro.cme import CMEConditionalMean
from krepro.fairness.conditional import FiniteValuePartition
from krepro.fairness.oblivious import ObliviousKernel
from krepro.kernels import DegenerateKernelWarning, gram, kernel_params
from krepro.validation import check_sensitive_features
from tests.concurrency import hammer

# ---------------------------------------------------------------------------------------------
# explicit feature maps and oracles

GAMMA, COEF0 = 0.7, 1.3


def phi_linear(x):
    return np.asarray(x, dtype=float).copy()


def phi_poly2(x, g=GAMMA, c=COEF0):
    """Feature map of (g <x, y> + c)^2: [c, sqrt(2 c g) x_k, g x_k x_l for all (k, l)]."""
    x = np.asarray(x, dtype=float)
    quadratic = [g * x[k] * x[l] for k in range(len(x)) for l in range(len(x))]
    return np.array([c, *(np.sqrt(2.0 * c * g) * x), *quadratic])


FEATURE_MAPS = {
    "linear": (phi_linear, {"kernel": "linear"}),
    "poly2": (phi_poly2, {"kernel": "poly", "degree": 2, "gamma": GAMMA, "coef0": COEF0}),
}


def feature_matrix(phi, X):
    return np.array([phi(x) for x in X])


def value_cell(s):
    return tuple(np.atleast_1d(s).tolist())


def dyadic_cell(s, low, high, ell):
    """Cell of a point by walking the grid edges upwards on each axis."""
    cell = []
    for value in np.atleast_1d(s):
        width = (high - low) / ell
        k = 0
        while k < ell - 1 and value >= low + (k + 1) * width:
            k += 1
        cell.append(k)
    return tuple(cell)


def explicit_Z(phi, X, S, X_est, S_est, cell_of):
    """Z_i = φ(x_i) − (mean of φ(x_v) over estimation v in cell(s_i), 0 if none) + mean φ."""
    overall = sum(phi(x) for x in X_est) / len(X_est)
    Z = []
    for x, s in zip(X, S, strict=True):
        members = [v for v in range(len(X_est)) if cell_of(S_est[v]) == cell_of(s)]
        cell_mean = sum(phi(X_est[v]) for v in members) / len(members) if members else 0.0
        Z.append(phi(x) - cell_mean + overall)
    return np.array(Z)


# ---------------------------------------------------------------------------------------------
# scenarios: finite S and continuous S, with and without empty cells


def _scenario(name, seed=0, d=3):
    """Estimation sample, two query sets (A, B), the ObliviousKernel partition options, the
    oracle's cell function and the query rows of A whose cell has no estimation point."""
    rng = np.random.default_rng(seed)
    m, n_a, n_b = 20, 11, 7
    if name == "values":
        S_est = rng.integers(0, 3, size=m)
        S_a = rng.integers(0, 3, size=n_a)
        S_b = rng.integers(0, 3, size=n_b)
        options, cell_of = {"partition": "values"}, value_cell
    elif name == "values-empty":
        # Explicit cells 0..4; 3 and 4 never occur in the estimation sample: their cells are
        # empty and their conditional mean estimate is 0
        S_est = rng.integers(0, 3, size=m)
        S_a = np.concatenate([rng.integers(0, 3, size=n_a - 3), [3, 4, 3]])
        S_b = np.concatenate([rng.integers(0, 3, size=n_b - 1), [4]])
        options = {"partition": FiniteValuePartition(values=[0, 1, 2, 3, 4])}
        cell_of = value_cell
    elif name == "values-2d":
        S_est = rng.integers(0, 2, size=(m, 2))
        S_a = rng.integers(0, 2, size=(n_a, 2))
        S_b = rng.integers(0, 2, size=(n_b, 2))
        options, cell_of = {"partition": "values"}, value_cell
    elif name == "dyadic":
        S_est, S_a, S_b = (rng.uniform(-1.0, 1.0, size=n) for n in (m, n_a, n_b))
        options = {"partition": "dyadic", "partition_bounds": (-1.0, 1.0), "cells_per_axis": 4}
        cell_of = lambda s: dyadic_cell(s, -1.0, 1.0, 4)  # noqa: E731
    elif name == "dyadic-empty":
        # 8 cells on [0, 2]; estimation points only in [0, 0.75) and [1.25, 1.5): cells 3, 4,
        # 6, 7 are empty, and query points are drawn over the whole box.
        S_est = np.concatenate([rng.uniform(0.0, 0.75, 12), rng.uniform(1.25, 1.5, 8)])
        S_a = np.concatenate([rng.uniform(0.0, 2.0, n_a - 3), [0.8, 1.0, 2.0]])
        S_b = rng.uniform(0.0, 2.0, n_b)
        options = {"partition": "dyadic", "partition_bounds": (0.0, 2.0), "cells_per_axis": 8}
        cell_of = lambda s: dyadic_cell(s, 0.0, 2.0, 8)  # noqa: E731
    elif name == "dyadic-2d-empty":
        # 3 x 3 grid on [0, 1]^2 with no estimation point in the top row of cells (s_1 >= 2/3)
        S_est = np.column_stack([rng.uniform(0, 1, m), rng.uniform(0, 0.6, m)])
        S_a = np.vstack([rng.uniform(0, 1, size=(n_a - 2, 2)), [[0.1, 0.9], [1.0, 1.0]]])
        S_b = rng.uniform(0, 1, size=(n_b, 2))
        options = {"partition": "dyadic", "partition_bounds": (0.0, 1.0), "cells_per_axis": 3}
        cell_of = lambda s: dyadic_cell(s, 0.0, 1.0, 3)  # noqa: E731
    else:  # pragma: no cover
        raise AssertionError(name)
    # X depends on S so that the cell means differ and the correction is not negligible.
    first = lambda S: np.asarray(S, dtype=float).reshape(len(S), -1)[:, :1]  # noqa: E731
    X_est = rng.normal(size=(m, d)) + first(S_est)
    X_a = rng.normal(size=(n_a, d)) + first(S_a)
    X_b = rng.normal(size=(n_b, d)) + first(S_b)
    occupied = {cell_of(s) for s in S_est}
    empty_rows = [i for i, s in enumerate(S_a) if cell_of(s) not in occupied]
    return (X_est, S_est, X_a, S_a, X_b, S_b), options, cell_of, empty_rows


SCENARIOS = ["values", "values-empty", "values-2d", "dyadic", "dyadic-empty", "dyadic-2d-empty"]
WITH_EMPTY = {"values-empty", "dyadic-empty", "dyadic-2d-empty"}

# Entries are O(1)-O(100) sums of a few hundred products; 1e-10 is far above round-off and
# far below any modelling error (a missing or misplaced cell mean changes entries by O(0.1)).
ATOL = 1e-10
# The default tile size, and one that splits every matrix of the scenarios (m = 20,
# n_a = 11, n_b = 7) into many tiles with uneven last tiles.
TILE_SIZES = [256, 3]


def test_poly2_feature_map_reproduces_kernel():
    rng = np.random.default_rng(10)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(5, 3))
    explicit = feature_matrix(phi_poly2, X) @ feature_matrix(phi_poly2, Y).T
    np.testing.assert_allclose(explicit, (GAMMA * X @ Y.T + COEF0) ** 2, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(
        explicit, gram(X, Y, "poly", degree=2, gamma=GAMMA, coef0=COEF0), rtol=1e-13, atol=1e-13
    )


@pytest.mark.parametrize("tile_size", TILE_SIZES)
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("feature_map", sorted(FEATURE_MAPS))
def test_gram_equals_explicit_feature_space(feature_map, scenario, tile_size):
    phi, kernel_options = FEATURE_MAPS[feature_map]
    (X_est, S_est, X_a, S_a, X_b, S_b), options, cell_of, empty_rows = _scenario(scenario)
    if scenario in WITH_EMPTY:
        assert empty_rows, "the scenario must put query points into empty cells"
    ok = ObliviousKernel(**kernel_options, **options, tile_size=tile_size)
    ok.fit(X_est, sensitive_features=S_est)

    Z_a = explicit_Z(phi, X_a, S_a, X_est, S_est, cell_of)
    Z_b = explicit_Z(phi, X_b, S_b, X_est, S_est, cell_of)
    Phi_b = feature_matrix(phi, X_b)

    np.testing.assert_allclose(ok.gram(X_a, S_a), Z_a @ Z_a.T, rtol=0, atol=ATOL)
    np.testing.assert_allclose(ok.gram(X_a, S_a, X_b, S_b), Z_a @ Z_b.T, rtol=0, atol=ATOL)
    np.testing.assert_allclose(ok.mixed_gram(X_a, S_a, X_b), Z_a @ Phi_b.T, rtol=0, atol=ATOL)

    # Points in empty cells: conditional mean estimate 0, so Z = φ(x) + E_n φ(X).
    mean_phi = feature_matrix(phi, X_est).mean(axis=0)
    for i in empty_rows:
        z = phi(X_a[i]) + mean_phi
        np.testing.assert_allclose(ok.gram(X_a, S_a)[i, i], z @ z, rtol=0, atol=ATOL)
        np.testing.assert_allclose(ok.mixed_gram(X_a, S_a, X_b)[i], Phi_b @ z, rtol=0, atol=ATOL)


@pytest.mark.parametrize("scenario", ["dyadic-empty", "values-empty"])
def test_empty_cells_have_zero_conditional_mean_components(scenario):
    (X_est, S_est, X_a, S_a, *_), options, _, empty_rows = _scenario(scenario)
    ok = ObliviousKernel(kernel="linear", **options).fit(X_est, sensitive_features=S_est)
    counts = ok.conditional_mean_.cell_counts_
    empty_cells = np.flatnonzero(counts == 0)
    if scenario == "dyadic-empty":
        np.testing.assert_array_equal(empty_cells, [3, 4, 6, 7])
    G = ok.component_weights_
    assert np.all(G[:, empty_cells] == 0.0)
    assert np.all(ok.component_gram_[empty_cells] == 0.0)
    # With the linear kernel the cell means are G[:, a] @ X_est; for empty cells they are 0.
    # Hence <Z(a), e_k> (mixed_gram against unit vectors) = x_k + mean_k for those points.
    E = np.eye(X_est.shape[1])
    mixed = ok.mixed_gram(X_a[empty_rows], np.asarray(S_a)[empty_rows], E)
    np.testing.assert_allclose(mixed, X_a[empty_rows] + X_est.mean(axis=0), rtol=0, atol=ATOL)


# ---------------------------------------------------------------------------------------------
# Algorithm 1, transcribed


def _rbf(x, y, gamma):
    return float(np.exp(-gamma * sum((x[k] - y[k]) ** 2 for k in range(len(x)))))


def algorithm1(X_i, cells_i, X_j, cells_j, X_est, cells_est, gamma):
    """O_ij = k_ij − ξ_{i,a(j)} − ξ_{j,a(i)} + o_{a(i),a(j)} + M + ρ_i + ρ_j − τ_{a(i)} − τ_{a(j)}.

    Sums over an empty index set are 0 (so are the averages over empty cells).
    """
    m = len(X_est)
    labels = sorted(set(cells_i) | set(cells_j) | set(cells_est))
    members = {a: [v for v in range(m) if cells_est[v] == a] for a in labels}
    k = lambda x, y: _rbf(x, y, gamma)  # noqa: E731

    def xi(x, a):  # <φ(x), E_n[φ | cell a]>
        return sum(k(x, X_est[v]) for v in members[a]) / len(members[a]) if members[a] else 0.0

    def rho(x):  # <φ(x), E_n φ>
        return sum(k(x, X_est[v]) for v in range(m)) / m

    def o(a, b):  # <E_n[φ | a], E_n[φ | b]>
        if not members[a] or not members[b]:
            return 0.0
        total = sum(k(X_est[v], X_est[w]) for v in members[a] for w in members[b])
        return total / (len(members[a]) * len(members[b]))

    def tau(a):  # <E_n[φ | a], E_n φ>
        if not members[a]:
            return 0.0
        return sum(k(X_est[v], X_est[w]) for v in members[a] for w in range(m)) / (
            len(members[a]) * m
        )

    M = sum(k(X_est[v], X_est[w]) for v in range(m) for w in range(m)) / m**2
    O = np.zeros((len(X_i), len(X_j)))
    for i in range(len(X_i)):
        for j in range(len(X_j)):
            a, b = cells_i[i], cells_j[j]
            O[i, j] = (
                k(X_i[i], X_j[j])
                - xi(X_i[i], b)
                - xi(X_j[j], a)
                + o(a, b)
                + M
                + rho(X_i[i])
                + rho(X_j[j])
                - tau(a)
                - tau(b)
            )
    return O


@pytest.mark.parametrize("tile_size", TILE_SIZES)
@pytest.mark.parametrize("scenario", ["values", "values-empty", "dyadic-empty", "dyadic-2d-empty"])
def test_gram_equals_algorithm_1(scenario, tile_size):
    (X_est, S_est, X_a, S_a, X_b, S_b), options, cell_of, _ = _scenario(scenario, seed=1, d=2)
    gamma = 0.5
    ok = ObliviousKernel(kernel="rbf", gamma=gamma, **options, tile_size=tile_size)
    ok.fit(X_est, sensitive_features=S_est)
    cells = lambda S: [cell_of(s) for s in S]  # noqa: E731
    expected = algorithm1(X_a, cells(S_a), X_a, cells(S_a), X_est, cells(S_est), gamma)
    # RBF values are in (0, 1]; all terms O(1), so 1e-10 leaves only round-off.
    np.testing.assert_allclose(ok.gram(X_a, S_a), expected, rtol=0, atol=ATOL)
    # Appendix E.2: the same formula between test points and training points.
    expected_ab = algorithm1(X_a, cells(S_a), X_b, cells(S_b), X_est, cells(S_est), gamma)
    np.testing.assert_allclose(ok.gram(X_a, S_a, X_b, S_b), expected_ab, rtol=0, atol=ATOL)


# ---------------------------------------------------------------------------------------------
# In-sample independence of S: every cell mean of <h, Z> equals the overall mean


@pytest.mark.parametrize("scenario", ["values", "values-2d", "dyadic", "dyadic-empty"])
def test_in_sample_cell_means_of_h_Z_are_equal(scenario):
    (X_est, S_est, *_), options, _, _ = _scenario(scenario, seed=2)
    rng = np.random.default_rng(20)
    ok = ObliviousKernel(kernel="rbf", gamma=0.3, **options).fit(X_est, sensitive_features=S_est)
    cell_index = ok.conditional_mean_.cell_index_
    occupied = np.unique(cell_index)
    assert len(occupied) >= 2

    # h = Σ_k c_k φ(u_k) with random centres u_k, so <h, Z(a)> = (mixed_gram(A, S_A, U) @ c)_a.
    U = rng.normal(size=(6, X_est.shape[1])) + 0.5
    c = rng.normal(size=6)
    h_Z = ok.mixed_gram(X_est, S_est, U) @ c
    h_plain = ok.plain_gram(X_est, U) @ c  # h(x_v) itself is not independent of the cell
    raw_means = np.array([h_plain[cell_index == a].mean() for a in occupied])
    assert np.ptp(raw_means) > 1e-3  # so the identity below is not trivially true

    overall = h_Z.mean()
    for a in occupied:
        # <h, Z> values are O(1); the identity is exact up to round-off.
        assert abs(h_Z[cell_index == a].mean() - overall) < 1e-10
    assert abs(overall - h_plain.mean()) < 1e-10  # the overall mean is E_n h(X)

    # The same through gram: h' = Σ_k c_k Z(b_k) is also an element of H.
    X_b = rng.normal(size=(5, X_est.shape[1]))
    S_b = S_est[:5]
    hZ_gram = ok.gram(X_est, S_est, X_b, S_b) @ c[:5]
    for a in occupied:
        assert abs(hZ_gram[cell_index == a].mean() - hZ_gram.mean()) < 1e-10


# ---------------------------------------------------------------------------------------------
# symmetry, positive semi-definiteness, single cell, linear kernel


@pytest.mark.parametrize(
    "kernel_options",
    [
        {"kernel": "rbf", "gamma": 0.4},
        {"kernel": "linear"},
        {"kernel": "poly", "degree": 3, "gamma": 0.5, "coef0": 1.0},
        {"kernel": "matern", "kernel_params": {"nu": 2.5, "length_scale": 1.5}},
    ],
    ids=["rbf", "linear", "poly", "matern"],
)
@pytest.mark.parametrize("scenario", ["values", "dyadic-empty", "dyadic-2d-empty"])
@pytest.mark.parametrize("tile_size", TILE_SIZES)
def test_gram_is_symmetric_and_psd(kernel_options, scenario, tile_size):
    (X_est, S_est, X_a, S_a, *_), options, _, _ = _scenario(scenario, seed=3)
    rng = np.random.default_rng(30)
    X_a = np.vstack([X_a, rng.normal(size=(30, X_a.shape[1]))])
    S_a = np.concatenate([S_a, np.asarray(S_est)[rng.integers(0, len(S_est), 30)]])
    ok = ObliviousKernel(**kernel_options, **options, tile_size=tile_size)
    O = ok.fit(X_est, sensitive_features=S_est).gram(X_a, S_a)
    np.testing.assert_array_equal(O, O.T)  # exactly, not just to round-off
    eigenvalues = np.linalg.eigvalsh(O)
    # A Gram matrix of vectors: negative eigenvalues can only come from round-off.
    assert eigenvalues.min() >= -1e-10 * max(1.0, np.abs(eigenvalues).max())


@pytest.mark.parametrize(
    "kernel_options",
    [{"kernel": "rbf", "gamma": 0.4}, {"kernel": "poly", "degree": 2, "gamma": 0.5}],
    ids=["rbf", "poly"],
)
@pytest.mark.parametrize("single", ["none", "constant", "one-dyadic-cell"])
def test_single_cell_gives_plain_kernel(kernel_options, single):
    rng = np.random.default_rng(4)
    X_est, X_a, X_b = rng.normal(size=(15, 2)), rng.normal(size=(9, 2)), rng.normal(size=(4, 2))
    options = {}
    if single == "none":
        S_est = S_a = S_b = None
    elif single == "constant":
        S_est, S_a, S_b = np.full(15, 7.0), np.full(9, 7.0), np.full(4, 7.0)
    else:
        options = {"partition": "dyadic", "partition_bounds": (0.0, 1.0), "cells_per_axis": 1}
        S_est, S_a, S_b = rng.uniform(size=15), rng.uniform(size=9), rng.uniform(size=4)
    ok = ObliviousKernel(**kernel_options, **options).fit(X_est, sensitive_features=S_est)
    params = kernel_params(
        kernel_options["kernel"], kernel_options.get("gamma"), kernel_options.get("degree", 3)
    )
    K_aa = gram(X_a, None, kernel_options["kernel"], **params)
    K_ab = gram(X_a, X_b, kernel_options["kernel"], **params)
    # With one cell E_n[φ | S] = E_n φ and Z = φ(x); only cancellation round-off remains.
    np.testing.assert_allclose(ok.gram(X_a, S_a), K_aa, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ok.gram(X_a, S_a, X_b, S_b), K_ab, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ok.mixed_gram(X_a, S_a, X_b), K_ab, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ok.plain_gram(X_a, X_b), K_ab)


def test_linear_kernel_finite_S_is_group_mean_centring():
    rng = np.random.default_rng(5)
    groups = np.array([0, 1, 2])
    S_est = rng.choice(groups, size=40)
    X_est = rng.normal(size=(40, 3)) + 2.0 * S_est[:, None]
    S = rng.choice(groups, size=12)
    X = rng.normal(size=(12, 3)) + 2.0 * S[:, None]
    S2 = rng.choice(groups, size=6)
    X2 = rng.normal(size=(6, 3)) + 2.0 * S2[:, None]

    group_mean = {g: X_est[S_est == g].mean(axis=0) for g in groups}
    centre = lambda X, S: X - np.array([group_mean[s] for s in S]) + X_est.mean(axis=0)  # noqa: E731
    Z, Z2 = centre(X, S), centre(X2, S2)

    ok = ObliviousKernel(kernel="linear").fit(X_est, sensitive_features=S_est)
    # entries are O(10); round-off only
    np.testing.assert_allclose(ok.gram(X, S), Z @ Z.T, rtol=0, atol=ATOL)
    np.testing.assert_allclose(ok.gram(X, S, X2, S2), Z @ Z2.T, rtol=0, atol=ATOL)
    np.testing.assert_allclose(ok.mixed_gram(X, S, X2), Z @ X2.T, rtol=0, atol=ATOL)
    # recover Z itself from <Z, e_k>, and check the centred estimation sample
    np.testing.assert_allclose(ok.mixed_gram(X, S, np.eye(3)), Z, rtol=0, atol=ATOL)
    Z_est = ok.mixed_gram(X_est, S_est, np.eye(3))
    for g in groups:
        np.testing.assert_allclose(Z_est[S_est == g].mean(axis=0), X_est.mean(axis=0), atol=ATOL)


# ---------------------------------------------------------------------------------------------
# input handling


def test_check_sensitive_features():
    assert check_sensitive_features([1, 2, 3], 3).shape == (3, 1)
    assert check_sensitive_features(np.ones((3, 2)), 3).shape == (3, 2)
    with pytest.raises(ValueError, match="expected 4 rows"):
        check_sensitive_features([1, 2, 3], 4)


def test_query_outside_dyadic_box_and_feature_mismatch_raise():
    rng = np.random.default_rng(6)
    ok = ObliviousKernel(partition="dyadic", partition_bounds=(0.0, 1.0), cells_per_axis=2)
    ok.fit(rng.normal(size=(10, 2)), sensitive_features=rng.uniform(size=10))
    with pytest.raises(ValueError, match="row 1"):
        ok.gram(rng.normal(size=(3, 2)), [0.5, 1.5, 0.2])
    with pytest.raises(ValueError, match="features"):
        ok.gram(rng.normal(size=(3, 3)), [0.5, 0.5, 0.2])
    with pytest.raises(ValueError, match="expected 3 rows"):
        ok.gram(rng.normal(size=(3, 2)), [0.5, 0.5])


def test_all_cell_combinations_in_algorithm1_scenario_are_exercised():
    """Guard for the Algorithm 1 test: query cells include occupied and empty cells."""
    (_, S_est, _, S_a, *_), _, cell_of, empty_rows = _scenario("dyadic-empty", seed=1, d=2)
    occupied = {cell_of(s) for s in S_est}
    query_cells = [cell_of(s) for s in S_a]
    assert empty_rows
    assert any(c in occupied for c in query_cells)
    assert any(a != b for a, b in itertools.combinations(query_cells, 2))


def test_estimation_points_outside_explicit_cells_only_enter_the_overall_mean():
    # Explicit cells {0, 1}; estimation points with S = 2 belong to no cell. With the linear
    # kernel Z = x − mean(x_est | cell(s)) + mean(all x_est), where the overall mean includes
    # the no-cell points and a query with S = 2 has conditional-mean estimate 0.
    rng = np.random.default_rng(5)
    S_est = np.array([2, 0, 1, 2, 0, 1, 1, 2, 0])
    X_est = rng.normal(size=(9, 2)) + S_est[:, None]
    X_a, S_a = rng.normal(size=(5, 2)), np.array([0, 1, 2, 1, 0])
    ok = ObliviousKernel(kernel="linear", partition=FiniteValuePartition(values=[0, 1]))
    ok.fit(X_est, sensitive_features=S_est)
    overall = X_est.mean(axis=0)
    cell_mean = {0: X_est[S_est == 0].mean(axis=0), 1: X_est[S_est == 1].mean(axis=0)}
    Z = np.array(
        [x - cell_mean.get(int(s), np.zeros(2)) + overall for x, s in zip(X_a, S_a, strict=True)]
    )
    np.testing.assert_allclose(ok.gram(X_a, S_a), Z @ Z.T, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ok.gram(X_a, S_a, X_a[:2], S_a[:2]), Z @ Z[:2].T, atol=1e-12)


def test_missing_sensitive_features_after_fitting_with_them_is_an_error():
    rng = np.random.default_rng(0)
    X, S = rng.normal(size=(20, 2)), rng.integers(0, 2, 20)
    ok = ObliviousKernel(kernel="rbf", gamma=0.5).fit(X, sensitive_features=S)
    with pytest.raises(ValueError, match="sensitive_features are required"):
        ok.gram(X)
    with pytest.raises(ValueError, match="sensitive_features are required"):
        ok.gram(X, S, X, None)
    plain = ObliviousKernel(kernel="rbf", gamma=0.5).fit(X)
    np.testing.assert_allclose(plain.gram(X), plain.plain_gram(X), atol=1e-12)


# ---------------------------------------------------------------------------------------------
# extreme scales


def _reproducer_data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(40, 3)), rng.integers(0, 2, 40)


@pytest.mark.parametrize(("scale", "gamma"), [(1e160, 1.0), (1.0, 1.7e308), (1e-300, 1.7e308)])
def test_rbf_oblivious_gram_at_extreme_scales_is_the_delta_kernel_one(scale, gamma):
    # Reproducer: ObliviousKernel(gamma=1.0).fit(X * 1e160, ...).gram(...) had 1600 of 1600
    # entries NaN, with only RuntimeWarnings. Every distinct pair is now at kernel value 0
    # (K = I, what the delta kernel of the distinct points gives): a finite oblivious Gram
    # matrix, and a DegenerateKernelWarning from fit instead of silence.
    X, s = _reproducer_data()
    X = X * scale
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ok = ObliviousKernel(gamma=gamma).fit(X, sensitive_features=s)
        O = ok.gram(X, s)
        O_cross = ok.gram(X[:5], s[:5], X, s)
        O_mixed = ok.mixed_gram(X[:5], s[:5], X)
    kinds = {type(w.message) for w in caught}
    if scale == 1e-300:  # gamma |x - y|^2 ~ 1e-292: K is all ones, Z is constant
        assert kinds == {DegenerateKernelWarning}
        np.testing.assert_allclose(O, 1.0, rtol=0, atol=1e-14)
        return
    assert kinds == {DegenerateKernelWarning}  # no RuntimeWarning, one kind of warning
    delta = ObliviousKernel(kernel="delta").fit(X, sensitive_features=s)
    for got, expected in [
        (O, delta.gram(X, s)),
        (O_cross, delta.gram(X[:5], s[:5], X, s)),
        (O_mixed, delta.mixed_gram(X[:5], s[:5], X)),
    ]:
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-14)


def test_ordinary_oblivious_fit_does_not_warn():
    X, s = _reproducer_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ObliviousKernel(gamma=0.5).fit(X, sensitive_features=s).gram(X, s)


def test_overflowing_linear_oblivious_gram_raises_naming_the_input():
    X, s = _reproducer_data()
    ok = ObliviousKernel(kernel="linear").fit(X, sensitive_features=s)
    with pytest.raises(ValueError, match="linear kernel matrix of X"):
        ok.gram(X * 1e160, s)


# ---------------------------------------------------------------------------------------------
# threads


def test_a_fitted_kernel_is_safe_to_share_between_threads():
    # Before: threads sharing a fitted kernel raised KeyError in the product cache's
    # move_to_end (an entry evicted by another thread between lookup and move).
    rng = np.random.default_rng(3)
    X, s = rng.normal(size=(160, 2)), rng.integers(0, 3, 160)
    ok = ObliviousKernel(gamma=0.5, tile_size=8).fit(X[100:], sensitive_features=s[100:])
    # seven point sets: more than the caches keep (4), so threads evict each other's entries
    sets = [(X[10 * k : 10 * k + 20], s[10 * k : 10 * k + 20]) for k in range(7)]

    def results(k):
        (XA, SA), (XB, SB) = sets[k], sets[(k + 1) % len(sets)]
        return ok.gram(XA, SA), ok.gram(XA, SA, XB, SB), ok.mixed_gram(XA, SA, XB)

    expected = [results(k) for k in range(len(sets))]
    mismatches = []

    def work(index):
        for step in range(100):
            k = (index + step) % len(sets)
            if not all(map(np.array_equal, results(k), expected[k])):
                mismatches.append(k)

    assert hammer(work, 4) == []
    assert mismatches == []


# ---------------------------------------------------------------------------------------------
# The blockwise ObliviousKernel: tile size, thread count, cached products, memory.
#
# The identities of the oblivious Gram matrix itself (explicit feature space, Algorithm 1) are
# tested above, with the default and with a tiny tile size.


DYADIC = {"partition": "dyadic", "partition_bounds": (-5.0, 5.0), "cells_per_axis": 16}
CONFIGS = {
    "rbf-dyadic": {"kernel": "rbf", "gamma": 0.7, **DYADIC},
    "poly-values": {"kernel": "poly", "degree": 2, "gamma": 0.3},
    "rbf-cme": {"kernel": "rbf", "gamma": 0.5, "conditional_mean": CMEConditionalMean(gamma=0.5)},
}


def _data(seed=0, m=260, n=301, n_test=97, d=2, values=False):
    rng = np.random.default_rng(seed)

    def half(size):
        S = rng.uniform(-5.0, 5.0, size)
        X = 0.3 * S[:, None] + rng.normal(size=(size, d))
        return X, (np.round(S / 4.0) if values else S)

    return half(m), half(n), half(n_test)


def _all_grams(ok, train, test):
    (X, S), (X_t, S_t) = train, test
    return {
        "train": ok.gram(X, S),
        "test": ok.gram(X_t, S_t, X, S),
        "mixed": ok.mixed_gram(X_t, S_t, X),
        "Q": ok.component_gram_,
    }


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_results_do_not_depend_on_the_tile_size(config):
    est, train, test = _data(values=config == "poly-values")
    results = {}
    # 7 and 64: many tiles, uneven last tiles (260, 301 and 97 are not multiples); 1000: one
    for tile_size in (7, 64, 1000):
        ok = ObliviousKernel(**CONFIGS[config], tile_size=tile_size)
        results[tile_size] = _all_grams(ok.fit(*est[:1], sensitive_features=est[1]), train, test)
        O = results[tile_size]["train"]
        np.testing.assert_array_equal(O, O.T)
    for tile_size in (7, 64):
        for name, value in results[tile_size].items():
            # entries O(1)-O(10): only the order of the floating-point sums differs
            np.testing.assert_allclose(value, results[1000][name], rtol=0, atol=1e-12)


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_results_do_not_depend_on_the_thread_count(config):
    est, train, test = _data(1, m=700, n=650, values=config == "poly-values")
    results = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads):
            ok = ObliviousKernel(**CONFIGS[config])
            results.append(_all_grams(ok.fit(est[0], sensitive_features=est[1]), train, test))
    for name, value in results[0].items():
        if config == "rbf-cme":
            # The CME's weights come from a threaded LAPACK solve (krepro.cme), which
            # rounds differently with 2 threads; the tiled products add nothing to that.
            np.testing.assert_allclose(value, results[1][name], rtol=0, atol=1e-12)
        else:
            np.testing.assert_array_equal(value, results[1][name])


def test_products_with_the_estimation_sample_are_cached(monkeypatch):
    est, (X, S), (X_t, S_t) = _data(2)
    calls = []
    original = krepro.fairness.oblivious.cross_products

    def counting(tiles, E, n_rows, tile_size):
        calls.append(n_rows)
        return original(tiles, E, n_rows, tile_size)

    monkeypatch.setattr(krepro.fairness.oblivious, "cross_products", counting)
    ok = ObliviousKernel(**CONFIGS["rbf-dyadic"]).fit(est[0], sensitive_features=est[1])
    O = ok.gram(X, S)
    assert calls == [len(X)]
    np.testing.assert_array_equal(ok.gram(X, S), O)  # repeated call: no new products
    O_test = ok.gram(X_t, S_t, X, S)  # test × train: products of the test points only
    assert calls == [len(X), len(X_t)]
    mixed = ok.mixed_gram(X_t, S_t, X)
    np.testing.assert_array_equal(ok.gram(X_t, S_t, X.copy(), S), O_test)  # same content
    assert calls == [len(X), len(X_t)]

    X_changed = X.copy()
    X_changed[5, 0] += 1e-9  # the cache is keyed by content, not by the array object
    ok.gram(X_t, S_t, X_changed, S)
    assert calls == [len(X), len(X_t), len(X)]

    ok.fit(X, sensitive_features=S)  # a new estimation sample empties the cache
    ok.gram(X, S)
    assert calls == [len(X), len(X_t), len(X), len(X)]

    # cached and freshly computed products give the same matrices
    fresh = ObliviousKernel(**CONFIGS["rbf-dyadic"]).fit(est[0], sensitive_features=est[1])
    np.testing.assert_array_equal(fresh.mixed_gram(X_t, S_t, X), mixed)
    np.testing.assert_array_equal(fresh.gram(X_t, S_t, X, S), O_test)


def test_many_point_sets_keep_the_cache_bounded():
    est, (X, S), _ = _data(3)
    ok = ObliviousKernel(**CONFIGS["rbf-dyadic"]).fit(est[0], sensitive_features=est[1])
    for shift in range(10):
        ok.gram(X + shift, S)
    assert len(ok.products_cache_) == krepro.fairness.oblivious._PRODUCT_CACHE_SIZE


def _peak_bytes(function):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = function()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


def test_memory_is_the_output_plus_tiles():
    """fit never holds an m × m block; gram holds its n × n output and a few tiles."""
    n = m = 1500
    est, (X, S), _ = _data(4, m=m, n=n, d=1)
    ok = ObliviousKernel(**CONFIGS["rbf-dyadic"])
    fit_peak, _ = _peak_bytes(lambda: ok.fit(est[0], sensitive_features=est[1]))
    # a 256² tile is 0.5 MiB; one m × m block would be 17 MiB
    assert fit_peak < 0.1 * m * m * 8
    gram_peak, O = _peak_bytes(lambda: ok.gram(X, S))
    assert O.shape == (n, n)
    # the output (17 MiB) plus tiles, n × 34 one-hot factors and n × 17 products
    assert gram_peak < n * n * 8 + 4 * 2**20
