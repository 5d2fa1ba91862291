"""Hypothesis settings of the fuzz lane (``pytest -m fuzz``; README, "Tests").

Profiles, chosen with ``KREPRO_FUZZ_PROFILE``:

``ci`` (default)
    Reproducible: ``derandomize=True`` draws the same examples on every run and machine, no
    example database is read or written, there is no deadline (a 2-core CI machine shared
    with other jobs has no stable timing), and each estimator's test runs the fixed number of
    examples in :data:`EXAMPLES`. A failing example is reported as drawn, not shrunk:
    shrinking costs up to minutes per failing test, and the report of every :class:`Arg`
    already says what was drawn.
``shrink``
    The same examples as ``ci``, failures shrunk to a minimal example.
``explore``
    New random examples, ten times the budget, shrunk: to look for new bugs locally. A
    failure found there becomes an explicit regression test (``test_fuzz_regressions.py``).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

PROFILE = os.environ.get("KREPRO_FUZZ_PROFILE", "ci")
SCALE = {"ci": 2, "shrink": 2, "explore": 10}[PROFILE]

# Examples per estimator in the ci profile, sized so that the whole lane stays under two
# minutes on two cores (measured; README, "Tests").
EXAMPLES = {
    "ObliviousKernel": 240,
    "ObliviousFeatures": 200,
    "KernelFeatureMap": 160,
    "ObliviousRidge": 200,
    "HSICRidge": 120,
    "StreamingObliviousRidge": 120,
    "PartitionConditionalMean": 200,
    "FERMClassifier": 160,
    "LinearFERM": 160,
    "FERMFeatures": 160,
    "LinearHingeSVC": 120,
    "LinearEpsilonSVR": 120,
    "DCM": 120,
    "FastDCM": 120,
    "DICA": 120,
    "COIR": 120,
    "DistributedKernelRidge": 200,
    "ConditionalMeanEmbedding": 200,
    "CMEConditionalMean": 200,
}

_COMMON = {
    "deadline": None,
    "database": None,
    "print_blob": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
NO_SHRINK = tuple(phase for phase in Phase if phase is not Phase.shrink)
settings.register_profile("ci", derandomize=True, phases=NO_SHRINK, **_COMMON)
settings.register_profile("shrink", derandomize=True, **_COMMON)
settings.register_profile("explore", derandomize=False, **_COMMON)
settings.load_profile(PROFILE)


def budget(estimator):
    """``settings`` of the fuzz test of ``estimator``: its number of examples."""
    return settings(max_examples=EXAMPLES[estimator] * SCALE)
