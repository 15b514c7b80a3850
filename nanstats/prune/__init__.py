"""Pruning: which files, row groups and pages a predicate may skip."""
