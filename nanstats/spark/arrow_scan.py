"""The read path through pyarrow on the executors: exactly the planned pages.

Each task opens its files with pyarrow, reads the planned row ranges of one
row group (only the pages holding them, :func:`nanstats.parquet.reading.read_selection`),
applies the exact filter under the plan's semantics (which Spark SQL need
not be able to say) and hands Arrow batches to Spark (``mapInArrow``).  It
decodes every column of the schema in Python, so it pays only when little is
kept; :func:`nanstats.spark.scan.choose_method` uses it where Spark SQL
cannot evaluate the predicate.

>>> import os, tempfile, numpy as np, pyarrow as pa
>>> from nanstats.parquet.writing import write_table
>>> from nanstats.spark.scan import plan_scan
>>> from nanstats.spark.session import local_session
>>> folder = tempfile.mkdtemp()
>>> _ = write_table(pa.table({"x": [1.0, -np.nan, 3.0]}), os.path.join(folder, "a.parquet"))
>>> spark = local_session()
>>> plan = plan_scan(folder, "x > 2", "ieee")    # NaN compares false
>>> [r.x for r in arrow_frame(spark, folder, plan, spark.read.parquet(folder).schema).collect()]
[3.0]
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from nanstats.lake.fs import resolve
from nanstats.lake.listing import hive_partitions
from nanstats.prune.profiles import EngineProfile, profile

__all__ = ["arrow_frame"]


def _read_batches(batches: Iterator[pa.RecordBatch], root: str, predicate: str,
                  semantics: str | EngineProfile, schema_json: str) -> Iterator[pa.RecordBatch]:
    """Executor side: read planned row ranges, filter exactly, emit Spark's schema."""
    import pyarrow.parquet as papq

    from nanstats.parquet.reading import read_selection
    from nanstats.prune.parser import parse
    from nanstats.prune.results import RowSelection
    from nanstats.prune.row_filter import filter_mask

    pred = parse(predicate)
    schema = pa.ipc.read_schema(pa.py_buffer(bytes.fromhex(schema_json)))
    for batch in batches:
        for path, g, ranges in zip(batch.column("path").to_pylist(),
                                   batch.column("row_group").to_pylist(),
                                   batch.column("ranges").to_pylist(), strict=True):
            sel = RowSelection({g: tuple(tuple(r) for r in json.loads(ranges))}, 0)
            where = resolve(path)  # local or remote: the file system layer
            file_names = set(papq.ParquetFile(where.path,
                                              filesystem=where.filesystem).schema_arrow.names)
            table = read_selection(path, sel, [n for n in schema.names if n in file_names])
            parts = dict(hive_partitions(path, root))
            for name in schema.names:
                if name not in table.column_names:
                    value = parts.get(name)
                    field = schema.field(name)
                    arr = pa.array([value] * table.num_rows, pa.string()).cast(field.type)
                    table = table.append_column(name, arr)
            table = table.filter(filter_mask(pred, table, semantics))
            table = table.select(schema.names).cast(schema)
            yield from table.to_batches()



def arrow_frame(spark: Any, root: str | os.PathLike[str], plan: Any, schema: Any) -> Any:
    """A DataFrame of the plan's rows, read by pyarrow on the executors (see the module example).

    ``schema`` is Spark's schema of the whole lake (partition columns included).
    """
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_schema = to_arrow_schema(schema)
    tasks = plan.tasks()
    if not tasks:
        return spark.createDataFrame([], schema)
    frame = spark.createDataFrame(pa.Table.from_pylist(tasks, schema=pa.schema([
        ("path", pa.string()), ("row_group", pa.int32()), ("ranges", pa.string())])))
    parallelism = max(1, min(len(tasks), spark.sparkContext.defaultParallelism * 2))
    schema_hex = arrow_schema.serialize().to_pybytes().hex()
    text, sem = plan.predicate, profile(plan.semantics)
    path = os.fspath(root)
    return frame.repartition(parallelism).mapInArrow(
        lambda it: _read_batches(it, path, text, sem, schema_hex), schema)
