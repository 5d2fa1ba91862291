"""
Oblivious SVM on your own DataFrame
===================================

An SVM whose predictions should not depend on a group column: the oblivious kernel
(Grünewälder & Khaleghi 2021, eq. (9), Algorithm 1) replaces each point's feature
:math:`\\varphi(x)` by :math:`Z = \\varphi(x) - E[\\varphi(X) \\mid S = s] + E\\varphi(X)`, so that
the features carry no group mean. The group column can be any labels, here strings in a
pandas DataFrame; :class:`krepro.ObliviousKernel` returns Gram matrices that any
kernel method with ``kernel="precomputed"`` takes.
"""

# %%
# A table with a string group column
# ----------------------------------
# Two groups whose feature distributions differ; the label follows the features, so a
# plain classifier's positive rate differs between the groups.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.svm import SVC

from krepro import ObliviousKernel
from krepro.metrics import beta_dependence, misclassification_rate

rng = np.random.default_rng(0)
n = 1200
group = rng.choice(["north", "south"], size=n)
shift = np.where(group == "north", 1.0, -0.5)
frame = pd.DataFrame(
    {
        "hours": shift + rng.normal(size=n),
        "score": 0.5 * shift + rng.normal(size=n),
        "group": group,
    }
)
frame["passed"] = (frame["hours"] + frame["score"] + 0.5 * rng.normal(size=n) > 0.5).astype(int)
print(frame.head())
print(frame.groupby("group")["passed"].mean())

# %%
# Three disjoint parts: learn, estimate, test
# --------------------------------------------
# The conditional mean :math:`E[\varphi(X) \mid S]` is estimated on rows the SVM does not
# train on (the paper's split into a learner half and an estimation half).
features = ["hours", "score"]
learn, estimate, test = frame.iloc[:400], frame.iloc[400:800], frame.iloc[800:]

ok = ObliviousKernel(kernel="rbf", gamma=0.5, partition="values")
ok.fit(estimate[features], sensitive_features=estimate["group"])
O_train = ok.gram(learn[features], learn["group"])
O_test = ok.gram(test[features], test["group"], learn[features], learn["group"])

oblivious = SVC(kernel="precomputed", C=1.0).fit(O_train, learn["passed"])
plain = SVC(kernel="rbf", gamma=0.5, C=1.0).fit(learn[features], learn["passed"])
predictions = {
    "SVM": plain.predict(test[features]),
    "oblivious SVM": oblivious.predict(O_test),
}

# %%
# Error and dependence on the group
# ---------------------------------
# :func:`krepro.metrics.beta_dependence` is the paper's :math:`e_\beta` (eq. (14)): 0 when
# the predictions are independent of the group.
rows = []
for name, y_pred in predictions.items():
    rates = pd.Series(y_pred).groupby(test["group"].to_numpy()).mean()
    rows.append(
        {
            "method": name,
            "error": misclassification_rate(test["passed"], y_pred),
            "e_beta": beta_dependence(y_pred, test["group"]),
            "positive rate north": rates["north"],
            "positive rate south": rates["south"],
        }
    )
summary = pd.DataFrame(rows).set_index("method")
print(summary.round(3))

fig, ax = plt.subplots(figsize=(6, 3.2))
summary[["positive rate north", "positive rate south"]].plot.bar(ax=ax, rot=0)
ax.set_ylabel("share predicted to pass")
ax.set_title("Positive rate per group on the test rows")
fig.tight_layout()

# %%
# The oblivious SVM trades some accuracy for predictions that depend much less on the
# group. It removes the group's *mean* from the features only: what remains of the
# dependence comes from higher moments (see :doc:`/user_guide/oblivious`).
