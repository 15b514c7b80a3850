"""``index_files``: the statistics table of a Parquet lake, built on the executors.

The files are listed on the driver, spread over the executors as a DataFrame
of paths, and each task opens its files with pyarrow, decodes the float
columns and recomputes every page and row group with the kernels.  The
result has one row per file, row group, page and float column.  Paths must be
readable from the executors (a local folder in local mode, a shared file
system on a cluster).

>>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
>>> from nanstats.spark.session import local_session
>>> folder = tempfile.mkdtemp()
>>> papq.write_table(pa.table({"x": [1.0, float("nan"), None, -0.0]}),
...                  os.path.join(folder, "a.parquet"), data_page_size=1, write_batch_size=2)
>>> rows = index_files(local_session(), folder).orderBy("page").collect()
>>> [(r.page, r.first_row, r.num_values, r.nan_count, r.null_count) for r in rows]
[(0, 0, 2, 1, 0), (1, 2, 2, 0, 1)]
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa

from nanstats.lake.listing import list_parquet_files

INDEX_SCHEMA = pa.schema([
    ("path", pa.string()), ("row_group", pa.int32()), ("page", pa.int32()),
    ("column", pa.string()), ("physical_type", pa.string()),
    ("first_row", pa.int64()), ("num_values", pa.int64()), ("null_count", pa.int64()),
    ("nan_count", pa.int64()), ("pos_nan_count", pa.int64()), ("neg_nan_count", pa.int64()),
    ("min", pa.float64()), ("max", pa.float64()), ("min_bits", pa.int64()),
    ("max_bits", pa.int64()),
])


def _signed(bits: int | None) -> int | None:
    return None if bits is None else bits - (1 << 64) if bits >= 1 << 63 else bits


def file_rows(path: str) -> dict[str, list[Any]]:
    """The index rows of one file (run on an executor)."""
    import pyarrow.parquet as papq

    from nanstats.core.stats import ColumnStats
    from nanstats.metadata.footer import read_footer
    from nanstats.parquet.recompute import recompute

    out: dict[str, list[Any]] = {f.name: [] for f in INDEX_SCHEMA}
    footer = read_footer(path)
    pf = papq.ParquetFile(path)
    with open(path, "rb") as f:
        row0 = 0
        for g, rg in enumerate(footer.metadata.row_groups or ()):
            for leaf in footer.float_columns:
                if leaf.max_repetition_level > 0:
                    continue  # lists are not indexed (their pages are not row ranges)
                cs = recompute(pf, footer, f, g, leaf.index)
                starts = cs.page_starts.tolist()
                for p in range(len(cs.pages)):
                    s = ColumnStats.from_table(cs.pages, p)
                    out["path"].append(path)
                    out["row_group"].append(g)
                    out["page"].append(p)
                    out["column"].append(leaf.name)
                    out["physical_type"].append(s.physical_type)
                    out["first_row"].append(row0 + starts[p])
                    for name in ("num_values", "null_count", "nan_count", "pos_nan_count",
                                 "neg_nan_count", "min", "max"):
                        out[name].append(getattr(s, name))
                    out["min_bits"].append(_signed(s.min_bits))
                    out["max_bits"].append(_signed(s.max_bits))
            row0 += rg.num_rows or 0
    return out


def _index_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        for path in batch.column(0).to_pylist():
            rows = file_rows(path)
            yield pa.RecordBatch.from_pydict(rows, schema=INDEX_SCHEMA)


def index_files(spark: Any, path_or_paths: str | os.PathLike[str] | Sequence[str]) -> Any:
    """The statistics table of every Parquet file under the given folders.

    One row per page of every float column (``path``, ``row_group``,
    ``page``, ``column``, ``first_row``, the counts, ``min``/``max`` and their
    exact bits), recomputed from the data on the executors, one file per task.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> from nanstats.spark.session import local_session
    >>> lake = tempfile.mkdtemp()
    >>> papq.write_table(pa.table({"x": [1.0, float("nan"), -0.0]}), os.path.join(lake, "a.parquet"))
    >>> index = index_files(local_session(), lake)
    >>> [(r.column, r.page, r.nan_count, r.min, r.max) for r in index.collect()]
    [('x', 0, 1, -0.0, 1.0)]
    """
    paths = list_parquet_files(path_or_paths)
    if not paths:
        raise FileNotFoundError(f"no .parquet file under {path_or_paths}")
    parallelism = max(1, min(len(paths), spark.sparkContext.defaultParallelism * 2))
    frame = spark.createDataFrame(pa.table({"path": paths})).repartition(parallelism)
    ddl = ", ".join(f"{f.name} {_spark_type(f.type)}" for f in INDEX_SCHEMA)
    return frame.mapInArrow(_index_batches, ddl)


def _spark_type(t: pa.DataType) -> str:
    return {pa.string(): "string", pa.int32(): "int", pa.int64(): "long",
            pa.float64(): "double"}[t]


def save_index(index: Any, path: str) -> None:
    """Store an index as Parquet (overwriting what was there).

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> from nanstats.spark.session import local_session
    >>> spark, lake = local_session(), tempfile.mkdtemp()
    >>> papq.write_table(pa.table({"x": [2.5, None]}), os.path.join(lake, "a.parquet"))
    >>> stored = os.path.join(tempfile.mkdtemp(), "index")
    >>> save_index(index_files(spark, lake), stored)
    >>> load_index(spark, stored).select("null_count", "max").collect()
    [Row(null_count=1, max=2.5)]
    """
    index.write.mode("overwrite").parquet(path)


def load_index(spark: Any, path: str) -> Any:
    """Read an index stored by :func:`save_index`.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> from nanstats.spark.session import local_session
    >>> spark, lake = local_session(), tempfile.mkdtemp()
    >>> papq.write_table(pa.table({"x": [-1.0, 4.0]}), os.path.join(lake, "a.parquet"))
    >>> stored = os.path.join(tempfile.mkdtemp(), "index")
    >>> save_index(index_files(spark, lake), stored)
    >>> load_index(spark, stored).select("column", "min", "max").first()
    Row(column='x', min=-1.0, max=4.0)
    """
    return spark.read.parquet(path)
