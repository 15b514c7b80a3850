"""Testing support: the slow oracle and the registry of equivalent compositions."""
