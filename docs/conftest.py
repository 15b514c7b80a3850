"""pytest runs the examples in these .rst pages.

conf.py is Sphinx's, not a test; scripts/ are the build-time generators
(they need the docs extras, e.g. matplotlib, which make test does not install).
"""

collect_ignore = ["conf.py", "scripts"]
