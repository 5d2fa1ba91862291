"""krepro: kernel methods built on Hilbert-space-valued conditional expectations.

Reference reproduction of oblivious features for fairness (Grünewälder & Khaleghi, JMLR
2021) and related kernel methods, as a library with scikit-learn compatible estimators.

The package shows its method families:

- :mod:`krepro.fairness`: oblivious kernels and features, oblivious ridge, FERM, exactly
  solved linear SVM and ε-SVR;
- :mod:`krepro.dcm`: DCM, FastDCM, DICA, COIR (domain generalisation);
- :mod:`krepro.distributed`: divide-and-conquer kernel ridge regression with bootstrap bands;
- :mod:`krepro.cme`: conditional mean embeddings;

on a shared base (:mod:`krepro.kernels`, :mod:`krepro.validation`, :mod:`krepro.metrics`,
:mod:`krepro.stats`, :mod:`krepro.seeding`, :mod:`krepro.spectral`, :mod:`krepro.records`),
with the data sets in :mod:`krepro.data`, the reproduced studies in :mod:`krepro.studies` and
the Snakemake workflow's plumbing in :mod:`krepro.workflow`. Every public estimator is
importable from here, e.g. ``from krepro import ObliviousKernel``; the names load on first use.
"""

from krepro._exports import lazy_exports

__version__ = "1.0.0"

_EXPORTS = {
    "ObliviousKernel": "krepro.fairness.oblivious",
    "ObliviousFeatures": "krepro.fairness.oblivious_features",
    "ObliviousRidge": "krepro.fairness.ridge",
    "HSICRidge": "krepro.fairness.hsic_ridge",
    "StreamingObliviousRidge": "krepro.fairness.streaming",
    "FERMClassifier": "krepro.fairness.ferm",
    "LinearFERM": "krepro.fairness.ferm",
    "FERMFeatures": "krepro.fairness.ferm_features",
    "LinearHingeSVC": "krepro.fairness.linear_svc",
    "LinearEpsilonSVR": "krepro.fairness.linear_svr",
    "PartitionConditionalMean": "krepro.fairness.conditional",
    "DCM": "krepro.dcm.estimators",
    "FastDCM": "krepro.dcm.estimators",
    "DICA": "krepro.dcm.baselines",
    "COIR": "krepro.dcm.baselines",
    "DistributedKernelRidge": "krepro.distributed.krr",
    "ConditionalMeanEmbedding": "krepro.cme.embedding",
    "CMEConditionalMean": "krepro.cme.embedding",
}
__all__ = ["__version__", *sorted(_EXPORTS)]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
