"""``upgrade_files``: the Parquet upgrade, one file per Spark task.

Each source file under ``src_dir`` is upgraded to the same relative path
under ``dst_dir`` on an executor; a failure on one file is reported in its
row (``error``) and does not stop the others.  Paths must be readable and
writable from the executors.

>>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
>>> from nanstats.spark.session import local_session
>>> src, dst = tempfile.mkdtemp(), tempfile.mkdtemp()
>>> papq.write_table(pa.table({"x": [1.0, float("nan")]}), os.path.join(src, "a.parquet"))
>>> row = upgrade_files(local_session(), src, dst).collect()[0]
>>> row.error, row.columns_upgraded, os.path.exists(os.path.join(dst, "a.parquet"))
(None, 1, True)
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from nanstats.errors import UnsupportedTableError
from nanstats.lake.listing import list_parquet_files
from nanstats.lake.tables import table_root

RESULT_SCHEMA = pa.schema([
    ("src", pa.string()), ("dst", pa.string()), ("bytes_in", pa.int64()),
    ("bytes_out", pa.int64()), ("columns_upgraded", pa.int32()),
    ("columns_skipped", pa.int32()), ("column_indexes", pa.int32()),
    ("nan_count", pa.int64()), ("seconds", pa.float64()), ("error", pa.string()),
])


def _upgrade_batches(batches: Iterator[pa.RecordBatch], order: str) -> Iterator[pa.RecordBatch]:
    from nanstats.parquet.upgrading import upgrade

    for batch in batches:
        rows: dict[str, list[Any]] = {f.name: [] for f in RESULT_SCHEMA}
        for src, dst in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(),
                            strict=True):
            start = time.perf_counter()
            rows["src"].append(src)
            rows["dst"].append(dst)
            try:
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                report = upgrade(src, dst, order)  # type: ignore[arg-type]
                upgraded = [c for c in report.columns if c.action == "upgraded"]
                values: tuple[Any, ...] = (report.bytes_in, report.bytes_out, len(upgraded),
                          len(report.skipped),
                          sum(c.column_index_row_groups for c in upgraded),
                          sum(c.nan_count or 0 for c in upgraded), None)
            except Exception as exc:  # noqa: BLE001 - reported per file
                values = (None, None, None, None, None, None, f"{type(exc).__name__}: {exc}")
            for name, value in zip(["bytes_in", "bytes_out", "columns_upgraded",
                                    "columns_skipped", "column_indexes", "nan_count", "error"],
                                   values, strict=True):
                rows[name].append(value)
            rows["seconds"].append(time.perf_counter() - start)
        yield pa.RecordBatch.from_pydict(rows, schema=RESULT_SCHEMA)


def upgrade_files(spark: Any, src_dir: str, dst_dir: str, order: str = "ieee754") -> Any:
    """Upgrade every Parquet file under ``src_dir`` into ``dst_dir``; one row per file.

    Each task runs :func:`nanstats.parquet.upgrading.upgrade` on one file, so
    the executors must see both folders (a shared file system).  A file that
    fails gets its message in ``error``; the others are still written.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> from nanstats.spark.session import local_session
    >>> src, dst = tempfile.mkdtemp(), tempfile.mkdtemp()
    >>> papq.write_table(pa.table({"x": [1.0, float("nan")]}), os.path.join(src, "a.parquet"))
    >>> rows = upgrade_files(local_session(), src, dst).collect()
    >>> [(os.path.basename(r.dst), r.columns_upgraded, r.nan_count, r.error) for r in rows]
    [('a.parquet', 1, 1, None)]
    """
    if os.path.abspath(src_dir) == os.path.abspath(dst_dir):
        raise ValueError("upgrade_files writes new files: src_dir and dst_dir must differ")
    table = table_root(src_dir)
    if table is not None:
        raise UnsupportedTableError(
            f"{src_dir}: is (inside) a {table[0]} table at {table[1]}; upgrade_files would copy "
            "its files without the table's log: upgrade the table in place with "
            "nanstats.parquet.upgrade_table")
    sources = list_parquet_files(src_dir)
    if not sources:
        raise FileNotFoundError(f"no .parquet file under {src_dir}")
    targets = [os.path.join(dst_dir, os.path.relpath(s, src_dir)) for s in sources]
    parallelism = max(1, min(len(sources), spark.sparkContext.defaultParallelism * 2))
    pairs = spark.createDataFrame(pa.table({"src": sources, "dst": targets}))
    ddl = ("src string, dst string, bytes_in long, bytes_out long, columns_upgraded int, "
           "columns_skipped int, column_indexes int, nan_count long, seconds double, "
           "error string")
    return pairs.repartition(parallelism).mapInArrow(
        lambda it: _upgrade_batches(it, order), ddl)
