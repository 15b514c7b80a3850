"""Parquet files: read, verify and upgrade float statistics.

Needs the ``parquet`` extra (pyarrow, thriftpy2, thrift).
"""
