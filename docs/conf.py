"""Sphinx configuration for the nanstats documentation (``make docs``)."""

from __future__ import annotations

import nanstats

project = "nanstats"
author = "the nanstats developers"
copyright = "2026, the nanstats developers"
release = nanstats.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "numpydoc",
]
autosummary_generate = True
autodoc_typehints = "description"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
exclude_patterns = ["_build", "generated/*.rst.txt"]
html_theme = "pydata_sphinx_theme"
html_title = "nanstats"
html_theme_options = {"navigation_with_keys": False}
