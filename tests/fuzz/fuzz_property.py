"""The property every estimator must have on every drawn input: no silent wrong answer.

:func:`check` calls ``run(params, data)`` (which builds, fits and applies one estimator and
returns its output arrays) on the input as drawn and, when that succeeds, on its canonical
encoding (:mod:`fuzz_inputs`). Exactly one of these must hold:

* the input is corrupted, and the call raised a ``ValueError`` or ``TypeError`` whose
  message names one of the corrupted arguments (scikit-learn's ``InvalidParameterError`` is
  both), or one of the stressed arguments (a refusal of an extreme argument may come before
  the corrupted one is looked at);
* the input is valid but extreme (stress), and the call raised such an error naming one of
  the stressed arguments;
* the input is valid, and the call returned finite arrays equal to those of the canonical
  input: bit for bit (:data:`EXACT`) when the canonical input holds the very same float64
  numbers in the same memory layout, since estimators convert their input to float64 and
  encode labels to integer codes before any arithmetic. A pandas DataFrame or a
  Fortran-ordered array reaches the arithmetic with another layout, where BLAS may sum in
  another order: those are compared to :data:`LAYOUT_RTOL` (relative to the largest
  entry), about ``1e4`` rounding units, the round-off of the small, well-regularised
  problems drawn here amplified by their condition numbers.

A ``RuntimeWarning`` (overflow, invalid value, division by zero: the signs of an
intermediate NaN or infinity) fails the property in every case. ``UserWarning``\\ s are
allowed: estimators use them to report degenerate but valid input (a Gram matrix that
underflows to the identity, fewer informative components than asked for, a fairness
constraint without positives in one group).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
from hypothesis import event
from scipy import sparse

ERRORS = (ValueError, TypeError)
EXACT = "bit for bit"
LAYOUT_RTOL = 1e-12


def names(error, candidates):
    """Whether the message of ``error`` names one of ``candidates`` as a word."""
    message = str(error)
    return any(
        re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message)
        for name in candidates
    )


def _call(run, params, data):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = run(params, data)
        except Exception as error:  # judged by the caller
            outcome = error
    runtime = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    if runtime:
        shown = "; ".join(f"{w.filename}:{w.lineno}: {w.message}" for w in runtime[:3])
        raise AssertionError(f"RuntimeWarning(s) ({len(runtime)}): {shown}")
    return outcome


def _arrays(output):
    output = output if isinstance(output, tuple) else (output,)
    return [np.asarray(o.toarray() if sparse.issparse(o) else o) for o in output]


def check(run, case, aliases=None, layout_rtol=LAYOUT_RTOL, scale_floor=0.0):
    """Assert the property for one drawn ``case`` (see the module docstring).

    ``aliases`` maps an argument name to other names an error may use for it (e.g. the
    ``XA`` of :meth:`ObliviousKernel.gram` is reported as ``X``). ``layout_rtol`` replaces
    :data:`LAYOUT_RTOL` for estimators solved by an iterative solver (its tolerance bounds
    how two orders of summation can change the solution). ``scale_floor``: the least scale
    the layout tolerance is relative to, for outputs that cancel to round-off of larger
    intermediates (a projection that leaves almost nothing of features of norm 1). The
    outcome is counted as a Hypothesis event (``--hypothesis-show-statistics``).
    """
    aliases = aliases or {}

    def named(error, arguments):
        return names(error, {n for a in arguments for n in (a, *aliases.get(a, ()))})

    corrupt, stress = case.corrupt, case.stress
    outcome = _call(run, *case.given())
    if corrupt:
        if not isinstance(outcome, BaseException):
            raise AssertionError(f"corrupted {sorted(corrupt)} accepted, output returned")
        if not isinstance(outcome, ERRORS):
            raise AssertionError(
                f"corrupted {sorted(corrupt)}: {type(outcome).__name__} instead of a "
                f"ValueError/TypeError naming it"
            ) from outcome
        if not named(outcome, corrupt | stress):
            raise AssertionError(
                f"corrupted {sorted(corrupt)}: the error does not name it: "
                f"{type(outcome).__name__}: {outcome}"
            ) from outcome
        event("corrupted input refused by name")
        return
    if isinstance(outcome, BaseException):
        if isinstance(outcome, ERRORS) and stress and named(outcome, stress):
            event("extreme input refused by name")
            return
        raise AssertionError(
            f"valid input (stressed: {sorted(stress)}) refused: {type(outcome).__name__}: {outcome}"
        ) from outcome
    outputs = _arrays(outcome)
    for k, out in enumerate(outputs):
        if not np.all(np.isfinite(out)):
            raise AssertionError(f"output {k} is not finite: {out!r}")
    reference = _call(run, *case.canonical())
    if isinstance(reference, BaseException):
        raise AssertionError("the canonical input fails where the given one succeeded") from (
            reference
        )
    for k, (out, ref) in enumerate(zip(outputs, _arrays(reference), strict=True)):
        assert out.shape == ref.shape, f"output {k}: shape {out.shape} != canonical {ref.shape}"
        if case.exact:
            if not np.array_equal(out, ref):
                diff = np.max(np.abs(out - ref))
                raise AssertionError(
                    f"output {k} differs from the canonical input's ({EXACT}); max |diff| {diff!r}"
                )
        else:
            atol = layout_rtol * max(float(np.max(np.abs(ref), initial=0.0)), scale_floor)
            np.testing.assert_allclose(out, ref, rtol=layout_rtol, atol=atol)
    event(f"{'extreme' if stress else 'ordinary'} input: output equals the canonical one")
