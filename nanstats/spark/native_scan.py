"""The read path through Spark's own Parquet reader: only what the plan keeps, in the JVM.

A :class:`~nanstats.spark.scan.ScanPlan` says which files, row groups and
row ranges may hold a matching row.  This path hands Spark's vectorized
reader just the kept files (the lake as Spark lists it when every file is
kept), and the exact predicate on top, written so that Spark does not push
its float conditions down (it would trust the writers' float statistics and
lose NaN rows).  In files where ranges of an integer column
(``nanstats.spark.key_ranges``) leave at most a quarter of the rows to
read, those ranges are added as a filter Spark does push down, so that its
reader skips row groups and pages by the files' integer statistics; the
other kept files are read whole and the two scans unioned.  Decoding,
column pruning and the filter all stay in the JVM; the rows are those of
Spark's full scan with the same filter.

>>> import os, tempfile, numpy as np, pyarrow as pa, pyarrow.parquet as papq
>>> from nanstats.spark.scan import plan_scan
>>> from nanstats.spark.session import local_session
>>> folder = tempfile.mkdtemp()
>>> for i in range(2):
...     papq.write_table(pa.table({"t": np.arange(100) + 100 * i, "x": np.r_[np.arange(99.0), np.nan]}),
...                      os.path.join(folder, f"p{i}.parquet"), write_page_index=True)
>>> plan = plan_scan(folder, "x > 97")
>>> spark = local_session()
>>> df = native_frame(spark, folder, plan)
>>> sorted(r.t for r in df.collect())
[98, 99, 198, 199]
"""

from __future__ import annotations

import os
from typing import Any

from nanstats.lake.fs import resolve
from nanstats.metadata.footer import read_footer
from nanstats.prune import expressions as ex
from nanstats.prune.binding import bind
from nanstats.prune.expressions import Expr
from nanstats.prune.parser import parse
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.spark.key_ranges import KeyRanges, file_key_ranges, ranges_sql
from nanstats.spark.sql import to_spark_sql

__all__ = ["empty_frame", "lake_schema", "native_frame", "native_sql", "plan_key_ranges"]

#: Ranges over all files together (the filter is evaluated on every row read).
MAX_RANGES = 16
#: Key ranges are used in a file only when they leave at most this share of
#: its rows to read (else reading the key column costs more than it saves).
KEY_RANGES_WORTH = 0.25


def plan_key_ranges(plan: Any) -> dict[str, KeyRanges]:
    """Key ranges for the kept files of a plan where they pay, by file.

    A file gets none when no integer column bounds its kept rows, or when
    its ranges leave more than ``KEY_RANGES_WORTH`` of its rows to read
    (reading the key column too would cost more than it saves).

    >>> import os, tempfile, numpy as np, pyarrow as pa
    >>> from nanstats.parquet.writing import write_table
    >>> from nanstats.spark.scan import plan_scan
    >>> folder = tempfile.mkdtemp()
    >>> _ = write_table(pa.table({"t": np.arange(40), "x": np.arange(40.0)}),
    ...                 os.path.join(folder, "a.parquet"), row_group_size=10)
    >>> list(plan_key_ranges(plan_scan(folder, "x > 37")).values())   # NaN-free: the file says so
    [KeyRanges(t: [30, 39])]
    """
    files = plan.files
    if not files:
        return {}
    per_file = max(1, MAX_RANGES // len(files))
    out: dict[str, KeyRanges] = {}
    for path in files:
        selection = plan.selections[path]
        if selection.num_rows > KEY_RANGES_WORTH * selection.total_rows:
            continue  # ranges cannot leave fewer rows than the plan keeps
        found = file_key_ranges(path, selection, per_file)
        if found is not None and found.rows <= KEY_RANGES_WORTH * selection.total_rows:
            out[path] = found
    return out


def native_sql(plan: Any, semantics: str | EngineProfile = "spark") -> str:
    """The exact filter in Spark SQL with float columns kept from Spark's pushdown.

    ValueError when Spark SQL cannot say the predicate under ``semantics``.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> from nanstats.spark.scan import plan_scan
    >>> folder = tempfile.mkdtemp()
    >>> papq.write_table(pa.table({"n": [1], "x": [1.0]}), os.path.join(folder, "a.parquet"))
    >>> native_sql(plan_scan(folder, "x > 0.5 and n == 1"))
    'coalesce(((`x` + 0.0D) > 0.5D), false) AND (`n` = 1)'
    """
    prof = profile(semantics)
    pred = parse(plan.predicate)
    widths: dict[str, int] = dict(plan.float_widths)
    if not widths:  # a plan made without them: the files say
        for path in plan.files or plan.all_files[:1]:
            for leaf in read_footer(path).float_columns:
                widths[leaf.name] = leaf.float_type.width if leaf.float_type else 64
    floats = set(widths)
    # Conjuncts on float columns go in coalesce(..., false): the same rows (a
    # null condition drops the row either way), but not null-intolerant, so
    # Spark infers no IsNotNull to push from them and, with nothing pushed,
    # its reader reads no page index.  Other conjuncts are pushed as usual.
    parts = []
    for conjunct in _conjuncts(bind(pred, widths, prof)):
        sql = to_spark_sql(conjunct, prof, opaque=floats)
        parts.append(f"coalesce({sql}, false)" if conjunct.columns() & floats else sql)
    return " AND ".join(parts)


def _conjuncts(e: Expr) -> list[Expr]:
    if isinstance(e, ex.And):
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


#: Session settings that change the schema Spark infers from Parquet files.
_SCHEMA_CONFS = ("spark.sql.parquet.binaryAsString", "spark.sql.parquet.int96AsTimestamp",
                 "spark.sql.parquet.mergeSchema", "spark.sql.caseSensitive",
                 "spark.sql.sources.partitionColumnTypeInference.enabled",
                 "spark.sql.parquet.inferTimestampNTZ.enabled")

#: Spark's schema of a lake, by session, root, settings and the files' identity.
_SCHEMAS: dict[tuple[Any, ...], Any] = {}


def _setting(spark: Any, key: str) -> str | None:
    try:
        return str(spark.conf.get(key))
    except Exception:  # noqa: BLE001 - a setting this Spark does not know
        return None


def lake_schema(spark: Any, root: str | os.PathLike[str], files: Any = ()) -> Any:
    """Spark's schema of the lake at ``root``, inferred once while its files are unchanged.

    Spark infers a Parquet lake's schema with a job of its own (one footer
    read on an executor) every time it is read without a schema; a read
    given the schema skips that job.  The schema is kept by session, root,
    the session settings that change it and ``files`` (each file's path, size
    and modification time: :meth:`nanstats.lake.fs.Location.identity`), so a
    file added, removed or rewritten makes Spark infer it again.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> from nanstats.spark.session import local_session
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "a.parquet")
    >>> papq.write_table(pa.table({"x": [1.0]}), path)
    >>> spark = local_session()
    >>> lake_schema(spark, folder, [path]).simpleString()
    'struct<x:double>'
    >>> lake_schema(spark, folder, [path]) is lake_schema(spark, folder, [path])
    True
    """
    root = os.fspath(root)
    key = (id(spark), root, tuple(_setting(spark, k) for k in _SCHEMA_CONFS),
           tuple(resolve(os.fspath(f)).identity() for f in files))
    schema = _SCHEMAS.get(key)
    if schema is None:
        schema = spark.read.parquet(root).schema
        if len(_SCHEMAS) >= 256:
            _SCHEMAS.clear()
        _SCHEMAS[key] = schema
    return schema


def native_frame(spark: Any, root: str | os.PathLike[str], plan: Any, *,
                 schema: Any = None, keys: dict[str, KeyRanges] | None = None) -> Any:
    """A DataFrame of the plan's rows read by Spark's own reader (see the module example).

    ``schema`` (Spark's schema of the whole lake) is :func:`lake_schema` when
    not given; ``keys`` default to :func:`plan_key_ranges`.
    """
    root = os.fspath(root)
    if keys is None:
        keys = plan_key_ranges(plan)
    if schema is None:
        schema = lake_schema(spark, root, plan.all_files)
    if plan.files and len(plan.files) == len(plan.all_files) and not keys:
        # Every file is read whole: the lake as Spark lists it (the schema given,
        # so Spark runs no job to infer it), the exact filter on top.
        return _relation(spark, root, schema, None).where(native_sql(plan, plan.semantics))
    if not plan.files:
        return empty_frame(spark, schema)
    condition = native_sql(plan, plan.semantics)
    ranged = tuple(f for f in plan.files if f in keys)
    whole = tuple(f for f in plan.files if f not in keys)
    parts = []
    if ranged:
        parts.append(_relation(spark, root, schema, ranged)
                     .where(ranges_sql([keys[f] for f in ranged])))
    if whole:
        parts.append(_relation(spark, root, schema, whole))
    df = parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1])
    return df.where(condition)


def empty_frame(spark: Any, schema: Any) -> Any:
    """A DataFrame of no rows with ``schema``, for a plan that keeps no file.

    Made over an empty RDD: no rows to convert, no file to list (a
    ``createDataFrame`` of an empty list took 0.15-0.3 s to count here, this
    0.04-0.08 s).

    >>> from pyspark.sql.types import DoubleType, StructField, StructType
    >>> from nanstats.spark.session import local_session
    >>> empty_frame(local_session(), StructType([StructField("x", DoubleType())])).count()
    0
    """
    return spark.createDataFrame(spark.sparkContext.emptyRDD(), schema)


#: Spark's relations over a lake's files, by session, root, files and schema object.
_RELATIONS: dict[tuple[Any, ...], tuple[Any, Any]] = {}


def _relation(spark: Any, root: str, schema: Any, files: tuple[str, ...] | None) -> Any:
    """``spark.read.schema(schema).parquet(...)`` of the root (``files`` None) or of
    some of its files, made once and reused: Spark lists the files and resolves
    the relation when it is made, and a reused one skips that.  The key holds
    the schema object, which :func:`lake_schema` makes anew whenever a file of
    the lake changes, so a changed lake gets a new relation."""
    key = (id(spark), root, files, id(schema))
    found = _RELATIONS.get(key)
    if found is not None and found[0] is schema:
        return found[1]
    reader = spark.read.schema(schema)
    if files is None:
        df = reader.parquet(root)
    else:
        if resolve(root).is_dir():  # partition columns (day=1/...) are found from the root
            reader = reader.option("basePath", root)
        df = reader.parquet(*files)
    if len(_RELATIONS) >= 64:
        _RELATIONS.clear()
    _RELATIONS[key] = (schema, df)
    return df
