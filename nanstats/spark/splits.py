"""Spark tasks over Parquet files: a big file is split into row-group ranges.

One task per file bounds the parallelism by the number of files (one huge
file is one task).  As Spark's own Parquet reader does, the driver cuts each
file into byte ranges of at most ``spark.sql.files.maxPartitionBytes`` and
each task takes the row groups whose middle byte falls in its range: every
row group is read by exactly one task, and the driver reads no footer (it
needs only the files' sizes).  Paths are local paths or URIs; executors open
them through :func:`nanstats.lake.fs.resolve`.

>>> import os, tempfile, numpy as np, pyarrow as pa, pyarrow.parquet as papq
>>> path = os.path.join(tempfile.mkdtemp(), "a.parquet")
>>> papq.write_table(pa.table({"x": np.arange(100_000.0)}), path, row_group_size=10_000)
>>> meta = papq.ParquetFile(path).metadata
>>> [split_row_groups(meta, i, 3, os.path.getsize(path)) for i in range(3)]
[[0, 1, 2], [3, 4, 5, 6], [7, 8, 9]]
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pyarrow as pa

from nanstats.lake.fs import resolve

#: The columns of a frame of splits: the file, its size, the split's number and how many.
SPLIT_SCHEMA = pa.schema([("path", pa.string()), ("size", pa.int64()),
                          ("split", pa.int32()), ("splits", pa.int32())])

_DEFAULT_SPLIT_BYTES = 128 << 20  # Spark's default spark.sql.files.maxPartitionBytes


def split_bytes(spark: Any) -> int:
    """The session's ``spark.sql.files.maxPartitionBytes`` in bytes (128 MiB by default).

    >>> from nanstats.spark.session import local_session
    >>> split_bytes(local_session())
    134217728
    """
    text = str(spark.conf.get("spark.sql.files.maxPartitionBytes", str(_DEFAULT_SPLIT_BYTES)))
    try:
        return max(1, int(text))
    except ValueError:  # "128m", "1g": Spark's byte strings
        units = {"b": 0, "k": 10, "m": 20, "g": 30, "t": 40}
        number, unit = text[:-1].strip(), text[-1].lower()
        if unit == "b" and number[-1:].lower() in units:
            number, unit = number[:-1], number[-1].lower()
        return max(1, int(number) << units[unit])


def file_splits(paths: Sequence[str], max_bytes: int) -> pa.Table:
    """The splits of the files: ``ceil(size / max_bytes)`` per file (at least one).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.parquet")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(b"x" * 250)
    >>> file_splits([path], 100).column("split").to_pylist()
    [0, 1, 2]
    """
    rows: dict[str, list[Any]] = {f.name: [] for f in SPLIT_SCHEMA}
    for path in paths:
        size = resolve(path).info().size or 0
        count = max(1, math.ceil(size / max_bytes))
        for split in range(count):
            rows["path"].append(path)
            rows["size"].append(size)
            rows["split"].append(split)
            rows["splits"].append(count)
    return pa.table(rows, schema=SPLIT_SCHEMA)


def split_frame(spark: Any, paths: Sequence[str]) -> Any:
    """A DataFrame of the files' splits, spread over the executors.

    >>> import os, tempfile
    >>> from nanstats.spark.session import local_session
    >>> path = os.path.join(tempfile.mkdtemp(), "a.parquet")
    >>> open(path, "wb").close()
    >>> split_frame(local_session(), [path]).count()
    1
    """
    splits = file_splits(paths, split_bytes(spark))
    parallelism = max(1, min(splits.num_rows, spark.sparkContext.defaultParallelism * 2))
    return spark.createDataFrame(splits).repartition(parallelism)


def split_row_groups(metadata: Any, split: int, splits: int, size: int) -> list[int]:
    """The row groups of split ``split`` of ``splits``: those whose middle byte is in its range.

    ``metadata`` is a :class:`pyarrow.parquet.FileMetaData`.  See the module example.
    """
    lo, hi = size * split // splits, size * (split + 1) // splits
    out = []
    for g in range(metadata.num_row_groups):
        rg = metadata.row_group(g)
        starts, length = [], 0
        for c in range(rg.num_columns):
            col = rg.column(c)
            first = col.dictionary_page_offset if col.has_dictionary_page else None
            starts.append(first if first is not None and first > 0 else col.data_page_offset)
            length += col.total_compressed_size
        middle = (min(starts) if starts else 0) + length // 2
        if lo <= middle < hi:
            out.append(g)
    return out


@contextmanager
def opened(path: str) -> Iterator[Any]:
    """The file at ``path`` for pyarrow: its local path, or an open input file (URIs).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a b.parquet")
    >>> open(path, "wb").close()
    >>> with opened("file://" + path.replace(" ", "%20")) as source:
    ...     source == path
    True
    """
    where = resolve(path)
    if where.local_path is not None:
        yield where.local_path
        return
    with where.open_input_file() as f:
        yield f


def split_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[tuple[str, Any, Any, list[int]]]:
    """Executor side: each split's path, its source (a local path or an open input
    file), its :class:`pyarrow.parquet.ParquetFile` and its row groups (splits
    without a row group are left out)."""
    import pyarrow.parquet as papq

    for batch in batches:
        columns = batch.to_pydict()
        for path, size, split, splits in zip(columns["path"], columns["size"],
                                             columns["split"], columns["splits"], strict=True):
            with opened(path) as source:
                pf = papq.ParquetFile(source)
                groups = split_row_groups(pf.metadata, split, splits, size)
                if groups:
                    yield path, source, pf, groups
