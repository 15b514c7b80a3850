"""``index_files``: the statistics table of a Parquet lake, built on the executors.

The files are listed on the driver (:func:`nanstats.lake.listing.list_lake`),
spread over the executors as a DataFrame of file splits (a big file is
several tasks, each a range of its row groups: :mod:`nanstats.spark.splits`),
and each task opens its file through the filesystem layer, decodes the float
columns with pyarrow and recomputes every page and row group with the
kernels.  The result has one row per file, row group, page and float column.
Paths are local paths or URIs that the executors can read (a local folder in
local mode; an object store or a shared file system on a cluster).

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
import warnings
from collections.abc import Iterator, Sequence
from contextlib import nullcontext
from typing import Any

import numpy as np
import pyarrow as pa

from nanstats.arrow import record_schema
from nanstats.core.records import INDEX_FIELDS, stats_columns
from nanstats.errors import NanstatsError
from nanstats.lake.listing import list_lake
from nanstats.lake.tables import live_files
from nanstats.spark.splits import opened, split_batches, split_frame
from nanstats.spark.summary import spark_schema

#: The index's Arrow schema: :data:`nanstats.core.records.INDEX_FIELDS`, bits
#: as signed longs (Spark has no unsigned type).
INDEX_SCHEMA = record_schema(INDEX_FIELDS, signed_bits=True)


def file_rows(path: str, row_groups: Sequence[int] | None = None, *, source: Any = None,
              parquet_file: Any = None) -> dict[str, list[Any]]:
    """The index rows of one file (run on an executor): one list per field of INDEX_SCHEMA.

    ``row_groups`` limits them to those row groups (default: all).  ``source``
    and ``parquet_file`` are the file already opened (a local path or an open
    input file, and its :class:`pyarrow.parquet.ParquetFile`); by default
    ``path`` is opened through :func:`nanstats.lake.fs.resolve`.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> path = os.path.join(tempfile.mkdtemp(), "a.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, -float("nan")]}), path)
    >>> rows = file_rows(path)
    >>> rows["page"], rows["neg_nan_count"], rows["max_bits"]
    ([0], [1], [4607182418800017408])
    """
    import pyarrow.parquet as papq

    if source is None:
        with opened(path) as source:
            return file_rows(path, row_groups, source=source)
    from nanstats.metadata.footer import read_footer

    out: dict[str, list[Any]] = {f.name: [] for f in INDEX_FIELDS}
    footer = read_footer(source)
    pf = parquet_file if parquet_file is not None else papq.ParquetFile(source)
    groups = footer.metadata.row_groups or []
    wanted = set(range(len(groups)) if row_groups is None else row_groups)
    with open(source, "rb") if isinstance(source, str) else nullcontext(source) as f:
        row0 = 0
        for g, rg in enumerate(groups):
            if g in wanted:
                _row_group_rows(out, path, pf, footer, f, g, row0)
            row0 += rg.num_rows or 0
    return out


def _row_group_rows(out: dict[str, list[Any]], path: str, pf: Any, footer: Any, f: Any,
                    g: int, row0: int) -> None:
    """The index rows of row group ``g`` (its first row is ``row0``), added to ``out``."""
    from nanstats.parquet.recompute import recompute

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


def _index_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for path, source, pf, groups in split_batches(batches):
        rows = file_rows(path, groups, source=source, parquet_file=pf)
        yield pa.RecordBatch.from_pydict(rows, schema=INDEX_SCHEMA)


def listed_files(path_or_paths: str | os.PathLike[str] | Sequence[str]) -> list[str]:
    """The Parquet files of a lake for a Spark job, listed on the driver.

    An entry that could not be listed (an unreadable folder, a dangling
    link, a FIFO named as a file: the errors of
    :func:`~nanstats.lake.listing.list_lake`) raises :class:`~nanstats.errors.NanstatsError`
    naming it: a job over part of a lake must not pass for the whole.  A
    non-file skipped inside a folder is a warning.  No file at all raises
    FileNotFoundError.

    >>> import os, tempfile
    >>> lake = tempfile.mkdtemp()
    >>> open(os.path.join(lake, "a.parquet"), "wb").close()
    >>> [os.path.basename(p) for p in listed_files(lake)]
    ['a.parquet']
    >>> listed_files(os.path.join(lake, "missing"))
    Traceback (most recent call last):
    ...
    FileNotFoundError: no such file or folder: .../missing
    """
    items = [path_or_paths] if isinstance(path_or_paths, (str, os.PathLike)) else path_or_paths
    tables = {os.fspath(t): live_files(t) for t in items}
    live = {t: files for t, files in tables.items() if files is not None}
    if live:  # a table's folder: its live files, read through the table's library
        if len(live) < len(items):
            raise ValueError("a table's folder cannot be mixed with other paths: "
                             f"{', '.join(live)}")
        return [f for files in live.values() for f in files]
    listing = list_lake(path_or_paths)
    errors = [p for p in listing.problems if p.is_error]
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise NanstatsError(f"cannot list the whole lake: {errors[0].path}: "
                            f"{errors[0].reason}{more}")
    for problem in listing.problems:
        warnings.warn(f"{problem.path}: {problem.reason}", stacklevel=3)
    if not listing.files:
        raise FileNotFoundError(f"no Parquet file under {path_or_paths}")
    return list(listing.files)


def index_files(spark: Any, path_or_paths: str | os.PathLike[str] | Sequence[str]) -> Any:
    """The statistics table of every Parquet file under the given folders (of
    the live files of a Delta Lake or Iceberg table's folder).

    One row per page of every float column (``path``, ``row_group``,
    ``page``, ``column``, ``first_row``, the counts, ``min``/``max`` and their
    exact bits), recomputed from the data on the executors, a file or a range
    of its row groups per task.  The files are listed by ``listed_files``.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> from nanstats.spark.session import local_session
    >>> lake = tempfile.mkdtemp()
    >>> papq.write_table(pa.table({"x": [1.0, float("nan"), -0.0]}), os.path.join(lake, "a.parquet"))
    >>> index = index_files(local_session(), lake)
    >>> [(r.column, r.page, r.nan_count, r.min, r.max) for r in index.collect()]
    [('x', 0, 1, -0.0, 1.0)]
    """
    frame = split_frame(spark, listed_files(path_or_paths))
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
