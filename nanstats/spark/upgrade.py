"""``upgrade_files``: the Parquet upgrade, one file per Spark task.

Each source file under ``src_dir`` is upgraded to the same relative path
under ``dst_dir`` on an executor; a failure on one file is reported in its
row (``error``) and does not stop the others, and so is an entry the
driver's listing could not use (:func:`nanstats.lake.listing.list_lake`).
Paths must be readable and writable from the executors.

A task attempt writes a local destination under a name of its own
(``.<name>.attempt-<id>.nanstats-part``, the upgrade's own temporary file
beside it) and renames it over the destination when complete; it then
removes what other attempts at the same file left (an attempt killed
mid-write leaves its temporary file, which the retry that replaces it
removes).  A big file stays one task: each output file is written whole by
one attempt.

>>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
>>> from nanstats.spark.session import local_session
>>> src, dst = tempfile.mkdtemp(), tempfile.mkdtemp()
>>> papq.write_table(pa.table({"x": [1.0, float("nan")]}), os.path.join(src, "a.parquet"))
>>> row = upgrade_files(local_session(), src, dst).collect()[0]
>>> row.error, row.columns_upgraded, os.path.exists(os.path.join(dst, "a.parquet"))
(None, 1, True)
>>> sorted(os.listdir(dst))
['a.parquet']
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from nanstats.errors import UnsupportedTableError
from nanstats.lake.fs import resolve
from nanstats.lake.listing import list_lake
from nanstats.lake.tables import table_root

RESULT_SCHEMA = pa.schema([
    ("src", pa.string()), ("dst", pa.string()), ("bytes_in", pa.int64()),
    ("bytes_out", pa.int64()), ("columns_upgraded", pa.int32()),
    ("columns_skipped", pa.int32()), ("column_indexes", pa.int32()),
    ("nan_count", pa.int64()), ("seconds", pa.float64()), ("error", pa.string()),
])

_ATTEMPT = ".attempt-"
_PART = ".nanstats-part"


def attempt_path(dst: str, attempt: int) -> str:
    """Where task attempt ``attempt`` writes ``dst`` before renaming it: beside it, hidden.

    >>> attempt_path("/lake/out/a.parquet", 7)
    '/lake/out/.a.parquet.attempt-7.nanstats-part'
    """
    folder, name = os.path.split(dst)
    return os.path.join(folder, f".{name}{_ATTEMPT}{attempt}{_PART}")


def remove_other_attempts(dst: str) -> list[str]:
    """Remove what attempts at ``dst`` left beside it (their files and the upgrade's
    temporary files of those); the names removed.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> dst = os.path.join(folder, "a.parquet")
    >>> killed = "." + os.path.basename(attempt_path(dst, 4)) + ".1a2b3c4d.nanstats-tmp"
    >>> for name in (attempt_path(dst, 3), killed):
    ...     open(os.path.join(folder, name), "wb").close()
    >>> sorted(os.path.basename(p) for p in remove_other_attempts(dst))
    ['..a.parquet.attempt-4.nanstats-part.1a2b3c4d.nanstats-tmp', '.a.parquet.attempt-3.nanstats-part']
    """
    folder, name = os.path.split(dst)
    prefixes = (f".{name}{_ATTEMPT}", f"..{name}{_ATTEMPT}")
    removed = []
    for entry in os.listdir(folder or "."):
        if entry.startswith(prefixes) and (entry.endswith(_PART)
                                           or entry.endswith(".nanstats-tmp")):
            path = os.path.join(folder, entry)
            try:
                os.unlink(path)
            except FileNotFoundError:  # another attempt removed it first
                continue
            removed.append(path)
    return removed


def upgrade_one(src: str, dst: str, order: str, attempt: int, progress: Any = None) -> Any:
    """Upgrade ``src`` into ``dst`` as task attempt ``attempt``; the UpgradeReport.

    A local ``dst`` is written at :func:`attempt_path`, renamed over ``dst``
    when complete, and then every other attempt's leftovers are removed.
    Elsewhere (an object store) the upgrade's own atomic write is used.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> d = tempfile.mkdtemp()
    >>> papq.write_table(pa.table({"x": [2.0]}), os.path.join(d, "a.parquet"))
    >>> upgrade_one(os.path.join(d, "a.parquet"), os.path.join(d, "b.parquet"), "ieee754", 1).order
    'ieee754'
    >>> sorted(os.listdir(d))
    ['a.parquet', 'b.parquet']
    """
    from nanstats.parquet.upgrading import upgrade
    from nanstats.parquet.upgrading.writer import output_mode

    target = resolve(dst)
    if target.local_path is None:
        return upgrade(src, dst, order, progress=progress)  # type: ignore[arg-type]
    local_dst = target.local_path
    os.makedirs(os.path.dirname(local_dst) or ".", exist_ok=True)
    staging = attempt_path(local_dst, attempt)
    report = upgrade(src, staging, order, progress=progress)  # type: ignore[arg-type]
    os.chmod(staging, output_mode(resolve(src).local_path or src, local_dst))
    os.replace(staging, local_dst)
    remove_other_attempts(local_dst)
    return report


def _attempt_id() -> int:
    from pyspark import TaskContext

    context = TaskContext.get()
    return context.taskAttemptId() if context is not None else os.getpid()


def _upgrade_batches(batches: Iterator[pa.RecordBatch], order: str) -> Iterator[pa.RecordBatch]:
    attempt = _attempt_id()
    for batch in batches:
        rows: dict[str, list[Any]] = {f.name: [] for f in RESULT_SCHEMA}
        for src, dst, problem in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(),
                                     batch.column(2).to_pylist(), strict=True):
            start = time.perf_counter()
            rows["src"].append(src)
            rows["dst"].append(dst)
            try:
                if problem is not None:  # the driver could not list it as a data file
                    raise _Unlisted(problem)
                report = upgrade_one(src, dst, order, attempt)
                upgraded = [c for c in report.columns if c.action == "upgraded"]
                values: tuple[Any, ...] = (report.bytes_in, report.bytes_out, len(upgraded),
                                           len(report.skipped),
                                           sum(c.column_index_row_groups for c in upgraded),
                                           sum(c.nan_count or 0 for c in upgraded), None)
            except _Unlisted as exc:
                values = (None, None, None, None, None, None, str(exc))
            except Exception as exc:  # noqa: BLE001 - reported per file
                values = (None, None, None, None, None, None, f"{type(exc).__name__}: {exc}")
            for name, value in zip(["bytes_in", "bytes_out", "columns_upgraded",
                                    "columns_skipped", "column_indexes", "nan_count", "error"],
                                   values, strict=True):
                rows[name].append(value)
            rows["seconds"].append(time.perf_counter() - start)
        yield pa.RecordBatch.from_pydict(rows, schema=RESULT_SCHEMA)


class _Unlisted(Exception):
    """An entry of the listing that is not a usable data file (its reason is the message)."""


def upgrade_files(spark: Any, src_dir: str, dst_dir: str, order: str = "ieee754") -> Any:
    """Upgrade every Parquet file under ``src_dir`` into ``dst_dir``; one row per file.

    Each task runs :func:`nanstats.parquet.upgrading.upgrade` on one file, so
    the executors must see both folders (a shared file system).  A file that
    fails gets its message in ``error``; the others are still written.  An
    entry the listing could not use (an unreadable folder, a dangling link, a
    FIFO: :class:`~nanstats.lake.listing.ListingProblem`) gets a row too, its
    ``dst`` null and its problem in ``error``.

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
    listing = list_lake(src_dir)
    if not listing.files and not listing.problems:
        raise FileNotFoundError(f"no Parquet file under {src_dir}")
    sources = list(listing.files) + [p.path for p in listing.problems]
    targets: list[str | None] = [os.path.join(dst_dir, os.path.relpath(s, src_dir))
                                 for s in listing.files]
    targets += [None] * len(listing.problems)
    problems = [None] * len(listing.files) + [f"{p.kind}: {p.reason}" for p in listing.problems]
    parallelism = max(1, min(len(sources), spark.sparkContext.defaultParallelism * 2))
    pairs = spark.createDataFrame(pa.table({"src": sources, "dst": targets, "problem": problems},
                                           schema=pa.schema([("src", pa.string()),
                                                             ("dst", pa.string()),
                                                             ("problem", pa.string())])))
    ddl = ("src string, dst string, bytes_in long, bytes_out long, columns_upgraded int, "
           "columns_skipped int, column_indexes int, nan_count long, seconds double, "
           "error string")
    return pairs.repartition(parallelism).mapInArrow(
        lambda it: _upgrade_batches(it, order), ddl)
