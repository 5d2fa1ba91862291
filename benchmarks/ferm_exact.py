r"""Benchmark: exact kernel FERM (libsvm on the projected kernel) — speed, memory, objectives.

Two parts, both on UCI Adult from the mirror (``KREPRO_DATA_MIRROR``):

1. **Speed and memory** (goal: ``ratio_to_sklearn_svc`` ≤ ``--max-ratio``, 2). On the first
   ``--n`` (8000) rows of the corrected protocol (:func:`krepro.data.adult.load_adult`,
   ``"corrected"``: one-hot features, scaler fitted on the training rows, S = 1{male}),
   ``FERMClassifier(kernel="rbf", formulation="exact")`` — kernel matrix, in-place rank-one
   correction, libsvm on the precomputed result, intercept — against
   ``sklearn.svm.SVC(kernel="rbf")`` (no fairness constraint) with the same C, γ, tolerance
   (1e-3) and kernel cache (200 MB). CPU seconds (``time.process_time``) with BLAS capped at
   ``--threads`` (1), best of ``--repeats``, the two alternating. Peak memory of each fit is
   measured in a fresh child process (high-water RSS minus the RSS before the fit), in units
   of one n × n float64 matrix; it includes libsvm's kernel cache.
2. **Objectives** on the 1628-row training set of the FERM loader (``"reference"``): the
   primal objective :math:`\tfrac12\lVert w\rVert^2 + C\sum_i\max(0, 1-y_if(x_i))` of the
   exact dual and of Donini et al.'s eq. (14) (``formulation="donini"``, PIQP), both under
   :math:`\langle w, u\rangle = 0`, for the RBF kernel (C = 1, γ = 0.1) and the linear kernel
   (C = 1), beside the closed-form :class:`krepro.fairness.ferm.LinearFERM` (both coordinate rules);
   their dual objectives (eq. (14) is the exact dual restricted to μ = 0 and
   :math:`\tau^\top(\alpha\circ y) = 0`, so its minimum is higher; the exact one is minus
   the primal optimum); CPU times and the share of the 12661 test points on which the
   predictions agree.

Run (from the repository root)::

    KREPRO_DATA_MIRROR=/path/to/uci/mirror .venv/bin/python benchmarks/ferm_exact.py \
        --json benchmarks/out/ferm_exact.json

Exit status 1 (and a FAIL line) when the CPU-time ratio exceeds ``--max-ratio`` or the exact
primal objective is above eq. (14)'s.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from krepro.data.adult import load_adult
from krepro.fairness.ferm import FERMClassifier, LinearFERM


def _split(data_dir, protocol, n_train=1628):
    return load_adult(data_dir / "adult.data", data_dir / "adult.test", protocol, n_train=n_train)


def _fit(method, X, y, s, C, gamma):
    if method == "svc":
        return SVC(kernel="rbf", C=C, gamma=gamma).fit(X, y)
    ferm = FERMClassifier(kernel="rbf", C=C, gamma=gamma, formulation="exact")
    return ferm.fit(X, y, sensitive_features=s)


def _cpu(fn):
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def _status_mb(field):
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} not in /proc/self/status")  # pragma: no cover - Linux only


def _peak_child(method, data_dir, n, C, gamma, threads, queue):
    split = _split(data_dir, "corrected", n)
    with threadpool_limits(limits=threads):
        before = _status_mb("VmRSS")
        # Reset the high-water mark so that loading the data does not count (Linux ≥ 4.0).
        Path("/proc/self/clear_refs").write_text("5")
        _fit(method, split.X_train, split.y_train, split.s_train, C, gamma)
    queue.put(_status_mb("VmHWM") - before)


def _peak_memory(method, args):
    """Extra peak RSS (MB) of one fit in a fresh process (the data already loaded)."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(
        target=_peak_child,
        args=(method, args.data_dir, args.n, args.C, args.gamma, args.threads, queue),
    )
    child.start()
    extra = queue.get()
    child.join()
    return extra


def speed(args):
    """Part 1: exact FERM vs SVC(kernel="rbf") at n rows; returns the result dict."""
    split = _split(args.data_dir, "corrected", args.n)
    X, y, s = split.X_train, split.y_train, split.s_train
    n = len(y)
    times = {"exact": [], "svc": []}
    with threadpool_limits(limits=args.threads):
        for _ in range(args.repeats):
            for method in times:
                seconds, model = _cpu(lambda m=method: _fit(m, X, y, s, args.C, args.gamma))
                times[method].append(seconds)
                if method == "exact":
                    gap = model.fairness_gap_
    result = {
        "data": f"Adult corrected protocol, first {n} training rows, {X.shape[1]} features",
        "n": n,
        "C": args.C,
        "gamma": args.gamma,
        "exact_cpu_seconds": min(times["exact"]),
        "svc_cpu_seconds": min(times["svc"]),
        "all_cpu_seconds": times,
        "exact_fairness_gap": gap,
    }
    result["ratio_to_sklearn_svc"] = result["exact_cpu_seconds"] / result["svc_cpu_seconds"]
    n_squared_mb = 8 * n * n / 2**20
    for method in times:
        extra = _peak_memory(method, args)
        result[f"{method}_peak_extra_mb"] = extra
        result[f"{method}_peak_extra_n2"] = extra / n_squared_mb
    return result


def _linear_ferm_primal(model, X, y, C):
    coef = model.coef_[0]
    return float(0.5 * coef @ coef + C * np.maximum(0, 1 - y * model.decision_function(X)).sum())


def objectives(args):
    """Part 2: primal objectives of the exact dual and eq. (14) on the 1628-row split."""
    split = _split(args.data_dir, "reference")
    X, y, s, X_test = split.X_train, split.y_train, split.s_train, split.X_test
    out = {}
    with threadpool_limits(limits=args.threads):
        for kernel in ("rbf", "linear"):
            fits, entry = {}, {}
            for name, formulation, tol in (
                ("exact", "exact", 1e-3),
                ("exact_tol_1e-8", "exact", 1e-8),
                ("donini", "donini", 1e-3),
            ):
                clf = FERMClassifier(
                    kernel=kernel, C=1.0, gamma=0.1, formulation=formulation, tol=tol
                )
                seconds, clf = _cpu(lambda c=clf: c.fit(X, y, sensitive_features=s))
                fits[name] = clf
                entry[name] = {
                    "cpu_seconds": seconds,
                    "primal_objective": clf.primal_objective_,
                    "dual_objective": clf.objective_,
                    "fairness_gap": clf.fairness_gap_,
                }
            entry["prediction_agreement"] = float(
                np.mean(fits["exact"].predict(X_test) == fits["donini"].predict(X_test))
            )
            if kernel == "linear":
                for selection in ("argmax_abs", "argmax"):
                    model = LinearFERM(C=1.0, selection=selection).fit(X, y, sensitive_features=s)
                    entry[f"linear_ferm_{selection}"] = {
                        "primal_objective": _linear_ferm_primal(model, X, y, 1.0),
                        "agreement_with_exact": float(
                            np.mean(model.predict(X_test) == fits["exact"].predict(X_test))
                        ),
                    }
            out[kernel] = entry
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mirror = os.environ.get("KREPRO_DATA_MIRROR")
    default_dir = Path(mirror) / "adult" if mirror else Path("resources/adult")
    parser.add_argument("--data-dir", type=Path, default=default_dir)
    parser.add_argument("--n", type=int, default=8000)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--gamma", type=float, default=0.1)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-ratio", type=float, default=2.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    ok = True
    results = {"speed": speed(args), "objectives": objectives(args)}
    fast = results["speed"]
    print(fast["data"] + f"; C = {fast['C']:g}, γ = {fast['gamma']:g}")
    print(
        f"exact FERM fit {fast['exact_cpu_seconds']:.2f} CPU-s, SVC(kernel='rbf') "
        f"{fast['svc_cpu_seconds']:.2f} CPU-s; |⟨w, u⟩| = {abs(fast['exact_fairness_gap']):.1e}"
    )
    print(
        f"peak extra memory: exact {fast['exact_peak_extra_mb']:.0f} MB "
        f"({fast['exact_peak_extra_n2']:.2f} n²·8 B), SVC {fast['svc_peak_extra_mb']:.0f} MB "
        f"({fast['svc_peak_extra_n2']:.2f} n²·8 B)"
    )
    ratio = fast["ratio_to_sklearn_svc"]
    verdict = "PASS" if ratio <= args.max_ratio else "FAIL"
    ok &= verdict == "PASS"
    print(f"ratio_to_sklearn_svc: {ratio:.2f} {verdict} (goal ≤ {args.max_ratio:g})")
    for kernel, entry in results["objectives"].items():
        exact, donini = entry["exact"], entry["donini"]
        tight = entry["exact_tol_1e-8"]
        print(
            f"Adult 1628 rows, {kernel} kernel, C = 1: primal objective exact "
            f"{exact['primal_objective']:.4f} ({exact['cpu_seconds']:.2f} CPU-s, "
            f"|gap| {abs(exact['fairness_gap']):.1e}; libsvm tol 1e-8: "
            f"{tight['primal_objective']:.4f}, {tight['cpu_seconds']:.2f} CPU-s) vs eq. (14) "
            f"{donini['primal_objective']:.4f} ({donini['cpu_seconds']:.2f} CPU-s, "
            f"|gap| {abs(donini['fairness_gap']):.1e}); test predictions agree on "
            f"{100 * entry['prediction_agreement']:.1f} %"
        )
        for selection in ("argmax_abs", "argmax"):
            if f"linear_ferm_{selection}" in entry:
                linear = entry[f"linear_ferm_{selection}"]
                print(
                    f"  LinearFERM ({selection}): primal objective "
                    f"{linear['primal_objective']:.4f}, test predictions agree with exact on "
                    f"{100 * linear['agreement_with_exact']:.1f} %"
                )
        print(
            f"  dual objectives (minimisation form): exact (tol 1e-8) "
            f"{tight['dual_objective']:.4f}, eq. (14) {donini['dual_objective']:.4f}"
        )
        if exact["primal_objective"] > donini["primal_objective"] + 1e-6:
            print(f"FAIL {kernel}: exact primal objective above eq. (14)'s")
            ok = False
    results["platform"] = {"python": sys.version.split()[0], "machine": platform.machine()}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
