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

import numpy as np
import pyarrow as pa

from nanstats.arrow import record_schema
from nanstats.core.records import INDEX_FIELDS, stats_columns
from nanstats.lake.tables import list_data_files
from nanstats.spark.summary import spark_schema

#: The index's Arrow schema: :data:`nanstats.core.records.INDEX_FIELDS`, bits
#: as signed longs (Spark has no unsigned type).
INDEX_SCHEMA = record_schema(INDEX_FIELDS, signed_bits=True)


def file_rows(path: str) -> dict[str, list[Any]]:
    """The index rows of one file (run on an executor): one list per field of INDEX_SCHEMA.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> path = os.path.join(tempfile.mkdtemp(), "a.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, -float("nan")]}), path)
    >>> rows = file_rows(path)
    >>> rows["page"], rows["neg_nan_count"], rows["max_bits"]
    ([0], [1], [4607182418800017408])
    """
    import pyarrow.parquet as papq

    from nanstats.metadata.footer import read_footer
    from nanstats.parquet.recompute import recompute

    out: dict[str, list[Any]] = {f.name: [] for f in INDEX_FIELDS}
    footer = read_footer(path)
    pf = papq.ParquetFile(path)
    with open(path, "rb") as f:
        row0 = 0
        for g, rg in enumerate(footer.metadata.row_groups or ()):
            for leaf in footer.float_columns:
                if leaf.max_repetition_level > 0:
                    continue  # lists are not indexed (their pages are not row ranges)
                cs = recompute(pf, footer, f, g, leaf.index)
                n = len(cs.pages)
                records = stats_columns(cs.pages).with_columns(
                    path=np.full(n, path, dtype=object), row_group=np.full(n, g),
                    page=np.arange(n), column=np.full(n, leaf.name, dtype=object),
                    first_row=row0 + cs.page_starts[:n])
                for name, values in records.to_pylists(INDEX_FIELDS, signed_bits=True).items():
                    out[name] += values
            row0 += rg.num_rows or 0
    return out


def _index_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        for path in batch.column(0).to_pylist():
            rows = file_rows(path)
            yield pa.RecordBatch.from_pydict(rows, schema=INDEX_SCHEMA)


def index_files(spark: Any, path_or_paths: str | os.PathLike[str] | Sequence[str]) -> Any:
    """The statistics table of every Parquet file under the given folders (of
    the live files of a Delta Lake or Iceberg table's folder).

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
    paths = list_data_files(path_or_paths)  # a table's folder: its live files
    if not paths:
        raise FileNotFoundError(f"no .parquet file under {path_or_paths}")
    parallelism = max(1, min(len(paths), spark.sparkContext.defaultParallelism * 2))
    frame = spark.createDataFrame(pa.table({"path": paths})).repartition(parallelism)
    return frame.mapInArrow(_index_batches, spark_schema(frame, [], INDEX_SCHEMA))


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
