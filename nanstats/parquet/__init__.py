"""Parquet files: read what they say, check them, upgrade them, read them pruned.

:func:`inspect` reads what a file says (footer and page index only),
:func:`verify` checks it against the rules and its own data,
:func:`upgrade` rewrites it with correct float statistics (data pages
untouched), :func:`upgrade_table` does so for every live file of a Delta
Lake or Iceberg table, committed as a new version of the table,
:func:`write_table` writes a table with them in one call, and
:func:`read_table` reads only the pages a filter may need.

>>> import os, tempfile, pyarrow as pa, nanstats.parquet
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> _ = nanstats.parquet.write_table(pa.table({"x": [1.0, float("nan")]}), path)
>>> nanstats.parquet.verify(path)
[]
>>> nanstats.parquet.read_table(path, "x > 0", semantics="ieee").num_rows
1
"""

from nanstats.parquet.inspection import (
    ChunkReport,
    ColumnReport,
    FileReport,
    PageReport,
    StatisticsReport,
    inspect,
)
from nanstats.parquet.reading import read_table
from nanstats.parquet.upgrading import (
    ColumnSummary,
    FileRewrite,
    TableUpgradeReport,
    UpgradeReport,
    upgrade,
    upgrade_table,
)
from nanstats.parquet.verification import (
    RULES,
    SEVERITIES,
    Finding,
    Rule,
    Violation,
    kinds_at_least,
    verify,
    verify_files,
)
from nanstats.parquet.writing import write_table

__all__ = [
    "RULES",
    "SEVERITIES",
    "ChunkReport",
    "ColumnReport",
    "ColumnSummary",
    "FileReport",
    "FileRewrite",
    "Finding",
    "PageReport",
    "Rule",
    "StatisticsReport",
    "TableUpgradeReport",
    "UpgradeReport",
    "Violation",
    "inspect",
    "kinds_at_least",
    "read_table",
    "upgrade",
    "upgrade_table",
    "verify",
    "verify_files",
    "write_table",
]
