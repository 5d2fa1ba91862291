"""
Oblivious ridge regression with a continuous sensitive feature
==============================================================

With a continuous :math:`S` the conditional mean :math:`E[\\varphi(X) \\mid S]` needs a
smoother. The paper uses a dyadic partition of the range of :math:`S` (§6.1,
``partition="dyadic"``); :class:`krepro.CMEConditionalMean` uses a kernel (conditional mean
embedding) estimator instead, which needs no bounds and scales to several sensitive
columns. Here both drive :class:`krepro.ObliviousRidge` (ORR, eq. (11)) on the data of the
paper's §7.2: :math:`X = \\gamma U + (1 - \\gamma) S`, :math:`Y = X^2 + \\varepsilon`.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.kernel_ridge import KernelRidge

from krepro import CMEConditionalMean, ObliviousRidge

rng = np.random.default_rng(1)
n, gamma = 1000, 0.5
S = rng.uniform(-5, 5, 2 * n)
X = (gamma * rng.uniform(-5, 5, 2 * n) + (1 - gamma) * S)[:, None]
y = X[:, 0] ** 2 + rng.normal(scale=np.sqrt(0.1), size=2 * n)
X_fit, S_fit, y_fit = X[:n], S[:n], y[:n]
X_test, S_test, y_test = X[n:], S[n:], y[n:]

# %%
# Three regressions
# -----------------
# KRR sees :math:`X`, which carries :math:`S`; the two ORRs see only the oblivious features.
# ``ObliviousRidge`` uses the last half of the rows it is given to estimate the conditional
# mean and the first half to fit.
models = {
    "KRR": KernelRidge(kernel="rbf", gamma=1.0, alpha=0.1),
    "ORR, dyadic partition": ObliviousRidge(
        gamma=1.0, alpha=0.1, partition="dyadic", partition_bounds=(-5, 5), cells_per_axis=16
    ),
    "ORR, CME": ObliviousRidge(
        gamma=1.0, alpha=0.1, conditional_mean=CMEConditionalMean(gamma=0.5, alpha=1e-3)
    ),
}
predictions = {}
for name, model in models.items():
    if name == "KRR":
        model.fit(X_fit, y_fit)
        predictions[name] = model.predict(X_test)
    else:
        model.fit(X_fit, y_fit, sensitive_features=S_fit)
        predictions[name] = model.predict(X_test, sensitive_features=S_test)


def explained_by_s(pred, s, bins=20):
    """Share of the variance of ``pred`` explained by its mean in 20 bins of S (eta²)."""
    cells = np.digitize(s, np.linspace(-5, 5, bins + 1)[1:-1])
    means = np.bincount(cells, pred) / np.bincount(cells)
    return np.var(means[cells]) / np.var(pred)


for name, pred in predictions.items():
    mse = np.mean((pred - y_test) ** 2)
    share = explained_by_s(pred, S_test)
    print(f"{name:24s} test MSE {mse:6.2f}   variance explained by S {share:.3f}")

# %%
# Predictions against the sensitive feature
# -----------------------------------------
# KRR's predictions follow :math:`S`; the oblivious ones are flat in :math:`S` on average
# (their conditional mean given :math:`S` is constant), though their spread still changes
# with :math:`S`: the oblivious features remove the conditional mean, not all dependence.
fig, axes = plt.subplots(1, 3, figsize=(9, 3), sharey=True)
for ax, (name, pred) in zip(axes, predictions.items(), strict=True):
    ax.scatter(S_test, pred, s=3, alpha=0.4)
    ax.set_title(name, fontsize=9)
    ax.set_xlabel("S")
axes[0].set_ylabel("prediction")
fig.tight_layout()

# %%
# The partition needs the range of :math:`S` (``partition_bounds``) and at most 16 cells
# per estimation point; the CME needs a bandwidth and a ridge for :math:`S` instead
# (``CMEConditionalMean(alphas=[...])`` selects the ridge by generalised cross-validation).
