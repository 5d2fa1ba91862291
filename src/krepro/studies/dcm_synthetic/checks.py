"""Config checks of the synthetic DCM study (``STUDY.config_checks``): what the schema cannot
say about the ``dcm_synthetic`` section, checked before the workflow builds its DAG."""

from __future__ import annotations

__all__ = ["check"]


def check(problems, config):
    """Append the problems of ``config["dcm_synthetic"]`` to ``problems``: unseen domains
    left, and Wishart degrees of freedom above the dimension − 1."""
    dcm = config["dcm_synthetic"]
    if dcm["n_train_domains"] >= dcm["n_domains"]:
        problems.append(
            f"dcm_synthetic.n_train_domains = {dcm['n_train_domains']} must be smaller than "
            f"dcm_synthetic.n_domains = {dcm['n_domains']} (the rest are the unseen domains)."
        )
    # scipy.stats.wishart needs df > dim − 1.
    for prefix, section in (("dcm_synthetic", dcm), ("dcm_synthetic.fig2", dcm["fig2"])):
        if section["wishart_df"] <= section["dim"] - 1:
            problems.append(
                f"{prefix}.wishart_df = {section['wishart_df']} must exceed {prefix}.dim − 1 = "
                f"{section['dim'] - 1} (Wishart W(ηI, df) in dimension dim)."
            )
