"""Testing support: the slow, obviously-correct oracles (public, like ``bottleneck.slow``)."""
