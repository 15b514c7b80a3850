"""Benchmark support: the exact compositions timed against nanstats and best-of timings.

Importable by benchmarks/*.py (run as scripts), asv_bench/benchmarks and
docs/scripts, which put ``benchmarks/`` on ``sys.path``; not part of the wheel.
"""
