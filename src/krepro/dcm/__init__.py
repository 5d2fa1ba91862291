"""Domain generalisation by kernel dimension reduction: DCM, FastDCM (Nyström), DICA, COIR.

:mod:`krepro.dcm.estimators` holds the transformers, :mod:`krepro.dcm.base` their shared
input handling, :mod:`krepro.dcm.baselines` DICA and COIR, :mod:`krepro.dcm.core` the feature
maps and eigen-solvers, :mod:`krepro.dcm.svm_predict` vectorised predictions of the ε-SVRs
fitted on their features.
"""

from krepro.dcm.estimators import (
    APPROXIMATIONS,
    COIR,
    DCM,
    DICA,
    FastDCM,
    fit_shared,
    median_gamma,
)

__all__ = ["APPROXIMATIONS", "COIR", "DCM", "DICA", "FastDCM", "fit_shared", "median_gamma"]
