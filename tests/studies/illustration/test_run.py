"""Small real run of the illustration study (§5, Fig. 2)."""

from krepro.studies.illustration.run import dependence_summary
from krepro.studies.illustration.run import run as run_illustration


def test_illustration_oblivious_features_lose_the_dependence_on_s():
    frame = run_illustration(seed=0, n_points=2000, n_estimation=20000, cells_per_axis=32)
    summary = dependence_summary(frame, seed=0, n_permutations=20).set_index(
        ["setting", "features"]
    )
    for setting in ("quadratic", "sine"):
        raw = summary.loc[(setting, "raw")]
        oblivious = summary.loc[(setting, "oblivious")]
        # Population ⟨h, Z⟩ is uncorrelated with S; with 32 cells and 2000 points the sample
        # correlation's sd is ≈ 0.02, so 0.1 leaves room for the within-cell remainder.
        assert abs(oblivious["corr_with_s"]) < 0.1
        assert oblivious["variance_explained_by_s"] < 0.25 * raw["variance_explained_by_s"]
        assert raw["variance_explained_by_s"] > 0.3
        # Raw h(X) depends on S strongly: no permutation reaches its distance correlation.
        assert raw["dcor_p_value"] == 1 / 21
        assert oblivious["distance_correlation"] < raw["distance_correlation"]
