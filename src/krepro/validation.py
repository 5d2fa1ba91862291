r"""Validation and encoding of group labels: sensitive features, domains, class-like labels.

Every estimator of :mod:`krepro` that groups samples by a label (the finite-valued sensitive
feature of the oblivious features and of FERM, the domains of DCM/DICA, the delta kernel)
goes through this module, so that one set of rules holds everywhere:

* **Any hashable labels**: numbers, booleans, strings (``str`` or numpy ``<U``), pandas
  categorical or object Series and DataFrames; 1-d, or 2-d where every row is one label
  (multi-column finite sensitive features).
* **Encoded once at fit and stored.** :class:`GroupEncoder` learns the distinct labels (rows)
  and maps any later labels to the same integer codes. Groups are ordered by value (numbers
  first, by value; then strings, alphabetically), so numeric codes keep their order and
  ``"Female" < "Male"``.
* **The same encoding at predict time.** A label never seen in ``fit`` is a ``ValueError``
  listing the offending values (never an empty cell); so is a missing label (NaN, None,
  ``pd.NA``).
* **Numbers are compared as numbers.** ``1``, ``1.0``, ``np.float32(1)`` and ``True`` are one
  label; ``"1"`` is another. Floats are compared at the lower of the two precisions
  involved, so labels fitted as float64 and given as float32 (or the reverse) are found.

Continuous sensitive features (dyadic partitions, kernel estimators of
:math:`E[\varphi(X)\mid S]`) are numbers, not labels: :func:`check_continuous` returns them
as a finite float array.

Why not :class:`sklearn.preprocessing.OrdinalEncoder`: it treats NaN as one more category,
compares a float32 query bit for bit with float64 categories, and its errors name
"column 0" rather than the parameter.

Kernel parameters that do not go through an estimator's ``_parameter_constraints`` (the
entries of a ``kernel_params`` dict) are checked by :func:`check_kernel_params`, and
:data:`POSITIVE_FINITE` is the constraint of every kernel width and regulariser.

``X`` and ``y`` go through :func:`validate_data`, scikit-learn's function whose errors always
name the input they are about: some of scikit-learn's messages do not ("could not convert
string to float: 'a'", "Found input variables with inconsistent numbers of samples"), and
:func:`errors_naming` does the same for other checks (scikit-learn's target types).
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from numbers import Number, Real

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_array
from sklearn.utils.validation import validate_data as _sklearn_validate_data

__all__ = [
    "POSITIVE_FINITE",
    "GroupEncoder",
    "check_class_labels",
    "check_continuous",
    "check_kernel_params",
    "check_not_given",
    "check_sensitive_features",
    "check_values",
    "diagonal_load",
    "encode_labels",
    "errors_naming",
    "label_codes",
    "stack_labels",
    "validate_data",
]

_SHOWN = 10  # values listed in an error message

NOT_FITTED_WITH = (
    "{name} given, but the model was fitted without {name} (one group): a model fitted "
    "without {name} cannot use them. Refit with {name}, or leave them out here."
)


def _preview(values):
    values = list(values)
    shown = ", ".join(repr(v) for v in values[:_SHOWN])
    more = f", ... ({len(values)} in all)" if len(values) > _SHOWN else ""
    return f"[{shown}{more}]"


def _as_array(labels):
    """``labels`` as an ndarray; pandas objects keep their values (categories decoded)."""
    if isinstance(labels, (pd.DataFrame, pd.Series, pd.Index)):
        return labels.to_numpy()
    array = np.asarray(labels)
    if array.dtype.kind == "U" and not isinstance(labels, np.ndarray):
        # np.asarray([1, "a"]) silently turns 1 into "1": keep mixed lists as objects.
        objects = np.asarray(labels, dtype=object)
        if not all(isinstance(v, str) for v in objects.ravel()):
            return objects
    if array.dtype.kind == "f" and not isinstance(labels, np.ndarray):
        # np.asarray([2**53 + 1, 0.5]) rounds 2**53 + 1 to 2**53: keep such lists as objects.
        objects = np.asarray(labels, dtype=object)
        if any(_exact_only(v) for v in objects.ravel()):
            return objects
    return array


def _beyond_float(array):
    """Whether an integer array holds values float64 cannot represent exactly."""
    return bool(array.size) and max(abs(int(array.max())), abs(int(array.min()))) > 2**53


def _exact_only(value):
    """An integer that float64 cannot hold exactly (beyond 2**53)."""
    return (
        isinstance(value, (int, np.integer))
        and not isinstance(value, bool)
        and (abs(int(value)) > 2**53)
    )


def _missing(column):
    if column.dtype.kind == "f":
        return np.isnan(column)
    if column.dtype.kind in "OMm":
        return np.asarray(pd.isna(column), dtype=bool)
    return np.zeros(column.shape, dtype=bool)


def check_sensitive_features(
    sensitive_features, n_samples=None, *, name="sensitive_features", none_is_one_group=False
):
    """Return labels as a 2-d array with one row per sample; missing values are an error.

    Parameters
    ----------
    sensitive_features : array-like of shape (n_samples,) or (n_samples, d)
        Labels of any hashable type, pandas Series/DataFrame included. Values are not
        converted: strings stay strings and numbers stay numbers.
    n_samples : int, optional
        Required number of rows.
    name : str, default="sensitive_features"
        Parameter name used in error messages.
    none_is_one_group : bool, default=False
        ``True``: ``None`` stands for a single group, returned as zeros of shape
        ``(n_samples, 1)`` (for estimators whose sensitive features are optional).

    Returns
    -------
    S : ndarray of shape (n_samples, d)
    """
    if sensitive_features is None and none_is_one_group:
        if n_samples is None:
            raise ValueError(f"{name}=None needs the number of samples.")
        return np.zeros((n_samples, 1))
    S = _as_array(sensitive_features)
    if S.ndim == 1:
        S = S[:, None]
    if S.ndim != 2:
        raise ValueError(f"{name} must be a 1-d or 2-d array, got shape {S.shape}.")
    if n_samples is not None and S.shape[0] != n_samples:
        raise ValueError(
            f"{name} must have one entry per sample: expected {n_samples} rows, got "
            f"shape {S.shape}."
        )
    if S.shape[1] == 0:
        raise ValueError(f"{name} has no columns (shape {S.shape}).")
    missing = _missing(S)
    if missing.any():
        rows = np.flatnonzero(missing.any(axis=1))
        raise ValueError(
            f"{name} contains missing values (NaN or None) in {len(rows)} row(s), e.g. row "
            f"{int(rows[0])}; every sample needs a label."
        )
    return S


def check_continuous(S, n_samples=None, *, name="sensitive_features"):
    """Continuous sensitive features as a finite 2-d float64 array.

    For dyadic partitions and kernel estimators of :math:`E[\\varphi(X)\\mid S]`, where S is a
    point of :math:`\\mathbb R^d` rather than a label.
    """
    S = check_sensitive_features(S, n_samples, name=name)
    try:
        return check_array(S, dtype=np.float64, input_name=name, ensure_min_samples=1)
    except (TypeError, ValueError) as error:
        if "NaN" in str(error) or "infinity" in str(error):
            raise
        raise ValueError(
            f"{name} must be numeric here (a point of R^d for a dyadic partition or a kernel "
            f"on S), got values such as {_preview(S[:3, 0].tolist())}: {error}"
        ) from error


def _column_kind(column):
    """Kind of a label column: ``"number"``, ``"string"`` or ``"object"``, and its values.

    Numbers are returned as float64 with the float precision they came in
    (``np.float64`` for integers and booleans).
    """
    kind = column.dtype.kind
    if kind in "biu" and not (kind in "iu" and column.size and np.abs(column).max() > 2**53):
        return "number", column.astype(np.float64), np.dtype(np.float64)
    if kind == "f":
        return "number", column.astype(np.float64), column.dtype
    if kind == "U":
        return "string", column, None
    column = column.astype(object)
    if all(isinstance(v, str) for v in column):
        return "string", column.astype(str), None
    if all(isinstance(v, Number) and not isinstance(v, complex) for v in column) and not any(
        isinstance(v, (int, np.integer)) and abs(int(v)) > 2**53 for v in column
    ):  # float64 would merge distinct large integers (e.g. 64-bit ids): keep those exact
        return "number", column.astype(np.float64), np.dtype(np.float64)
    return "object", column, None


def _sort_key(value):
    if isinstance(value, Number) and not isinstance(value, complex):
        return (0, float(value), "")
    if isinstance(value, str):
        return (1, 0.0, value)
    return (2, 0.0, f"{type(value).__qualname__}:{value!r}")


def _lower_precision(a, b):
    return a if a.itemsize <= b.itemsize else b


class GroupEncoder:
    """Integer codes ``0..n_groups_-1`` of labels (rows), learnt once and reused.

    Parameters
    ----------
    name : str, default="sensitive_features"
        Parameter name used in error messages.
    multi_column : bool, default=True
        Accept 2-d labels (each row one label); otherwise only 1-d or one column.

    Attributes
    ----------
    categories_ : list of ndarray
        Distinct values of each column, sorted (numbers by value, then strings).
    groups_ : ndarray of shape ``(n_groups_, n_columns_)``
        Distinct rows, in code order (lexicographic in the column orders).
    n_groups_ : int
    n_columns_ : int
    kinds_ : list of str
        ``"number"``, ``"string"`` or ``"object"`` (mixed types) per column.
    precisions_ : list of numpy.dtype or None
        Float precision of each number column (float64 for integers), for the comparison.
    column_sizes_ : tuple of int
        Number of distinct values per column.
    group_keys_ : ndarray of int
        Flat (row-major) index of each group's column codes, sorted.

    Examples
    --------
    >>> from krepro.validation import GroupEncoder
    >>> encoder = GroupEncoder().fit(["Male", "Female", "Male"])
    >>> encoder.transform(["Female", "Male"]).tolist()
    [0, 1]
    """

    def __init__(self, name="sensitive_features", multi_column=True):
        self.name = name
        self.multi_column = multi_column

    def _check(self, labels, n_samples=None):
        S = check_sensitive_features(labels, n_samples, name=self.name)
        if not self.multi_column and S.shape[1] != 1:
            raise ValueError(
                f"{self.name} must be 1-d (one label per sample), got shape {S.shape}."
            )
        return S

    def fit(self, labels, n_samples=None):
        """Learn the distinct labels (rows) of ``labels``."""
        self.fit_transform(labels, n_samples)
        return self

    def fit_transform(self, labels, n_samples=None):
        """Learn the distinct labels and return the code of every row."""
        S = self._check(labels, n_samples)
        if S.shape[0] == 0:
            raise ValueError(f"{self.name} is empty: at least one label is needed in fit.")
        self.n_columns_ = S.shape[1]
        self.kinds_, self.precisions_, self.categories_ = [], [], []
        column_codes = np.empty(S.shape, dtype=np.int64)
        for j in range(S.shape[1]):
            kind, values, precision = _column_kind(S[:, j])
            if kind == "object":
                try:
                    codes, uniques = pd.factorize(values, sort=False)
                except TypeError as error:
                    raise ValueError(f"{self.name} must hold hashable labels: {error}") from error
                order = sorted(range(len(uniques)), key=lambda k: _sort_key(uniques[k]))
                categories = np.empty(len(uniques), dtype=object)
                categories[:] = [uniques[k] for k in order]
                rank = np.empty(len(order), dtype=np.int64)
                rank[order] = np.arange(len(order))
                codes = rank[codes]
            else:
                categories, codes = np.unique(values, return_inverse=True)
            self.kinds_.append(kind)
            self.precisions_.append(precision)
            self.categories_.append(categories)
            column_codes[:, j] = codes.reshape(-1)
        self.column_sizes_ = tuple(len(c) for c in self.categories_)
        keys = np.ravel_multi_index(tuple(column_codes.T), self.column_sizes_)
        self.group_keys_, codes = np.unique(keys, return_inverse=True)
        self.n_groups_ = len(self.group_keys_)
        group_codes = np.unravel_index(self.group_keys_, self.column_sizes_)
        columns = [self.categories_[j][group_codes[j]] for j in range(self.n_columns_)]
        same = len({c.dtype for c in columns}) == 1
        self.groups_ = np.column_stack(columns if same else [c.astype(object) for c in columns])
        return codes.reshape(-1)

    def _column_codes(self, j, column):
        """Code of every value of one query column in the fitted column ``j``; -1 if unseen."""
        kind, values, precision = _column_kind(column)
        categories, fitted_kind = self.categories_[j], self.kinds_[j]
        if kind == fitted_kind == "number":
            common = _lower_precision(precision, self.precisions_[j])
            reference = categories.astype(common)
            if len(np.unique(reference)) != len(reference):
                raise ValueError(
                    f"{self.name}: the labels seen in fit cannot be told apart at {common} "
                    f"precision; give {self.name} with the precision used in fit."
                )
            values = values.astype(common)
        elif kind == fitted_kind == "string":
            reference = categories
        else:
            lookup = {v: k for k, v in enumerate(categories.tolist())}
            codes, uniques = pd.factorize(values.astype(object), sort=False)
            found = np.array([lookup.get(v, -1) for v in uniques.tolist()], dtype=np.int64)
            return found[codes] if len(found) else np.zeros(0, dtype=np.int64)
        index = np.minimum(np.searchsorted(reference, values), len(reference) - 1)
        return np.where(reference[index] == values, index, -1)

    def transform(self, labels, n_samples=None, *, unknown="error"):
        """Codes of the rows of ``labels``.

        Parameters
        ----------
        labels : array-like of shape ``(n,)`` or ``(n, n_columns_)``
        n_samples : int, optional
            Required number of rows.
        unknown : {"error", "ignore"}, default="error"
            ``"error"``: a label never seen in :meth:`fit` is a ``ValueError`` listing the
            unseen values; ``"ignore"``: its code is -1.

        Returns
        -------
        codes : ndarray of int of shape (n,)
        """
        S = self._check(labels, n_samples)
        if S.shape[1] != self.n_columns_:
            raise ValueError(
                f"{self.name} has {S.shape[1]} column(s), but {self.n_columns_} were seen in fit."
            )
        column_codes = np.column_stack(
            [self._column_codes(j, S[:, j]) for j in range(self.n_columns_)]
        )
        known = np.all(column_codes >= 0, axis=1)
        keys = np.ravel_multi_index(
            tuple(np.where(known[:, None], column_codes, 0).T), self.column_sizes_
        )
        index = np.minimum(np.searchsorted(self.group_keys_, keys), self.n_groups_ - 1)
        known &= self.group_keys_[index] == keys
        codes = np.where(known, index, -1)
        if unknown == "error" and not known.all():
            rows = S[~known]
            unseen = pd.unique(
                pd.Series(
                    [row[0] if self.n_columns_ == 1 else tuple(row) for row in rows.tolist()],
                    dtype=object,
                )
            )
            seen = [g[0] if self.n_columns_ == 1 else tuple(g) for g in self.groups_.tolist()]
            raise ValueError(
                f"{self.name} has value(s) never seen in fit: {_preview(unseen)} "
                f"({int((~known).sum())} row(s)). Values seen in fit: {_preview(seen)}. "
                "Labels are compared by value: 1 and 1.0 are one label, 1 and '1' are two."
            )
        return codes


def encode_labels(labels, n_samples=None, *, name="labels", multi_column=True):
    """Fit a :class:`GroupEncoder` and return ``(codes, encoder)``."""
    encoder = GroupEncoder(name=name, multi_column=multi_column)
    codes = encoder.fit_transform(labels, n_samples)
    return codes, encoder


def label_codes(labels, *, name="labels"):
    """Integer codes ``0..G-1`` of the distinct values (rows) of ``labels``, ordered by value."""
    return encode_labels(labels, name=name)[0]


#: Parameter constraint of a kernel width, a regulariser or a tolerance: a real number in
#: :math:`(0, \infty)`. The open right end refuses ``np.inf`` (and NaN fails every
#: comparison), so NaN, infinities, zero, negative numbers and strings are all refused with
#: scikit-learn's ``InvalidParameterError`` naming the parameter.
POSITIVE_FINITE = Interval(Real, 0, None, closed="neither")

# What the numeric entries of a kernel_params dict must be (others: any finite number).
_KERNEL_PARAM_RANGES = {
    "gamma": ("> 0", lambda v: v > 0),
    "length_scale": ("> 0", lambda v: v > 0),
    "degree": ("(an integer >= 0)", lambda v: v >= 0 and float(v).is_integer()),
}


def check_kernel_params(kernel_params, *, name="kernel_params"):
    """A copy of ``kernel_params`` whose values are finite numbers; ``None`` gives ``{}``.

    ``gamma`` and ``length_scale`` must be > 0 and ``degree`` an integer >= 0. The estimators' own
    ``gamma``, ``degree``, ``coef0`` are checked by their ``_parameter_constraints``; the
    entries of the dict are not, and an infinite or negative width there would silently
    give a constant or exploding kernel. Which names a kernel accepts is checked by
    :func:`krepro.kernels.gram`.

    Raises
    ------
    TypeError
        If ``kernel_params`` is not a dict (or None) or a key is not a string.
    ValueError
        If a value is not a finite number in its range, naming ``name[key]``.
    """
    if kernel_params is None:
        return {}
    if not isinstance(kernel_params, dict):
        raise TypeError(f"{name} must be a dict or None, got {kernel_params!r}.")
    for key, value in kernel_params.items():
        if not isinstance(key, str):
            raise TypeError(f"{name} keys must be parameter names (str), got {key!r}.")
        text, in_range = _KERNEL_PARAM_RANGES.get(key, ("", lambda v: True))
        number = isinstance(value, Real) and not isinstance(value, bool)
        if not (number and np.isfinite(value) and in_range(value)):
            expected = f"a finite number {text}".rstrip()
            raise ValueError(f"{name}[{key!r}] must be {expected}, got {value!r}.")
    return dict(kernel_params)


def check_not_given(value, name):
    """Raise when ``name`` is passed to a model that was fitted without it."""
    if value is not None:
        raise ValueError(NOT_FITTED_WITH.format(name=name))


def stack_labels(A, B):
    """Rows of the 2-d label arrays ``A`` then ``B``, without converting numbers to strings.

    ``np.concatenate`` of a number and a string array turns the numbers into strings, and of
    an integer and a float array rounds integers beyond 2**53; here those are stacked as
    objects.
    """
    numeric = A.dtype.kind in "biuf" and B.dtype.kind in "biuf"
    if numeric and "f" in A.dtype.kind + B.dtype.kind:
        # integers beyond 2**53 would be rounded to float64: stack them as objects
        numeric = not any(C.dtype.kind in "iu" and _beyond_float(C) for C in (A, B))
    if numeric or (A.dtype.kind == B.dtype.kind == "U"):
        return np.concatenate([A, B])
    return np.concatenate([A.astype(object), B.astype(object)])


# --------------------------------------------------------------------------------------------
# X and y: scikit-learn's validation, with errors that name the input


def _names(message, name):
    """Whether ``message`` names ``name`` as a word (``X`` in "Input X contains NaN")."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) is not None


def _renamed(error, message):
    """``error`` with ``message``, of the same type where that type takes a message alone."""
    try:
        renamed = type(error)(message)
    except Exception:  # an exception type with another signature
        renamed = (ValueError if isinstance(error, ValueError) else TypeError)(message)
    return renamed if isinstance(renamed, (ValueError, TypeError)) else ValueError(message)


@contextmanager
def errors_naming(name):
    """Re-raise a ``ValueError`` or ``TypeError`` whose message does not name ``name``
    with ``"{name}: "`` in front (same type, the original as its cause)."""
    try:
        yield
    except (ValueError, TypeError) as error:
        if _names(str(error), name):
            raise
        raise _renamed(error, f"{name}: {error}") from error


def _given(value):
    return not (isinstance(value, str) and value == "no_validation")


def validate_data(estimator, X="no_validation", y="no_validation", **check_params):
    """:func:`sklearn.utils.validation.validate_data`, whose errors name ``X`` or ``y``.

    A ``ValueError`` or ``TypeError`` naming neither input is re-raised (same type, the
    original as its cause) with the input in front: ``"X: could not convert string to
    float: 'a'"``, ``"y: Input contains NaN"``, ``"X and y: Found input variables with
    inconsistent numbers of samples: [10, 9]"``. When both are given, the input at fault is
    found by checking ``X`` alone (only on this error path). With ``y_numeric=True``, a ``y``
    that numpy turned into strings (a list mixing numbers and text) is converted to float64
    as scikit-learn converts an object ``y``: text that is no number is an error naming ``y``.
    """
    try:
        validated = _sklearn_validate_data(estimator, X, y, **check_params)
        if check_params.get("y_numeric") and _given(X) and _given(y):
            X_valid, y_valid = validated
            if y_valid.dtype.kind in "US":
                with errors_naming("y"):
                    y_valid = y_valid.astype(np.float64)
                validated = X_valid, y_valid
        return validated
    except (ValueError, TypeError) as error:
        given = [name for name, value in (("X", X), ("y", y)) if _given(value)]
        message = str(error)
        if not given or any(_names(message, name) for name in given):
            raise
        if len(given) == 1:
            culprit = given[0]
        elif "inconsistent numbers of samples" in message:
            culprit = "X and y"
        else:
            culprit = "X" if _fails(X, check_params) else "y"
        raise _renamed(error, f"{culprit}: {message}") from error


def check_class_labels(y, *, name="y"):
    """Refuse class labels that mix strings and numbers, before numpy sees them.

    ``np.asarray(["", 1])`` (what scikit-learn's input checks do to a list or an object
    array) turns the number into the string ``"1"``: the classes would change type and
    order (``"1"`` before ``"a"`` as strings, ``1`` before ``"a"`` as labels here). The
    classifiers of :mod:`krepro` take labels of one type, as scikit-learn's do.
    """
    if y is None:
        return
    labels = _as_array(y)
    if labels.dtype.kind == "O":
        present = [v for v in labels.ravel().tolist() if v is not None and v == v]  # not NaN
        kinds = {isinstance(v, str) for v in present}
        if len(kinds) > 1:
            raise ValueError(
                f"{name} mixes strings and numbers (e.g. 0 and 'yes'): the classes must be of "
                "one type, as in scikit-learn."
            )


def check_values(values, n_samples, *, name="values"):
    """Real values :math:`h(x_v)` on ``n_samples`` points: finite float64, shape (m,) or (m, k).

    For the ``conditional_mean(values, S)`` of the conditional-mean estimators: NaN,
    infinity, strings or another number of rows are errors naming ``name``.
    """
    with errors_naming(name):
        values = check_array(values, ensure_2d=False, dtype=np.float64, input_name=name)
    if values.shape[0] != n_samples:
        raise ValueError(
            f"{name} must have one row per estimation point ({n_samples}), got shape "
            f"{values.shape}."
        )
    return values


def diagonal_load(n, regulariser, name):
    """``n * regulariser``, the diagonal load of a ridge system; an overflow names it."""
    with np.errstate(over="ignore"):
        load = n * np.float64(regulariser)
    if not np.isfinite(load):
        raise ValueError(
            f"{name} = {regulariser:g} times the {n} samples overflows float64 (the diagonal "
            f"load of the ridge system); choose a smaller {name}."
        )
    return load


def _fails(X, check_params):
    """Whether ``X`` alone fails the checks ``validate_data`` made with ``check_params``."""
    keys = ("accept_sparse", "dtype", "order", "ensure_2d", "allow_nd", "ensure_min_samples")
    try:
        check_array(X, **{k: check_params[k] for k in keys if k in check_params})
    except (ValueError, TypeError):
        return True
    return False
