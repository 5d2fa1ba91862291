"""Strategies of the fuzz lane: data, group labels and hyperparameters.

Every strategy returns an :class:`Arg`: the value given to the estimator, its canonical
encoding (X as a C-ordered float64 ndarray, group labels as integer codes in sorted-label
order, y classes as codes), and what the draw did to it:

* ``corrupt``: names of the arguments made invalid (NaN or infinity in the data, a missing
  or unseen group label, gamma = -1, ...). The estimator must raise a ``ValueError`` or
  ``TypeError`` naming one of them.
* ``stress``: names of the arguments that are valid but extreme (values of 1e300, a kernel
  scale of 1.7e308, all points identical, ...). The estimator may refuse them by name, or
  return the finite result of the canonical input.

Numbers come from a NumPy generator seeded by Hypothesis (cheap, well-conditioned draws);
the structure (shape, dtype, container, scale, which entry is corrupted) is drawn by
Hypothesis directly, so failures shrink to the structural choice that matters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Number

import numpy as np
import pandas as pd
from hypothesis import strategies as st

S = "sensitive_features"  # the estimators' name of the group labels


@dataclass(frozen=True)
class Arg:
    """One argument of a call: given and canonical values, and what was done to it."""

    given: object
    canonical: object
    corrupt: frozenset = frozenset()
    stress: frozenset = frozenset()
    exact: bool = True  # the canonical result must be bit-identical
    note: str = ""

    def __repr__(self):
        flags = [f"corrupt={sorted(self.corrupt)}"] * bool(self.corrupt)
        flags += [f"stress={sorted(self.stress)}"] * bool(self.stress)
        return f"Arg({', '.join([self.note or type(self.given).__name__, *flags])})"

    def _repr_pretty_(self, printer, cycle):  # Hypothesis reports failing examples with it
        printer.text(repr(self))


def plain(value, note=""):
    """A valid argument whose canonical form is itself."""
    return Arg(value, value, note=note or repr(value))


@dataclass
class Case:
    """A drawn call: hyperparameters and data, each an :class:`Arg`."""

    params: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)

    def _args(self):
        return [*self.params.values(), *self.data.values()]

    @property
    def corrupt(self):
        return frozenset().union(*(a.corrupt for a in self._args()))

    @property
    def stress(self):
        return frozenset().union(*(a.stress for a in self._args()))

    @property
    def exact(self):
        return all(a.exact for a in self._args())

    def given(self):
        return {k: a.given for k, a in self.params.items()}, {
            k: a.given for k, a in self.data.items()
        }

    def canonical(self):
        return {k: a.canonical for k, a in self.params.items()}, {
            k: a.canonical for k, a in self.data.items()
        }

    def __repr__(self):
        params = ", ".join(f"{k}={a!r}" for k, a in self.params.items())
        data = ", ".join(f"{k}={a!r}" for k, a in self.data.items())
        return f"Case(params: {params}; data: {data})"

    def _repr_pretty_(self, printer, cycle):
        printer.text(repr(self))


# --------------------------------------------------------------------------------------------
# hyperparameters

INVALID_REALS = (0.0, -1.0, -1e-300, np.inf, -np.inf, np.nan, "1.0", [1.0])
POSITIVE = (0.1, 0.5, 1.0, 2.0)
POSITIVE_EXTREME = (5e-324, 1e-300, 1e-12, 1e12, 1e300, 1.7e308)
# A penalty of 0 (ridge alpha, HSIC mu) is valid, an extreme one: the invalid reals without 0
NEGATIVE_OR_NOT_REAL = tuple(v for v in INVALID_REALS if not (isinstance(v, float) and v == 0.0))


@st.composite
def corrupted(draw, names):
    """Which argument of a case to corrupt: ``None`` (half of the examples) or one of ``names``.

    One corruption at a time, so that the test knows which argument an error must name.
    """
    names = list(names)
    return draw(st.sampled_from([None] * len(names) + names))


@st.composite
def hyper(draw, name, valid, extreme=(), invalid=(), bad=False):
    """A hyperparameter: invalid when ``bad``, else mostly ordinary, sometimes extreme."""
    if bad:
        value = draw(st.sampled_from(list(invalid)))
        return Arg(value, value, corrupt=frozenset({name}), note=f"{name}={value!r}")
    kind = draw(st.sampled_from(["valid"] * 3 + ["extreme"] * bool(extreme)))
    value = draw(st.sampled_from(list(valid if kind == "valid" else extreme)))
    stress = frozenset({name}) if kind == "extreme" else frozenset()
    return Arg(value, value, stress=stress, note=f"{name}={value!r}")


def gamma(name="gamma", bad=False, none=True, extra_valid=()):
    """A kernel scale: None (1 / n_features), ordinary, tiny, huge, or (``bad``) invalid."""
    valid = (*POSITIVE, *((None,) if none else ()), *extra_valid)
    return hyper(name, valid, POSITIVE_EXTREME, (*INVALID_REALS, "rbf"), bad)


def positive(name, bad=False, valid=POSITIVE, extreme=POSITIVE_EXTREME, invalid=INVALID_REALS):
    return hyper(name, valid, extreme, invalid, bad)


# --------------------------------------------------------------------------------------------
# X

SCALE_EXPONENTS = (-300, -299, -150, -100, -20, 0, 20, 100, 150, 299, 300)  # 1e-300 ... 1e300
PATTERNS = ("normal", "normal", "normal", "uniform", "duplicates", "constant_column", "grid")
ENCODINGS = (
    "float64",
    "float64",
    "float64",
    "float32",
    "float16",
    "int64",
    "int8",
    "bool",
    "fortran",
    "list",
    "frame",
    "frame_mixed",
    "frame_category",
)
X_CORRUPTIONS = ("nan", "inf", "-inf", "string")


def _base(rng, pattern, n, d):
    if pattern == "uniform":
        return rng.uniform(-1, 1, size=(n, d))
    values = rng.normal(size=(n, d))
    if pattern == "duplicates":
        values[n // 2 :] = values[: n - n // 2]
    elif pattern == "constant_column":
        values[:, rng.integers(d)] = 1.5
    elif pattern == "grid":
        values = np.round(values * 2) / 2
    return values


def _extreme_scale(exponent):
    """Whether points at scale ``10**exponent`` are extreme: beyond 1e20, or below 1e-7,
    where squared distances (< 1e-14) vanish against gamma ~ 1 and every kernel value
    rounds to 1 (a refusal naming X is then right)."""
    return exponent >= 20 or exponent <= -7


@st.composite
def scale_exponent(draw):
    return draw(st.one_of(st.sampled_from(SCALE_EXPONENTS), st.integers(-300, 300)))


@st.composite
def features(draw, n, d, name="X", bad=False, predict=False):
    """An ``(n, d)`` feature matrix in a drawn encoding, scale and pattern.

    ``bad``: with a NaN, an infinity or a string in one entry, or (``predict``: a matrix to
    apply a fitted model to) with the wrong number of columns.
    """
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pattern = draw(st.sampled_from((*PATTERNS, "identical")))
    encoding = draw(st.sampled_from(ENCODINGS))
    corruption = "none"
    corrupt = set()
    if bad:
        corruption = draw(st.sampled_from(X_CORRUPTIONS + ("columns",) * predict))
    if corruption == "columns":
        d = d + 1 if d == 1 or draw(st.booleans()) else d - 1
        corrupt.add(name)
        corruption = "none"
    values = _base(rng, pattern, n, d) if pattern != "identical" else np.full((n, d), 0.7)
    stress = set()
    if pattern in ("identical", "constant_column", "duplicates", "grid"):
        stress.add(name)  # degenerate but valid (coinciding points, a constant column)
    if encoding in ("float64", "fortran", "list", "frame"):
        if draw(st.integers(0, 5)) == 0:  # one scale per column
            exponents = [draw(scale_exponent()) for _ in range(d)]
        else:
            exponents = [draw(scale_exponent())] * d
        values = values * np.array([10.0**k for k in exponents])
        if any(_extreme_scale(k) for k in exponents):
            stress.add(name)
        note = f"{pattern} {encoding} scale 1e{exponents}"
    elif encoding == "float32":
        k = draw(st.integers(-30, 30))
        values = (values * 10.0**k).astype(np.float32)
        if _extreme_scale(k):
            stress.add(name)
        note = f"{pattern} float32 scale 1e{k}"
    elif encoding == "float16":
        values = values.astype(np.float16)
        note = f"{pattern} float16"
    elif encoding in ("int64", "int8"):
        values = np.round(values * 10).astype(encoding)
        stress.add(name)  # coinciding points are likely (a Nyström set may be all one point)
        note = f"{pattern} {encoding}"
    elif encoding == "bool":
        values = values > 0
        stress.add(name)  # few distinct points
        note = f"{pattern} bool"
    else:
        note = f"{pattern} {encoding}"
    canonical = np.ascontiguousarray(values, dtype=np.float64)
    if canonical.size and not np.isfinite(canonical).all():  # 1e307 · 3 overflows: inf drawn
        corrupt.add(name)
    exact = True
    if corruption != "none" and canonical.size:
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, d - 1))
        corrupt.add(name)
        note += f" with {corruption} at ({i}, {j})"
        if corruption == "string":
            values = values.astype(object)
            values[i, j] = "a"
        else:
            values = values.astype(np.float64)
            values[i, j] = float(corruption)
    given = values
    columns = [f"x{j}" for j in range(d)]
    if encoding == "fortran":
        given = np.asfortranarray(values)
        exact = False
    elif encoding == "list":
        given = values.tolist()
    elif encoding == "frame":
        given = pd.DataFrame(values, columns=columns)
        exact = False
    elif encoding == "frame_mixed":
        given = pd.DataFrame(values, columns=columns)
        if corruption == "none":
            given[columns[0]] = np.round(values[:, 0] * 10).astype(np.int64)
            canonical = canonical.copy()
            canonical[:, 0] = np.round(values[:, 0] * 10)
        exact = False
    elif encoding == "frame_category":
        given = pd.DataFrame(values, columns=columns)
        if corruption == "none":
            given[columns[-1]] = pd.Categorical(np.round(values[:, -1]))
            canonical = canonical.copy()
            canonical[:, -1] = np.round(values[:, -1])
        exact = False
    return Arg(given, canonical, frozenset(corrupt), frozenset(stress), exact, note)


# --------------------------------------------------------------------------------------------
# y: real targets


@st.composite
def targets(draw, n, name="y", bad=False):
    """Real targets in a drawn scale and container; ``bad``: NaN, inf, a string or short."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    k = draw(scale_exponent())
    values = rng.normal(size=n) * 10.0**k
    stress = {name} if abs(k) >= 20 else set()
    if draw(st.integers(0, 9)) == 0:
        values[:] = 2.0 * 10.0**k  # constant target
        stress.add(name)
    encoding = draw(st.sampled_from(("float64",) * 4 + ("float32", "int64", "list", "series")))
    if encoding == "float32":
        values = (values / 10.0**k).astype(np.float32)
        stress.discard(name)
        k = 0
    elif encoding == "int64":
        values = np.round(values / 10.0**k * 10).astype(np.int64)
        stress.discard(name)
        k = 0
    canonical = np.asarray(values, dtype=np.float64)
    corrupt = set()
    if not np.isfinite(canonical).all():
        corrupt.add(name)
    note = f"{encoding} scale 1e{k}"
    if bad:
        corruption = draw(st.sampled_from(("nan", "inf", "string", "short")))
        corrupt.add(name)
        note += f" with {corruption}"
        i = draw(st.integers(0, n - 1))
        if corruption == "string":
            values = values.astype(object)
            values[i] = "a"
        elif corruption == "short":
            values = values[:-1]
        else:
            values = values.astype(np.float64)
            values[i] = float(corruption)
    given = values
    if encoding == "list":
        given = list(values)
    elif encoding == "series":
        given = pd.Series(values, name="target")
    return Arg(given, canonical, frozenset(corrupt), frozenset(stress), True, note)


# --------------------------------------------------------------------------------------------
# group labels (sensitive features, domains, classes)


def label_rank(value):
    """The documented order of labels: numbers by value first, then strings."""
    if isinstance(value, (bool, np.bool_, Number)) and not isinstance(value, complex):
        return (0, float(value), "")
    return (1, 0.0, str(value))


LABEL_KINDS = ("int", "float", "str", "mixed", "bool")
CONTAINERS = ("ndarray", "list", "series", "category", "float32")


@st.composite
def label_table(draw, n_groups, kind):
    """``n_groups`` distinct labels of one kind (distinct as krepro compares them)."""
    ints = st.integers(-(10**6), 10**6) | st.sampled_from([0, 1, 2**53 + 1, -(2**62)])
    floats = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
    texts = st.text(alphabet="ab1 éM_", max_size=5)
    if kind == "bool":
        return [False, True][:n_groups] if n_groups <= 2 else None
    if kind == "int":
        element = ints
    elif kind == "float":
        element = floats
    elif kind == "str":
        element = texts
    else:  # mixed: numbers and strings (at least one of each when there are two groups)
        numbers = draw(st.integers(1, max(1, n_groups - 1)))
        head = draw(st.lists(ints, min_size=numbers, max_size=numbers, unique=True))
        tail = draw(
            st.lists(texts, min_size=n_groups - numbers, max_size=n_groups - numbers, unique=True)
        )
        return head + tail
    return draw(st.lists(element, min_size=n_groups, max_size=n_groups, unique_by=label_rank))


def codes_of(values):
    """Codes of ``values`` (a list) in sorted-label order."""
    distinct = sorted(set(map(label_rank, values)))
    index = {key: code for code, key in enumerate(distinct)}
    return np.array([index[label_rank(v)] for v in values], dtype=np.int64)


def _container(values, container, name):
    """``values`` (a Python list of labels) in a drawn container."""
    if container == "list":
        return list(values)
    if container == "series":
        return pd.Series(values, dtype=object, name=name)
    if container == "category":
        return pd.Series(values, name=name).astype("category")
    if container == "float32":
        return np.asarray(values, dtype=np.float32)
    array = np.empty(len(values), dtype=object)
    array[:] = values
    kinds = {type(v) for v in values}
    if all(issubclass(k, str) for k in kinds):
        return array.astype(str)
    if all(issubclass(k, (bool, np.bool_)) for k in kinds):
        return array.astype(bool)
    if all(issubclass(k, (int, np.integer)) for k in kinds) and all(
        abs(int(v)) < 2**62 for v in values
    ):
        return array.astype(np.int64)
    if all(issubclass(k, (float, int)) for k in kinds) and not any(
        isinstance(v, int) and abs(v) > 2**53 for v in values
    ):
        return array.astype(np.float64)
    return array


@st.composite
def groups(draw, codes, name, bad=False, *, kinds=LABEL_KINDS):
    """Labels of the groups ``codes`` (0..G-1) in a drawn kind and container.

    Returns ``(Arg, table, container)``: the canonical value is the code of each label in
    sorted-label order; ``table[g]`` is the label of group ``g`` (reused for predict-time
    labels). ``bad``: one label missing (None or NaN), or one label short.
    """
    n_groups = int(codes.max()) + 1
    kind = draw(st.sampled_from([k for k in kinds if k != "bool" or n_groups <= 2]))
    table = draw(label_table(n_groups, kind))
    container = draw(st.sampled_from(CONTAINERS if kind == "float" else CONTAINERS[:-1]))
    if container == "float32":
        table = list(np.unique(np.asarray(table, dtype=np.float32)).astype(float))
        if len(table) < n_groups:
            container, table = "ndarray", draw(label_table(n_groups, "int"))
    arg = labels_of(codes, table, name, container)
    if bad:
        corruption = draw(st.sampled_from(("missing", "nan", "short")))
        arg = corrupt_labels(arg, corruption, name, draw(st.integers(0, len(codes) - 1)))
    return arg, table, container


def labels_of(codes, table, name, container):
    """Labels ``table[codes]``; canonical: their codes in the sorted order of ``table``."""
    values = [table[c] for c in codes]
    given = _container(values, container, name)
    note = f"{container} of {sorted({type(v).__name__ for v in values})} {table!r}"
    return Arg(given, codes_of(table)[codes], note=note)


def corrupt_labels(arg, corruption, name, row):
    """``arg`` with a missing label (None / NaN) in ``row``, or one label short."""
    given = arg.given
    if corruption == "short":
        given = given[:-1] if not isinstance(given, pd.Series) else given.iloc[:-1]
    else:
        missing = None if corruption == "missing" else np.nan
        if isinstance(given, pd.Series):
            given = given.astype(object).copy()
            given.iloc[row] = missing
        else:
            given = np.array(list(given), dtype=object)
            given[row] = missing
    note = f"{arg.note} with {corruption} at {row}"
    return Arg(given, arg.canonical, frozenset({name}), arg.stress, arg.exact, note)


QUERY_CORRUPTIONS = ("unseen", "unseen", "missing", "nan", "short")


@st.composite
def predict_groups(
    draw,
    codes,
    table,
    container,
    name,
    bad=False,
    corruptions=("unseen", "missing", "nan", "short"),
):
    """Predict-time labels of the fitted ``table``; ``bad``: unseen, missing or short."""
    arg = labels_of(codes, table, name, container)
    if not bad:
        return arg
    corruption = draw(st.sampled_from(corruptions))
    row = draw(st.integers(0, len(codes) - 1))
    if corruption != "unseen":
        return corrupt_labels(arg, corruption, name, row)
    fitted = {label_rank(v) for v in table}
    candidates = [v for v in (-7, 1, "1", "unseen", 0.25, True) if label_rank(v) not in fitted]
    values = [table[c] for c in codes]
    values[row] = draw(st.sampled_from(candidates))
    given = _container(values, "list" if container == "float32" else container, name)
    note = f"{arg.note} with unseen {values[row]!r} at {row}"
    return Arg(given, arg.canonical, frozenset({name}), note=note)


@st.composite
def group_codes(draw, n, n_groups=None, min_groups=1, max_groups=4, every=True):
    """Codes ``0..G-1`` of ``n`` samples; with ``every`` each group occurs."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    G = n_groups or draw(st.integers(min_groups, min(max_groups, n)))
    codes = rng.integers(0, G, n)
    if every:
        codes[:G] = rng.permutation(G)
    return codes


# --------------------------------------------------------------------------------------------
# continuous sensitive features


@st.composite
def continuous(
    draw, n, d, name="sensitive_features", bad=False, corruptions=("nan", "inf", "string", "short")
):
    """Points of the box ``[0, 1]^d`` (a 1-d array when ``d == 1`` sometimes).

    ``bad``: a NaN, an infinity or a string in one entry, or one row short.
    """
    low, high = 0.0, 1.0
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    values = rng.uniform(low, high, size=(n, d))
    if draw(st.booleans()):
        values[0] = high  # the upper boundary belongs to the last cell
    corruption = draw(st.sampled_from(corruptions)) if bad else "none"
    given = values[:, 0] if d == 1 and draw(st.booleans()) else values
    canonical = values.copy()
    if corruption == "none":
        return Arg(given, canonical, note=f"uniform [{low}, {high}]^{d}")
    row = draw(st.integers(0, n - 1))
    given = given.astype(object) if corruption == "string" else given.copy()
    if corruption == "short":
        given = given[:-1]
    elif given.ndim == 1:
        given[row] = "a" if corruption == "string" else float(corruption)
    else:
        given[row, 0] = "a" if corruption == "string" else float(corruption)
    return Arg(given, canonical, frozenset({name}), note=f"with {corruption} at {row}")
