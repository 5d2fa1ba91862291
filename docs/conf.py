"""Sphinx configuration of the krepro documentation.

Build: ``.venv/bin/sphinx-build -W -b html docs docs/_build`` (README, "Documentation"; needs
the ``docs`` extra). ``-W`` turns every warning into an error, so the docstrings must render
cleanly. The API pages (``docs/generated/``) and the gallery (``docs/auto_examples/``) are
written by the build.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
# The checkout's package, also when the docs are built without installing it.
sys.path.insert(0, str(REPO / "src"))

import krepro  # noqa: E402

# The gallery runs the examples in this process: one BLAS thread each, a file backend.
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

project = "krepro"
author = "The krepro authors"
copyright = "2026, The krepro authors"
release = krepro.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "krepro_scorecard",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/*.ipynb"]
root_doc = "index"

# --------------------------------------------------------------------------- API pages
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# A docstring line such as "gamma, degree, coef0 : float" is numpydoc's shorthand.
numpydoc_validation_checks: set[str] = set()

# --------------------------------------------------------------------------- gallery
sphinx_gallery_conf = {
    "examples_dirs": ["examples"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "reset_modules": ("matplotlib", "seaborn"),
    "capture_repr": ("_repr_html_", "__repr__"),
    "min_reported_time": 0,
}

# --------------------------------------------------------------------------- scorecard
# krepro_scorecard renders this file into reproduction/scorecard at every build.
krepro_verdicts = str(REPO / "snapshots" / "paper" / "verdicts.csv")
krepro_provenance = str(REPO / "snapshots" / "paper" / "provenance.json")
krepro_rules_dir = str(REPO / "workflow" / "rules")

# --------------------------------------------------------------------------- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"krepro {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path: list[str] = []
