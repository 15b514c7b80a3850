"""``upgrade_table``: a Delta Lake or Iceberg table upgraded in place, as one transaction of the table.

Every live file of the table's current version is upgraded by
:func:`~nanstats.parquet.upgrading.upgrade` into a new file beside it (same
folder, a new name), and the rewrite is committed through the table's own
library: Delta ``remove`` + ``add`` actions with ``dataChange=false``
(``deltalake``), an Iceberg snapshot that deletes the old data files and
adds the new ones (``pyiceberg``, through the table's catalog).  Readers of
the new version see the same rows; the previous version still names the old
files, which stay until the table's own vacuum or snapshot expiry removes
them.  Files with nothing to upgrade (no float column) are left as they are.

Per-file statistics of the log are carried over from the old file (same
rows, same values): Delta's ``numRecords``/``minValues``/``maxValues``/
``nullCount``, Iceberg's counts and bounds; what depends on the file's
layout is recomputed from the new footer (sizes, Iceberg's split offsets and
column sizes).

Refused, before anything is written (:class:`~nanstats.errors.UnsupportedTableError`):
tables whose rows are masked by Delta deletion vectors or Iceberg delete
files (they name rows of the old files), Delta column mapping, row tracking
and clustering (the rewrite would lose their bookkeeping), Iceberg files of
an older partition spec, encrypted files, Iceberg format v3, and an Iceberg
table without a catalog (found by its folder).  A failure before the commit
removes the new files; the table is untouched.

>>> import os, tempfile, pyarrow as pa
>>> from deltalake import DeltaTable, write_deltalake
>>> folder = os.path.join(tempfile.mkdtemp(), "events")
>>> write_deltalake(folder, pa.table({"x": [1.5, float("nan"), -0.0]}))
>>> report = upgrade_table(folder)
>>> report.version_before, report.version_after, len(report.rewritten)
(0, 1, 1)
>>> DeltaTable(folder).to_pyarrow_table()["x"].to_pylist()
[1.5, nan, -0.0]
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import json
import math
import os
import re
import secrets
import shutil
import tempfile
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nanstats.core.rules import ColumnOrderName, TypeOrderPolicy
from nanstats.errors import NanstatsError, UnsupportedTableError
from nanstats.lake.fs import Location
from nanstats.lake.tables import LakeTable, TableFile, open_table
from nanstats.metadata.footer import read_footer
from nanstats.parquet.upgrading.report import UpgradeReport
from nanstats.parquet.upgrading.run import upgrade

__all__ = ["FileRewrite", "TableUpgradeReport", "upgrade_table"]


@dataclass(frozen=True)
class FileRewrite:
    """One live file of an upgraded table: its replacement (None when the
    file had nothing to upgrade and stays) and the file's upgrade report.

    >>> FileRewrite("t/a.parquet", None, None).to_dict()
    {'old': 't/a.parquet', 'new': None}
    """

    old: str
    new: str | None
    report: UpgradeReport | None

    def to_dict(self) -> dict[str, Any]:
        """The rewrite as plain values (for JSON)."""
        out: dict[str, Any] = {"old": self.old, "new": self.new}
        if self.report is not None:
            out["upgrade"] = self.report.to_dict()
        return out


@dataclass(frozen=True)
class TableUpgradeReport:
    """What :func:`upgrade_table` did: the versions before and after (the
    same when nothing needed upgrading) and every live file.

    >>> report = TableUpgradeReport("delta", "t", 3, 3, ())
    >>> report.committed, report.to_dict()["rewritten"]
    (False, 0)
    """

    format: str
    table: str
    version_before: int | None
    version_after: int | None
    files: tuple[FileRewrite, ...]

    @property
    def rewritten(self) -> tuple[FileRewrite, ...]:
        """The files replaced by an upgraded copy."""
        return tuple(f for f in self.files if f.new is not None)

    @property
    def committed(self) -> bool:
        """True when a new version of the table was committed."""
        return bool(self.rewritten)

    def to_dict(self) -> dict[str, Any]:
        """The report as plain values (for JSON)."""
        return {"format": self.format, "table": self.table,
                "version_before": self.version_before, "version_after": self.version_after,
                "files": [f.to_dict() for f in self.files],
                "rewritten": len(self.rewritten), "committed": self.committed}


def upgrade_table(table: str | os.PathLike[str] | LakeTable, order: ColumnOrderName = "ieee754",
                  *, policy: TypeOrderPolicy = "safe", truncate: int | None = None,
                  storage_options: Mapping[str, str] | None = None,
                  memory_map: bool = True) -> TableUpgradeReport:
    """Upgrade every live file of a Delta Lake or Iceberg table in place, committed as
    one new version of the table.

    ``table`` is a table's folder (a local path or a URI; a Delta table, or
    an Iceberg table found by its folder, which is refused for want of a
    catalog) or a :class:`~nanstats.lake.tables.LakeTable`
    (:func:`~nanstats.lake.tables.iceberg_table` loads an Iceberg table
    from its catalog).  ``order``, ``policy``, ``truncate`` and
    ``memory_map`` are those of :func:`~nanstats.parquet.upgrade`;
    ``storage_options`` go to ``deltalake`` for a table on an object store.

    >>> import os, tempfile, pyarrow as pa
    >>> from pyiceberg.catalog.sql import SqlCatalog
    >>> from nanstats.lake.tables import iceberg_table
    >>> where = tempfile.mkdtemp()
    >>> catalog = SqlCatalog("demo", uri=f"sqlite:///{where}/catalog.db", warehouse=f"file://{where}")
    >>> catalog.create_namespace("lake")
    >>> data = pa.table({"x": [2.0, float("nan"), None]})
    >>> catalog.create_table("lake.events", schema=data.schema).append(data)
    >>> report = upgrade_table(iceberg_table(catalog, "lake.events"))
    >>> report.committed, catalog.load_table("lake.events").scan().to_arrow()["x"].to_pylist()
    (True, [2.0, nan, None])
    """
    lake = table if isinstance(table, LakeTable) else open_table(
        table, storage_options=storage_options)
    if lake.commit_refusal is not None:
        raise UnsupportedTableError(lake.commit_refusal)
    refusal = _delta_refusal(lake) if lake.format == "delta" else _iceberg_refusal(lake)
    if refusal is not None:
        raise UnsupportedTableError(f"{lake.uri}: {refusal}; nothing was written")
    token = secrets.token_hex(6)
    written: list[Location] = []
    rewrites: list[FileRewrite] = []
    replaced: list[tuple[TableFile, _NewFile]] = []
    committed = False
    try:
        for old in lake.files:
            src = lake.location(old.path)
            dst = src.with_path(_sibling(src, token))
            new = _rewrite(src, dst, order, policy=policy, truncate=truncate,
                           memory_map=memory_map, written=written)
            if not (new.report.upgraded or new.report.truncated):
                if dst in written:
                    _delete(dst)
                    written.remove(dst)
                rewrites.append(FileRewrite(old.path, None, new.report))
                continue
            replaced.append((old, new))
            rewrites.append(FileRewrite(old.path, _shown(dst), new.report))
        version = lake.version
        if replaced:
            version = (_commit_delta(lake, replaced) if lake.format == "delta"
                       else _commit_iceberg(lake, replaced))
            committed = True
    finally:
        if not committed:
            for where in written:
                _delete(where)
    return TableUpgradeReport(lake.format, lake.uri, lake.version, version, tuple(rewrites))


# -- the new files ---------------------------------------------------------------------


@dataclass(frozen=True)
class _NewFile:
    where: Location
    size: int
    report: UpgradeReport
    split_offsets: list[int]
    column_sizes: dict[int, int] | None  # by Parquet field id, when every leaf has one


_SUFFIX = re.compile(r"-nanstats-[0-9a-f]{12}$")


def _sibling(src: Location, token: str) -> str:
    """The new file's path: beside ``src``, its name with ``-nanstats-<token>``
    before the extensions (an earlier such tag replaced, so names do not grow)."""
    sep = os.sep if src.is_local else "/"
    folder, _, name = src.path.rpartition(sep)
    stem, dot, extensions = name.partition(".")
    stem = _SUFFIX.sub("", stem)
    return f"{folder}{sep}{stem}-nanstats-{token}{dot}{extensions}"


def _shown(where: Location) -> str:
    return where.path if where.is_local else where.uri


def _delete(where: Location) -> None:
    try:
        where.filesystem.delete_file(where.path)
    except (OSError, FileNotFoundError):
        pass


def _facts(path: str) -> tuple[list[int], dict[int, int] | None]:
    """Row-group start offsets and compressed bytes per field id, from the new footer."""
    footer = read_footer(path)
    offsets = []
    sizes: dict[int, int] = {}
    ids: list[int | None] = [footer.schema[leaf.schema_index].field_id
                             for leaf in footer.columns]
    for g in range(footer.num_row_groups):
        first = footer.chunk_meta(g, 0)
        data = int(first.data_page_offset or 0)
        dictionary = first.dictionary_page_offset
        offsets.append(int(dictionary) if dictionary is not None and 0 < dictionary < data
                       else data)
        for leaf, field_id in enumerate(ids):
            if field_id is not None:
                size = int(footer.chunk_meta(g, leaf).total_compressed_size or 0)
                sizes[field_id] = sizes.get(field_id, 0) + size
    return sorted(offsets), (sizes if all(i is not None for i in ids) else None)


def _rewrite(src: Location, dst: Location, order: ColumnOrderName, *, policy: TypeOrderPolicy,
             truncate: int | None, memory_map: bool, written: list[Location]) -> _NewFile:
    """Upgrade ``src`` into ``dst`` (a new name; remote files staged in a local
    temporary folder, the new object uploaded whole)."""
    if src.is_local and dst.is_local:
        written.append(dst)
        report = upgrade(src.path, dst.path, order, policy=policy, truncate=truncate,
                         memory_map=memory_map)
        offsets, sizes = _facts(dst.path)
        return _NewFile(dst, os.path.getsize(dst.path), report, offsets, sizes)
    with tempfile.TemporaryDirectory(prefix="nanstats-table-") as stage:
        local_src, local_dst = os.path.join(stage, "src.parquet"), os.path.join(stage, "dst.parquet")
        with src.filesystem.open_input_stream(src.path) as f, open(local_src, "wb") as out:
            shutil.copyfileobj(f, out, 8 << 20)
        report = upgrade(local_src, local_dst, order, policy=policy, truncate=truncate,
                         memory_map=memory_map)
        offsets, sizes = _facts(local_dst)
        size = os.path.getsize(local_dst)
        if report.upgraded or report.truncated:  # else nothing to commit: no upload
            written.append(dst)
            with open(local_dst, "rb") as f, dst.filesystem.open_output_stream(dst.path) as out:
                shutil.copyfileobj(f, out, 8 << 20)
    report = dataclasses.replace(report, src=src.uri, dst=dst.uri)
    return _NewFile(dst, size, report, offsets, sizes)


# -- Delta Lake ------------------------------------------------------------------------


def _delta_refusal(lake: LakeTable) -> str | None:
    dt = lake.handle
    config = dt.metadata().configuration or {}
    features = set(dt.protocol().writer_features or ()) | set(dt.protocol().reader_features or ())
    if (config.get("delta.columnMapping.mode") or "none") != "none":
        return ("the table uses column mapping (its statistics name physical columns), which "
                "nanstats does not rewrite")
    if "rowTracking" in features or config.get("delta.enableRowTracking") == "true":
        return "the table tracks row ids, which a rewrite through deltalake would not keep"
    if "clustering" in features:
        return "the table is clustered, and a rewrite through deltalake would drop the clustering"
    if "deletionVectors" in features and dt.deletion_vectors().read_all().num_rows:
        return ("some files have deletion vectors, which name rows of those files: run OPTIMIZE "
                "(or purge the deletion vectors) first")
    outside = [f.log_path for f in lake.files if urllib.parse.urlparse(f.log_path).scheme]
    if outside:
        return f"{len(outside)} file(s) lie outside the table's folder (e.g. {outside[0]})"
    return None


def _partition_text(value: Any, known: set[str | None]) -> str | None:
    """The string the Delta log holds for a partition value (one of those the
    table's partitions use)."""
    if value is None:
        return None
    if isinstance(value, bool):
        candidates = ["true" if value else "false"]
    elif isinstance(value, datetime.datetime):
        utc = value.astimezone(datetime.UTC).replace(tzinfo=None) if value.tzinfo \
            else value
        candidates = [utc.strftime("%Y-%m-%d %H:%M:%S.%f"), utc.strftime("%Y-%m-%d %H:%M:%S"),
                      utc.isoformat(), utc.isoformat() + "Z"]
    elif isinstance(value, bytes):
        candidates = [value.decode("latin-1")]
    else:
        candidates = [str(value)]
        if isinstance(value, float):
            candidates.append(repr(value))
    for text in candidates:
        if text in known:
            return text
    raise UnsupportedTableError(f"cannot reproduce the log's text of the partition value "
                                f"{value!r}; nothing was written")


def _json_value(value: Any) -> Any:
    """A statistic as the Delta log writes it (JSON); None when JSON cannot hold it."""
    if isinstance(value, dict):
        out = {k: v for k, v in ((k, _json_value(v)) for k, v in value.items()) if v is not None}
        return out or None
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (int, str)):
        return value
    if isinstance(value, decimal.Decimal):
        return float(value) if value.is_finite() else None
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.UTC)
        text = value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}"
        if value.microsecond % 1000:
            text = value.strftime("%Y-%m-%dT%H:%M:%S.%f")
        return text + ("Z" if value.tzinfo is not None else "")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return None  # binary and others: no statistic rather than a wrong one


def _delta_stats(entry: Mapping[str, Any]) -> str:
    """The add action's stats, as the log had them for the old file (same rows)."""
    stats: dict[str, Any] = {}
    if entry.get("num_records") is not None:
        stats["numRecords"] = int(entry["num_records"])
    for key, name in (("min", "minValues"), ("max", "maxValues"), ("null_count", "nullCount")):
        value = _json_value(entry.get(key))
        if value is not None:
            stats[name] = value
    return json.dumps(stats, allow_nan=False)


def _commit_delta(lake: LakeTable, replaced: list[tuple[TableFile, _NewFile]]) -> int:
    from deltalake.transaction import AddAction, CommitProperties, RemoveAction

    dt = lake.handle
    known: dict[str, set[str | None]] = {}
    for partition in dt.partitions():
        for column, text in partition.items():
            known.setdefault(column, set()).add(text)
    now = int(time.time() * 1000)
    actions: list[Any] = []
    expected = {urllib.parse.unquote(f.log_path) for f in lake.files}  # decoded paths
    for old, new in replaced:
        values = {k: _partition_text(v, known.get(k, {None})) for k, v in old.partition.items()}
        # deltalake takes paths decoded and encodes them into the log itself
        folder = urllib.parse.unquote(old.log_path).rpartition("/")[0]
        name = new.where.path.replace(os.sep, "/").rpartition("/")[2]
        added = (folder + "/" if folder else "") + name
        actions.append(RemoveAction(urllib.parse.unquote(old.log_path), False, now, old.size,
                                    values))
        actions.append(AddAction(added, new.size, values, now, False, _delta_stats(old.entry)))
        expected.discard(urllib.parse.unquote(old.log_path))
        expected.add(added)
    info = {"nanstats": {"operation": "upgrade", "files": len(replaced)}}
    dt.create_write_transaction(actions, "append", dt.schema(),
                                partition_by=dt.metadata().partition_columns,
                                commit_properties=CommitProperties(custom_metadata=info))
    dt.update_incremental()  # the handle still stands at the version it read
    _check_delta_commit(lake, expected)
    return int(dt.version())


def _check_delta_commit(lake: LakeTable, expected: set[str]) -> None:
    """The committed version's live files are the old ones with each replaced
    by its new file (a remove that matched nothing would leave both live)."""
    import pyarrow as pa

    dt = lake.handle
    live = {urllib.parse.unquote(p) for p in pa.table(dt.get_add_actions()).column("path")
            .to_pylist()}
    wanted = expected
    if live != wanted:
        raise NanstatsError(
            f"{lake.uri}: version {dt.version()} does not list the files the upgrade "
            f"committed ({len(live - wanted)} unexpected, {len(wanted - live)} missing); "
            f"restore the table to version {lake.version} (DeltaTable.restore) and report this")


# -- Iceberg ---------------------------------------------------------------------------


def _iceberg_refusal(lake: LakeTable) -> str | None:
    table = lake.handle
    if table.metadata.format_version > 2:
        return (f"Iceberg format v{table.metadata.format_version} (row lineage) is not "
                "rewritten by nanstats yet")
    spec_id = table.spec().spec_id
    for f in lake.files:
        task = f.entry
        if task.delete_files:
            return (f"{f.path} has delete files, which name rows of it by position or "
                    "value: compact the table (rewrite_data_files) first")
        if task.file.spec_id != spec_id:
            return f"{f.path} was written under an older partition spec ({task.file.spec_id})"
        if str(task.file.file_format).upper().rsplit(".", 1)[-1] != "PARQUET":
            return f"{f.path} is not a Parquet file ({task.file.file_format})"
        if task.file.key_metadata:
            return f"{f.path} is encrypted"
    return None


def _commit_iceberg(lake: LakeTable, replaced: list[tuple[TableFile, _NewFile]]) -> int:
    from pyiceberg.manifest import DATA_FILE_TYPE, DataFile

    table = lake.handle
    fields = [f.name for f in DATA_FILE_TYPE[2].fields]  # what DataFile reads into
    properties = {"nanstats.operation": "upgrade", "nanstats.files": str(len(replaced))}
    with table.transaction() as transaction:
        overwrite = transaction.update_snapshot(snapshot_properties=properties).overwrite()
        for old, new in replaced:
            data = old.entry.file
            values = {name: getattr(data, name) for name in fields}
            values["file_path"] = _iceberg_path(data.file_path, new.where)
            values["file_size_in_bytes"] = new.size
            values["split_offsets"] = new.split_offsets
            if new.column_sizes is not None:
                values["column_sizes"] = new.column_sizes
            added = DataFile.from_args(**values)
            added.spec_id = data.spec_id
            overwrite.delete_data_file(data)
            overwrite.append_data_file(added)
        overwrite.commit()
    snapshot = table.current_snapshot()
    return int(snapshot.snapshot_id)


def _iceberg_path(old: str, new: Location) -> str:
    """The new file named like the old one (same scheme and folder)."""
    name = new.path.replace(os.sep, "/").rpartition("/")[2]
    folder = old.rpartition("/")[0]
    return f"{folder}/{urllib.parse.quote(name) if old.startswith('file:') else name}"
