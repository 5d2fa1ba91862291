"""Fairness with kernels: oblivious features and kernels, FERM, exactly solved linear SVM/SVR.

- :mod:`krepro.fairness.oblivious`: the oblivious kernel matrix (Grünewälder & Khaleghi, JMLR
  2021, Algorithm 1, App. E) and :mod:`krepro.fairness.oblivious_features` its explicit
  (Nyström / random Fourier) features;
- :mod:`krepro.fairness.conditional`: partitions and the plug-in estimator of
  :math:`E[\\varphi(X) \\mid S]` (Prop. 6);
- :mod:`krepro.fairness.ridge`: oblivious ridge regression (ORR, M-ORR, §6.4);
- :mod:`krepro.fairness.streaming`: ridge regression on oblivious features fitted block by
  block (one pass, no ``n × D`` feature matrix);
- :mod:`krepro.fairness.hsic_ridge`: HSIC-penalised kernel ridge regression (fair kernel
  learning, Pérez-Suay et al. 2017), a peer for continuous sensitive features;
- :mod:`krepro.fairness.ferm`, :mod:`~krepro.fairness.ferm_dual`,
  :mod:`~krepro.fairness.ferm_features`: FERM (Donini et al. 2018);
- :mod:`krepro.fairness.linear_svc`, :mod:`~krepro.fairness.linear_svr`: soft-margin SVM and
  ε-SVR solved exactly in the primal (:mod:`~krepro.fairness.slack_qp`);
- :mod:`krepro.fairness.projection`, :mod:`~krepro.fairness.rates`: the projection onto
  :math:`\\varphi[\\mathcal X]` (App. E.3) and the closed forms behind the rates of Props. 5, 6.
"""

from krepro._exports import lazy_exports

_EXPORTS = {
    "DyadicPartition": "krepro.fairness.conditional",
    "FiniteValuePartition": "krepro.fairness.conditional",
    "PartitionConditionalMean": "krepro.fairness.conditional",
    "make_partition": "krepro.fairness.conditional",
    "FERMClassifier": "krepro.fairness.ferm",
    "LinearFERM": "krepro.fairness.ferm",
    "FERMFeatures": "krepro.fairness.ferm_features",
    "HSICRidge": "krepro.fairness.hsic_ridge",
    "LinearHingeSVC": "krepro.fairness.linear_svc",
    "LinearEpsilonSVR": "krepro.fairness.linear_svr",
    "ObliviousKernel": "krepro.fairness.oblivious",
    "ObliviousFeatures": "krepro.fairness.oblivious_features",
    "KernelFeatureMap": "krepro.fairness.oblivious_features",
    "ObliviousRidge": "krepro.fairness.ridge",
    "StreamingObliviousRidge": "krepro.fairness.streaming",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
