"""
Conditional mean embedding of a categorical response
====================================================

A conditional mean embedding regresses a feature map of the response on the input:
:math:`\\hat\\mu_{Y|x} = \\sum_i \\alpha_i(x)\\,\\psi(y_i)` with
:math:`\\alpha(x) = (K + n\\lambda I)^{-1}k_x`. With the delta kernel on a finite response
the embedding evaluated at a category :math:`c` is :math:`\\sum_i \\alpha_i(x)1\\{y_i = c\\}`,
a kernel-smoothed frequency of :math:`c` near :math:`x`:
:meth:`krepro.ConditionalMeanEmbedding.category_scores`.

**These scores are not probabilities.** Nothing makes the weights :math:`\\alpha_i(x)`
non-negative or sum to one; this example shows both.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from krepro import ConditionalMeanEmbedding

rng = np.random.default_rng(0)
n = 600
x = rng.uniform(-3, 3, n)
# True class probabilities: a softmax of three linear scores.
logits = np.stack([-x, np.zeros_like(x), x], axis=1)
probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
labels = np.array(["low", "mid", "high"])
y = labels[[rng.choice(3, p=p) for p in probabilities]]

cme = ConditionalMeanEmbedding(gamma=1.0, output_kernel="delta", alpha=1e-3)
cme.fit(x[:, None], y)
print("classes:", cme.classes_)

# %%
# Scores against the true probabilities
# -------------------------------------
grid = np.linspace(-4, 4, 300)
scores = cme.category_scores(grid[:, None])
logits_grid = np.stack([-grid, np.zeros_like(grid), grid], axis=1)
truth = np.exp(logits_grid) / np.exp(logits_grid).sum(axis=1, keepdims=True)

fig, ax = plt.subplots(figsize=(6.5, 3.4))
for j, name in enumerate(cme.classes_):
    k = list(labels).index(name)
    (line,) = ax.plot(grid, scores[:, j], label=f"score of '{name}'")
    ax.plot(grid, truth[:, k], "--", color=line.get_color(), lw=1)
ax.plot(grid, scores.sum(axis=1), "k:", label="sum of the scores")
ax.axvspan(-4, -3, color="0.9")
ax.axvspan(3, 4, color="0.9")
ax.set_xlabel("x (grey: outside the training data)")
ax.legend(fontsize=8, loc="center left")
fig.tight_layout()

# %%
# Where the scores are not probabilities
# --------------------------------------
# Inside the data the scores track the true probabilities (dashed) and sum to about one;
# outside it the weights shrink towards zero, so the scores and their sum fall towards 0.
# Kernel interpolation also makes some weights negative.
inside = np.abs(grid) <= 3
print(
    f"sum of the scores inside the data: {scores[inside].sum(axis=1).min():.3f} to "
    f"{scores[inside].sum(axis=1).max():.3f}; at x = ±4: {scores[[0, -1]].sum(axis=1).round(3)}"
)
weights = cme.weights(grid[inside][:, None])
print(f"share of negative weights inside the data: {np.mean(weights < 0):.2f}")
print(f"smallest score: {scores.min():.3f}")
# To use them as probabilities, clip at 0 and renormalise -- a post-processing choice, not
# part of the estimator.
