"""pytest runs the examples in these .rst pages; conf.py is Sphinx's, not a test."""

collect_ignore = ["conf.py"]
