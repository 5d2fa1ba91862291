"""
Domain generalisation with DCM on grouped data
==============================================

Data often come in groups — hospitals, patients, sites — whose feature distributions
differ, and a model must work on groups it has not seen. DCM (Wu 2021, eq. (12)) learns a
projection that keeps what predicts :math:`y` and discards what tells the groups
("domains") apart; DICA (Muandet et al. 2013) and COIR are the paper's baselines. All are
scikit-learn transformers with ``fit(X, y, *, domains=...)``; any estimator can follow
them.

The data are the paper's synthetic domains (:func:`krepro.data.domains.domain_sample`): ten
domains with Wishart-drawn covariances, a binary label that is a nonlinear function of two
directions. Training uses seven domains, the test the other three.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from krepro import COIR, DCM, DICA
from krepro.data.domains import domain_sample


def pipelines(gamma=0.1):
    """One pipeline per method; the first step of each learns the projection."""
    # With two classes and a delta kernel on y, one component is informative (a second
    # would lie in a degenerate eigenspace and is not returned).
    return {
        "DCM": make_pipeline(DCM(n_components=1, gamma=gamma), StandardScaler(), SVC()),
        "DICA": make_pipeline(DICA(n_components=1, gamma=gamma), StandardScaler(), SVC()),
        "COIR": make_pipeline(COIR(n_components=1, gamma=gamma), StandardScaler(), SVC()),
        "SVM on X": make_pipeline(StandardScaler(), SVC(gamma=gamma)),
    }


# %%
# Five data sets, seven training domains each
# -------------------------------------------
# The domains reach the transformer as a fit parameter, ``<step>__domains``; the test rows
# need none.
root = np.random.SeedSequence(2021)
accuracy = []
for child in root.spawn(5):
    data = domain_sample(np.random.default_rng(child), n_domains=10, mean_size=80, eta=0.1)
    train = data.domains < 7
    for name, pipe in pipelines().items():
        params = {}
        if name != "SVM on X":
            params = {f"{pipe.steps[0][0]}__domains": data.domains[train]}
        pipe.fit(data.X[train], data.y[train], **params)
        accuracy.append({"method": name, "accuracy": pipe.score(data.X[~train], data.y[~train])})
table = pd.DataFrame(accuracy).groupby("method")["accuracy"].agg(["mean", "std"])
print("Accuracy on three unseen domains, 5 data sets:")
print(table.round(3))

# %%
# The learned feature on the test domains of the last data set
# -------------------------------------------------------------
fitted = pipelines()
fig, axes = plt.subplots(1, 3, figsize=(9, 2.8), sharey=True)
for ax, name in zip(axes, ["DCM", "DICA", "COIR"], strict=True):
    pipe = fitted[name]
    pipe.fit(data.X[train], data.y[train], **{f"{pipe.steps[0][0]}__domains": data.domains[train]})
    z = pipe[0].transform(data.X[~train])[:, 0]
    for label, colour in ((-1, "tab:blue"), (1, "tab:red")):
        ax.hist(z[data.y[~train] == label], bins=30, alpha=0.5, color=colour, label=f"y = {label}")
    ax.set_title(name, fontsize=9)
axes[0].legend(fontsize=8)
fig.tight_layout()

# %%
# On this generator the label is hard to predict across domains at all (accuracies
# between 0.6 and 0.7), no projection helps the SVM, and DCM does not beat DICA and COIR
# beyond the spread over data sets — as in the study (``dcm_synthetic``), where the
# difference stayed within the noise of 20 repetitions. Exact DCM costs a kernel PCA of the
# :math:`N \times N` Gram matrix; :class:`krepro.FastDCM` (Nyström, ``n_landmarks``) solves
# an :math:`M \times M` problem instead (:doc:`/user_guide/dcm`).
