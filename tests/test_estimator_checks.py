"""scikit-learn's estimator API checks for the estimators of :mod:`krepro`."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from krepro.fairness.hsic_ridge import HSICRidge
from krepro.fairness.linear_svc import LinearHingeSVC
from krepro.fairness.linear_svr import LinearEpsilonSVR
from krepro.fairness.oblivious import ObliviousKernel
from krepro.fairness.ridge import ObliviousRidge
from krepro.fairness.streaming import StreamingObliviousRidge


@parametrize_with_checks(
    [
        ObliviousKernel(),
        ObliviousRidge(),
        # M-ORR predicts from oblivious test features: another predict path.
        ObliviousRidge(mode="m-oblivious"),
        LinearEpsilonSVR(),
        LinearHingeSVC(),
        LinearHingeSVC(solver="ipm"),
        HSICRidge(),
        StreamingObliviousRidge(n_components=50),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
