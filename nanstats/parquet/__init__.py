"""Parquet files: read, verify and upgrade float statistics.

Needs the ``parquet`` extra (pyarrow, thriftpy2, thrift).
:func:`~nanstats.parquet.inspect.inspect` reads what a file says,
:func:`~nanstats.parquet.upgrade.upgrade` rewrites it with correct float
statistics, :func:`~nanstats.parquet.write.write_table` writes a table with
them in one call.
"""
