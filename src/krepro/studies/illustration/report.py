"""Paper vs reproduced for the illustration (§5, Fig. 2): the report section and the summary job.

Each check reads the aggregate tables (or tidy run tables) and the claim's thresholds from
``config/paper_reference.yaml``, and returns a verdict and its detail; the section functions
return :class:`~krepro.studies.verdicts.Section` records (see :mod:`krepro.studies.verdicts`).
"""

from __future__ import annotations

import pandas as pd

from krepro.studies.illustration.figures import plot_illustration
from krepro.studies.render import write_section
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import (
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Section,
    claim_verdict,
    paper_reference,
)

__all__ = ["illustration_section", "summary"]

PAPER = "oblivious"


def _illustration_rows(summary):
    for setting, group in summary.groupby("setting", sort=False):
        raw = group[group["features"] == "raw"].iloc[0]
        oblivious = group[group["features"] == "oblivious"].iloc[0]
        yield setting, raw, oblivious


def illustration_section(summary, reference, *, scale):
    """Verdicts for Fig. 2: how ⟨h, Z⟩ depends on S, against h(X).

    Three claims, three measures: correlation and η² (the conditional mean) for
    "uncorrelated"; distance correlation (any dependence) for "much smaller"; its permutation
    test for "hard to see at all".

    Parameters
    ----------
    summary : pandas.DataFrame
        ``tables/illustration.csv``
        (:func:`krepro.studies.illustration.run.dependence_summary`).
    reference : mapping
        ``oblivious.illustration`` of ``config/paper_reference.yaml``.
    scale : str
        The config's scale name.

    Returns
    -------
    Section
    """
    claims = reference["claims"]

    def verdict(claim_id, outcome, detail, **values):
        return claim_verdict(
            reference,
            claim_id,
            outcome,
            detail,
            experiment="illustration",
            paper=PAPER,
            scale=scale,
            **values,
        )

    rows = list(_illustration_rows(summary))
    claim = claims["uncorrelated"]
    ok, parts = True, []
    for setting, raw, obl in rows:
        ok &= abs(obl["corr_with_s"]) <= claim["max_abs_correlation"]
        ok &= (
            obl["variance_explained_by_s"]
            <= claim["max_eta2_ratio"] * raw["variance_explained_by_s"]
        )
        parts.append(
            f"{setting}: corr with S {raw['corr_with_s']:+.3f} → {obl['corr_with_s']:+.3f},"
            f" η² {raw['variance_explained_by_s']:.3f} → {obl['variance_explained_by_s']:.3f}"
        )
    verdicts = [
        verdict(
            "uncorrelated",
            REPRODUCED if ok else NOT_REPRODUCED,
            "; ".join(parts) + ". The plug-in conditional mean on a dyadic partition leaves a"
            " small within-cell trend.",
            measured="; ".join(f"{r[2]['corr_with_s']:+.3f}" for r in rows),
            tolerance=f"|corr| ≤ {claim['max_abs_correlation']:g},"
            f" η² ratio ≤ {claim['max_eta2_ratio']:g}",
        )
    ]
    claim = claims["dependence_much_smaller"]
    ratios = {
        setting: obl["distance_correlation"] / raw["distance_correlation"]
        for setting, raw, obl in rows
    }
    smaller = [s for s, r in ratios.items() if r <= claim["max_dcor_ratio"]]
    outcome = REPRODUCED if len(smaller) == len(ratios) else PARTLY if smaller else NOT_REPRODUCED
    detail = "; ".join(
        f"{setting}: distance correlation with S {raw['distance_correlation']:.3f} →"
        f" {obl['distance_correlation']:.3f} (ratio {ratios[setting]:.2f})"
        for setting, raw, obl in rows
    ) + (
        ". ⟨h, Z⟩ = h(X) − E[h(X)|S] + E h(X) removes the conditional mean only: its spread"
        " given S is that of h(X) given S, which changes with S (for h1 = x², X = S + U,"
        " h(X) − E[h(X)|S] = 2S(U − E U) + U² − E U²)."
    )
    if outcome != REPRODUCED:
        detail += (
            f" Ratio above {claim['max_dcor_ratio']:g} for: "
            + ", ".join(s for s in ratios if s not in smaller)
            + "."
        )
    verdicts.append(
        verdict(
            "dependence_much_smaller",
            outcome,
            detail,
            measured="; ".join(f"{s} {r:.2f}" for s, r in ratios.items()),
            tolerance=f"dCor ratio ≤ {claim['max_dcor_ratio']:g}",
        )
    )
    claim = claims["sine_hard_to_see"]
    _, raw, obl = next(r for r in rows if r[0] == claim["setting"])
    hidden = obl["dcor_p_value"] >= claim["alpha"]
    verdicts.append(
        verdict(
            "sine_hard_to_see",
            REPRODUCED if hidden else NOT_REPRODUCED,
            f"{claim['setting']}: distance correlation of ⟨h, Z⟩ with S"
            f" {obl['distance_correlation']:.3f}, permutation p = {obl['dcor_p_value']:.3g}"
            f" ({int(obl['n_permutations'])} permutations, {int(obl['n_points'])} points);"
            f" correlation {obl['corr_with_s']:+.3f}. "
            + (
                "No dependence detected."
                if hidden
                else "The dependence is detected: the spread of ⟨h, Z⟩ changes with S although"
                " its mean does not, as the figure shows."
            ),
            measured=f"p = {obl['dcor_p_value']:.3g}",
            tolerance=f"p ≥ {claim['alpha']:g}",
        )
    )
    return Section(
        experiment="illustration",
        title="Illustration: raw vs oblivious features (paper §5, Fig. 2)",
        verdicts=verdicts,
        intro=("Figure: `figures/oblivious_fig2.png`; table: `tables/illustration.csv`."),
        body=markdown_table(summary),
    )


def summary(job, log):
    """Job ``illustration_summary``: Fig. 2 from the sampled points, and the verdicts on the
    dependence on S of h(X) and of ⟨h, Z⟩."""
    plot_illustration(pd.read_csv(job.input.points), job.output.figure)

    reference = paper_reference(job.input.reference, "oblivious", "illustration")
    section = illustration_section(
        pd.read_csv(job.input.summary), reference, scale=job.params.scale
    )
    write_section(section, job.output.json, job.output.md)
