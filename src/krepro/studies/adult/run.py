r"""Table 1 of the oblivious-data paper: SVM, FERM and oblivious SVM on UCI Adult (§7.1).

Every method selects its hyper-parameters by 5-fold cross-validated accuracy on the training
set (``StratifiedKFold(5)`` without shuffling, as ``GridSearchCV`` does for a classifier) and
is refitted on the whole training set; the test set gives the mean prediction error, DEO,
:math:`e_\beta` (Table-1 convention, no ½; :mod:`krepro.metrics`) and the positive rate of
the predictions (share of +1; a classifier predicting one class has DEO = e_β = 0 trivially).

Cross-validation is a manual loop (not ``GridSearchCV``): the sensitive feature is sliced with
the fold's rows for FERM (the FERM reference misaligns it), and the plain, oblivious and
kernel-FERM Gram matrices are computed once per γ and sliced per fold (as ``GridSearchCV``
does with a precomputed kernel; kernel FERM through ``FERMClassifier(kernel="precomputed")``).

Methods (``METHODS``): the SVM (``sklearn.svm.SVC``), linear FERM in closed form
(:class:`~krepro.fairness.ferm.LinearFERM`), kernel FERM
(:class:`~krepro.fairness.ferm.FERMClassifier`; linear and RBF kernels) in the formulation the
paper ran, Donini et al.'s eq. (14) (``formulation="donini"``), and, beyond the paper, the
exact dual of the same constrained primal (``formulation="exact"``, ``ferm_rbf_exact``,
``ferm_linear_exact``; never a higher primal objective), the oblivious SVM
(``SVC(kernel="precomputed")`` on the oblivious Gram of
:class:`~krepro.fairness.oblivious.ObliviousKernel`) and the M-oblivious SVM (SVM on the plain
kernel, applied to oblivious test features). The paper does not describe its oblivious SVM on
Adult; this is a reconstruction: S = 1{male}; the first half of the training rows are the
learner's points, the second half estimate the conditional means; gender removed from the
oblivious SVM's input (``oblivious_drop_sensitive``).

Linear solver (protocol option ``linear_solver``, :data:`LINEAR_SOLVERS`): ``"libsvm"``
(default; the FERM repository's solver, kept by the ``reference`` protocol) or ``"exact"``,
the same C-SVM problems :math:`\min_{w,b} \tfrac12\lVert w\rVert^2 + C\sum_i \max(0, 1 -
y_i(\langle w, z_i\rangle + b))` solved to optimality (relative duality gap 1e-10) by
``LinearHingeSVC(solver="ipm")`` (:class:`~krepro.fairness.linear_svc.LinearHingeSVC`)
instead of by SMO to libsvm's KKT tolerance of 1e-3 (slow at the grid's large C; ≈ 6× the
CPU time of these rows on the paper grid): the linear SVM on X (``svm_linear``), linear
FERM on its projected features (``LinearFERM(solver="exact")``), and the oblivious /
M-oblivious linear SVMs on a factor :math:`Z` of their Gram matrix (rank ≤ features + 1,
:func:`~krepro.fairness.linear_svc.gram_factor`; a fold's SVM on the Gram block
:math:`K_{tr,tr} = Z_{tr} Z_{tr}^\top` is the linear SVM on the rows :math:`Z_{tr}`, and its
validation decisions :math:`K_{va,tr}\beta = Z_{va} w`). The kernel-FERM rows
(``ferm_linear_qp``, ``ferm_linear_exact``) and the RBF rows are unaffected.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.svm import SVC

from krepro.data.adult import load_adult
from krepro.fairness.ferm import FERMClassifier, LinearFERM
from krepro.fairness.linear_svc import LinearHingeSVC, gram_factor
from krepro.fairness.oblivious import ObliviousKernel
from krepro.kernels import gram
from krepro.metrics import beta_dependence, equal_opportunity_difference, misclassification_rate
from krepro.records import write_records
from krepro.studies.selection import cross_validated_choice, grid_candidates

__all__ = [
    "FERM_FORMULATIONS",
    "LINEAR_SOLVERS",
    "METHODS",
    "METHOD_LABELS",
    "METHOD_OPTIONS",
    "TABLE1_ROW",
    "fit",
    "run_method",
    "split_seed",
]

# name: (Table-1 row label, kernel, family)
METHODS = {
    "svm_linear": ("SVM (Linear)", "linear", "svm"),
    "ferm_linear": ("FERM (Linear)", "linear", "linear_ferm"),
    "ferm_linear_qp": ("FERM (Linear kernel, QP)", "linear", "ferm"),
    "ferm_linear_exact": ("FERM exact (Linear kernel)", "linear", "ferm_exact"),
    "oblivious_linear": ("Oblivious (Linear)", "linear", "oblivious"),
    "m_oblivious_linear": ("M-Oblivious (Linear)", "linear", "m_oblivious"),
    "svm_rbf": ("SVM (RBF)", "rbf", "svm"),
    "ferm_rbf": ("FERM (RBF)", "rbf", "ferm"),
    "ferm_rbf_exact": ("FERM exact (RBF)", "rbf", "ferm_exact"),
    "oblivious_rbf": ("Oblivious (RBF)", "rbf", "oblivious"),
    "m_oblivious_rbf": ("M-Oblivious (RBF)", "rbf", "m_oblivious"),
    "ferm_rbf_misaligned": ("FERM (RBF), reference CV misalignment", "rbf", "ferm"),
    "oblivious_rbf_gender": ("Oblivious (RBF), gender in X", "rbf", "oblivious"),
}
METHOD_LABELS = {name: spec[0] for name, spec in METHODS.items()}
# Variant methods: a Table-1 row run with one option of the protocol changed; a variant
# reading (``adult.variants``) judges the row's claims on the variant instead of the row.
METHOD_OPTIONS = {
    # The FERM reference passes the sensitive column to the constructor and indexes it by
    # position inside each cross-validation fold: the groups of the fold's training rows
    # are those of the first rows of the training set (the refit on all rows is aligned).
    "ferm_rbf_misaligned": {"ferm_cv_groups": "misaligned"},
    "oblivious_rbf_gender": {"oblivious_drop_sensitive": False},
}
TABLE1_ROW = {"ferm_rbf_misaligned": "ferm_rbf", "oblivious_rbf_gender": "oblivious_rbf"}
# FERMClassifier formulation of each kernel-FERM family: the paper's Table 1 ran Donini et
# al.'s eq. (14); the exact dual of the same primal is an extension.
FERM_FORMULATIONS = {"ferm": "donini", "ferm_exact": "exact"}
#: Solvers of the linear SVM, linear FERM and linear (M-)oblivious SVM rows (module docstring).
LINEAR_SOLVERS = ("libsvm", "exact")


def _estimator(family, kernel, C, gamma, options):
    if family == "svm":
        return SVC(kernel=kernel, C=C, gamma=gamma if gamma is not None else "scale")
    if family == "linear_ferm":
        return LinearFERM(
            C=C, selection=options["linear_ferm_selection"], solver=options["linear_solver"]
        )
    return FERMClassifier(
        kernel=kernel,
        C=C,
        gamma=gamma if gamma is not None else "scale",
        intercept=options["ferm_intercept"],
        formulation=FERM_FORMULATIONS[family],
    )


def _precomputed_svm(grams, y, grid, kernel, n_folds):
    """``SVC(kernel="precomputed")`` on training Gram matrices ``{γ: G}``, sliced per fold.

    Returns the cross-validated (C, γ), its accuracy and the SVM refitted on all rows.
    """

    def fit(candidate, rows):
        C, gamma = candidate
        return SVC(kernel="precomputed", C=C).fit(grams[gamma][np.ix_(rows, rows)], y[rows])

    def fit_predict(candidate, tr, va):
        return fit(candidate, tr).predict(grams[candidate[1]][np.ix_(va, tr)])

    choice, cv_accuracy, _ = cross_validated_choice(
        grid_candidates(grid, kernel), fit_predict, y, n_folds
    )
    return choice, cv_accuracy, fit(choice, np.arange(len(y)))


def _exact_linear_svm(Z, y, grid, n_folds):
    r""":class:`~krepro.fairness.linear_svc.LinearHingeSVC` on features ``Z``, sliced per fold.

    The linear SVM of ``_precomputed_svm`` on the Gram matrix :math:`ZZ^\top` (its fold
    block :math:`Z_{tr}Z_{tr}^\top` and validation block :math:`Z_{va}Z_{tr}^\top`), solved
    to optimality. Returns the cross-validated (C, None), its accuracy and the SVM refitted
    on all rows.
    """

    def fit(candidate, rows):
        return LinearHingeSVC(C=candidate[0], solver="ipm", tol=1e-10).fit(Z[rows], y[rows])

    def fit_predict(candidate, tr, va):
        return fit(candidate, tr).predict(Z[va])

    choice, cv_accuracy, _ = cross_validated_choice(
        grid_candidates(grid, "linear"), fit_predict, y, n_folds
    )
    return choice, cv_accuracy, fit(choice, np.arange(len(y)))


def _svm_method(split, kernel, grid, n_folds, options):
    """SVM: ``SVC(kernel="precomputed")`` on a Gram matrix per γ, sliced per fold.

    The same SVM as ``SVC(kernel=kernel, gamma=γ)`` on X (gender included, as in the paper);
    the Gram matrix of the training rows is computed once per γ instead of once per fold
    and C, as ``GridSearchCV`` does with a precomputed kernel.
    """
    X, y = split.X_train, split.y_train
    if kernel == "linear" and options["linear_solver"] == "exact":
        choice, cv_accuracy, model = _exact_linear_svm(X, y, grid, n_folds)
        return choice, cv_accuracy, model.predict(X), model.predict(split.X_test)
    grams = {
        gamma: gram(X, None, kernel, **({} if gamma is None else {"gamma": gamma}))
        for gamma in (grid["gamma"] if kernel == "rbf" else [None])
    }

    choice, cv_accuracy, model = _precomputed_svm(grams, y, grid, kernel, n_folds)
    gamma = {} if choice[1] is None else {"gamma": choice[1]}
    test_gram = gram(split.X_test, X, kernel, **gamma)
    return choice, cv_accuracy, model.predict(grams[choice[1]]), model.predict(test_gram)


def _kernel_ferm_method(split, family, grid, n_folds, options):
    """Kernel FERM (RBF): ``FERMClassifier(kernel="precomputed")`` on a Gram matrix per γ.

    The same fits as ``FERMClassifier(kernel="rbf", gamma=γ)`` on the fold's rows of X
    (gender included, as in the paper): the Gram matrix of the training rows is computed
    once per γ and sliced per fold (as for the SVM rows) instead of once per fit and
    prediction.
    """
    X, y, s = split.X_train, split.y_train, split.s_train
    misaligned = options.get("ferm_cv_groups", "aligned") == "misaligned"
    grams = {gamma: gram(X, None, "rbf", gamma=gamma) for gamma in grid["gamma"]}

    def fit(candidate, rows):
        C, gamma = candidate
        estimator = _estimator(family, "precomputed", C, None, options)
        # misaligned: the reference's positional indexing of the full column
        groups = s[: len(rows)] if misaligned else s[rows]
        block = grams[gamma].take(rows, axis=0).take(rows, axis=1)
        return estimator.fit(block, y[rows], sensitive_features=groups)

    def fit_predict(candidate, tr, va):
        return fit(candidate, tr).predict(grams[candidate[1]].take(va, axis=0).take(tr, axis=1))

    choice, cv_accuracy, _ = cross_validated_choice(
        grid_candidates(grid, "rbf"), fit_predict, y, n_folds
    )
    model = fit(choice, np.arange(len(y)))
    test_gram = gram(split.X_test, X, "rbf", gamma=choice[1])
    return choice, cv_accuracy, model.predict(grams[choice[1]]), model.predict(test_gram)


def _feature_method(split, family, kernel, grid, n_folds, options):
    """FERM: features X (gender included, as in the paper) and the groups."""
    if family == "svm":
        return _svm_method(split, kernel, grid, n_folds, options)
    if kernel == "rbf" and family in FERM_FORMULATIONS:
        return _kernel_ferm_method(split, family, grid, n_folds, options)
    X, y, s = split.X_train, split.y_train, split.s_train
    needs_groups = family in ("linear_ferm", *FERM_FORMULATIONS)
    misaligned = options.get("ferm_cv_groups", "aligned") == "misaligned"

    def fit(candidate, rows):
        estimator = _estimator(family, kernel, *candidate, options)
        if needs_groups:
            # misaligned: the reference's positional indexing of the full column
            groups = s[: len(rows)] if misaligned else s[rows]
            return estimator.fit(X[rows], y[rows], sensitive_features=groups)
        return estimator.fit(X[rows], y[rows])

    def fit_predict(candidate, tr, va):
        return fit(candidate, tr).predict(X[va])

    choice, cv_accuracy, _ = cross_validated_choice(
        grid_candidates(grid, kernel), fit_predict, y, n_folds
    )
    model = fit(choice, np.arange(len(y)))
    return choice, cv_accuracy, model.predict(split.X_train), model.predict(split.X_test)


def _gram_method(split, family, kernel, grid, n_folds, options):
    """Oblivious / M-oblivious SVM: first half of the training rows learn, second estimates."""
    X_train, X_test = split.X_train, split.X_test
    if options["oblivious_drop_sensitive"]:
        X_train, X_test = split.without_sensitive(X_train), split.without_sensitive(X_test)
    n_learn = len(split.y_train) // 2
    learn, estimate = slice(0, n_learn), slice(n_learn, None)
    y, s = split.y_train[learn], split.s_train[learn]
    kernels, grams = {}, {}
    for gamma in grid["gamma"] if kernel == "rbf" else [None]:
        oblivious = ObliviousKernel(kernel=kernel, gamma=gamma, partition="values")
        oblivious.fit(X_train[estimate], sensitive_features=split.s_train[estimate])
        if family == "oblivious":
            train_gram = oblivious.gram(X_train[learn], s)
        else:  # M-oblivious: the plain SVM, applied to oblivious test features
            train_gram = oblivious.plain_gram(X_train[learn])
        kernels[gamma], grams[gamma] = oblivious, train_gram

    def test_gram(gamma):
        if family == "oblivious":
            return kernels[gamma].gram(X_test, split.s_test, X_train[learn], s)
        return kernels[gamma].mixed_gram(X_test, split.s_test, X_train[learn])

    if kernel == "linear" and options["linear_solver"] == "exact":
        # the features of the one (linear) Gram matrix: rank ≤ features (+ 1)
        Z, Z_test = gram_factor(grams[None], test_gram(None), max_rank=X_train.shape[1] + 1)
        choice, cv_accuracy, model = _exact_linear_svm(Z, y, grid, n_folds)
        return choice, cv_accuracy, model.predict(Z), model.predict(Z_test), n_learn
    choice, cv_accuracy, model = _precomputed_svm(grams, y, grid, kernel, n_folds)
    train_prediction = model.predict(grams[choice[1]])
    return choice, cv_accuracy, train_prediction, model.predict(test_gram(choice[1])), n_learn


def run_method(split, method, *, grid, grid_name, n_folds, options, split_index=0):
    """Select, refit and score one Table-1 method; returns one run record (dict).

    ``options``: ``ferm_intercept`` ("free" | "all_support"), ``linear_ferm_selection``
    ("argmax_abs" | "argmax"), ``oblivious_drop_sensitive`` (bool), and optionally
    ``ferm_cv_groups`` ("aligned" | "misaligned") and ``linear_solver`` (one of
    :data:`LINEAR_SOLVERS`, default "libsvm"; recorded in ``params`` either way); a variant
    method (:data:`METHOD_OPTIONS`) overrides them. ``split_index`` is recorded.
    """
    label, kernel, family = METHODS[method]
    options = {"linear_solver": "libsvm", **options, **METHOD_OPTIONS.get(method, {})}
    if options["linear_solver"] not in LINEAR_SOLVERS:
        raise ValueError(
            f"linear_solver must be one of {LINEAR_SOLVERS}, got {options['linear_solver']!r}."
        )
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    if family in ("oblivious", "m_oblivious"):
        choice, cv_accuracy, train_pred, test_pred, n_learn = _gram_method(
            split, family, kernel, grid, n_folds, options
        )
        y_train_used = split.y_train[:n_learn]
    else:
        choice, cv_accuracy, train_pred, test_pred = _feature_method(
            split, family, kernel, grid, n_folds, options
        )
        y_train_used, n_learn = split.y_train, len(split.y_train)
    y_test, s_test = split.y_test, split.s_test
    return {
        "study": "adult",
        "protocol": split.protocol,
        "grid": grid_name,
        "split": int(split_index),
        "method": method,
        "label": label,
        "kernel": kernel,
        "formulation": FERM_FORMULATIONS.get(family),
        "C": choice[0],
        "gamma": choice[1],
        "cv_accuracy": cv_accuracy,
        "train_error": misclassification_rate(y_train_used, train_pred),
        "test_error": misclassification_rate(y_test, test_pred),
        "deo": equal_opportunity_difference(y_test, test_pred, sensitive_features=s_test),
        "beta": beta_dependence(test_pred, s_test, labels=np.unique(y_test)),
        "positive_rate": float(np.mean(test_pred == 1)),
        "n_train": int(n_learn),
        "n_test": len(y_test),
        "n_features": int(split.X_train.shape[1]),
        "n_folds": n_folds,
        "params": {"grid": {k: list(v) for k, v in grid.items()}, **options},
        "wall_seconds": time.perf_counter() - start_wall,
        "cpu_seconds": time.process_time() - start_cpu,
    }


def split_seed(seed, split_index):
    """Seed of random split ``split_index``: child ``split_index`` of ``SeedSequence(seed)``.

    The same split under every protocol and grid (their runs are paired), and split k is
    the same whatever ``adult.n_splits`` is.
    """
    return np.random.SeedSequence(seed, spawn_key=(int(split_index),))


def fit(job, log):
    """Job ``adult_fit``: every method of one Adult (protocol, grid, split) → run records."""
    params, wildcards = job.params, job.wildcards
    split_index = int(wildcards.adult_split)
    split = load_adult(
        job.input.data,
        job.input.test,
        wildcards.adult_protocol,
        n_train=params.n_train_corrected,
        split_seed=split_seed(params.seed, split_index),
    )
    records = []
    start = time.process_time()
    for method in params.methods:
        record = run_method(
            split,
            method,
            grid=params.grid,
            grid_name=wildcards.adult_grid,
            n_folds=params.n_folds,
            options=params.options,
            split_index=split_index,
        )
        log.info(
            "%s: %.1f s CPU, test error %.3f",
            method,
            record["cpu_seconds"],
            record["test_error"],
        )
        records.append(record)
    log.info("split %d: %.1f s CPU in all", split_index, time.process_time() - start)
    write_records(job.output[0], records, rule=job.rule, wildcards=dict(wildcards))
