"""Delta Lake and Iceberg tables: which Parquet files are live, read through the table's library.

A table's folder holds more Parquet files than the table: files removed by
later versions stay for time travel until a vacuum, and a failed write may
leave files no version names.  Only the table's log says which are live, so
nanstats asks the table's own library (``deltalake`` for Delta Lake,
``pyiceberg`` for Iceberg; the extras ``parquet-nanstats[delta]`` and
``[iceberg]``), never the file names.

A folder is a Delta table when it holds ``_delta_log/``, an Iceberg table
when it holds ``metadata/*.metadata.json`` (read as a static table: no
catalog, so read-only; :func:`iceberg_table` loads one from its catalog).

>>> import os, tempfile, pyarrow as pa
>>> from deltalake import write_deltalake
>>> folder = os.path.join(tempfile.mkdtemp(), "events")
>>> write_deltalake(folder, pa.table({"x": [1.5, float("nan")]}))
>>> table_format(folder)
'delta'
>>> table = open_table(folder)
>>> table.format, table.version, len(table.files)
('delta', 0, 1)
"""

from __future__ import annotations

import importlib
import json
import os
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pyarrow.fs as pafs

from nanstats.errors import MissingDependencyError, NanstatsError
from nanstats.lake.fs import Location, is_uri, resolve
from nanstats.lake.listing import list_parquet_files

__all__ = ["LakeTable", "TableFile", "delta_table", "iceberg_table",
           "list_data_files", "live_files", "open_table", "table_format", "table_root"]

TableFormat = Literal["delta", "iceberg"]

#: The extra that installs each table format's library.
_EXTRAS = {"deltalake": "delta", "pyiceberg": "iceberg"}
_METADATA_SUFFIX = ".metadata.json"


def _require(module: str, what: str) -> Any:
    """Import an optional library, or say which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        raise MissingDependencyError(
            f"{what} needs the {top} package: pip install "
            f"'parquet-nanstats[{_EXTRAS[top]}]'") from exc


@dataclass(frozen=True)
class TableFile:
    """One live data file of a table.

    ``path`` is where it is (a local path, or a URI), ``log_path`` how the
    table's log names it (Delta: relative and URI-encoded; Iceberg: the
    full URI), ``partition`` its partition values (typed, as the library
    gives them) and ``entry`` the library's own record of it (a row of
    Delta add actions, a pyiceberg ``DataFile``).

    >>> TableFile("t/a.parquet", "a.parquet", 10, 2, {}).to_dict()["records"]
    2
    """

    path: str
    log_path: str
    size: int
    records: int | None
    partition: Mapping[str, Any]
    entry: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The file as plain values (for JSON)."""
        return {"path": self.path, "log_path": self.log_path, "size": self.size,
                "records": self.records,
                "partition": {k: None if v is None else str(v)
                              for k, v in self.partition.items()}}


@dataclass(frozen=True)
class LakeTable:
    """A table at one version: its live files, and how to reach them.

    ``version`` is the Delta version or the Iceberg snapshot id (None for
    an Iceberg table without snapshots).  ``handle`` is the library's table
    object (``deltalake.DeltaTable``, a pyiceberg ``Table``);
    ``commit_refusal`` is None when a rewrite can be committed to it, else
    why not.

    >>> import os, tempfile, pyarrow as pa
    >>> from deltalake import write_deltalake
    >>> folder = os.path.join(tempfile.mkdtemp(), "t")
    >>> write_deltalake(folder, pa.table({"x": [1.0]}), partition_by=None)
    >>> table = open_table(folder)
    >>> [os.path.dirname(p) == folder for p in table.paths], table.commit_refusal
    ([True], None)
    """

    format: TableFormat
    uri: str
    version: int | None
    files: tuple[TableFile, ...]
    handle: Any = field(repr=False, compare=False)
    commit_refusal: str | None = None
    storage_options: Mapping[str, str] | None = field(default=None, repr=False)

    @property
    def paths(self) -> list[str]:
        """The live files' paths (local paths or URIs), in the order of ``files``."""
        return [f.path for f in self.files]

    def location(self, path: str) -> Location:
        """Where a file of this table is, for reading and writing it."""
        return resolve(path)

    def to_dict(self) -> dict[str, Any]:
        """The table as plain values (for JSON)."""
        return {"format": self.format, "uri": self.uri, "version": self.version,
                "files": [f.to_dict() for f in self.files],
                "commit_refusal": self.commit_refusal}


def _entry_type(where: Location, *parts: str) -> pafs.FileType:
    path = where.path
    sep = os.sep if where.is_local else "/"
    for part in parts:
        path = path.rstrip(sep) + sep + part
    try:
        return where.filesystem.get_file_info(path).type
    except OSError:
        return pafs.FileType.NotFound


def _has_iceberg_metadata(where: Location) -> bool:
    if _entry_type(where, "metadata") != pafs.FileType.Directory:
        return False
    return bool(_metadata_files(where))


def _metadata_files(where: Location) -> list[pafs.FileInfo]:
    folder = where.child("metadata")
    try:
        infos = folder.filesystem.get_file_info(pafs.FileSelector(folder.path))
    except OSError:
        return []
    return [i for i in infos
            if i.type == pafs.FileType.File and i.base_name.endswith(_METADATA_SUFFIX)]


def table_format(path: str | os.PathLike[str] | Location, filesystem: Any = None
                 ) -> TableFormat | None:
    """``'delta'`` or ``'iceberg'`` when ``path`` is the folder of such a table, else None.

    An Iceberg ``*.metadata.json`` file named directly is an Iceberg table too.

    >>> import tempfile
    >>> table_format(tempfile.mkdtemp()) is None
    True
    """
    where = resolve(path, filesystem)
    if where.path.endswith(_METADATA_SUFFIX):
        return "iceberg" if _entry_type(where) == pafs.FileType.File else None
    if _entry_type(where) != pafs.FileType.Directory:
        return None
    if _entry_type(where, "_delta_log") == pafs.FileType.Directory:
        return "delta"
    if _has_iceberg_metadata(where):
        return "iceberg"
    return None


def table_root(path: str | os.PathLike[str] | Location, filesystem: Any = None
               ) -> tuple[TableFormat, str] | None:
    """The table that ``path`` is, or lies inside (a partition folder, a data
    file): its format and folder; None when there is none.

    Local paths are checked up to the root of the file system, remote ones
    only themselves (each parent would cost a request).

    >>> import os, tempfile, pyarrow as pa
    >>> from deltalake import write_deltalake
    >>> folder = os.path.join(tempfile.mkdtemp(), "t")
    >>> write_deltalake(folder, pa.table({"k": [1], "x": [1.0]}), partition_by=["k"])
    >>> table_root(os.path.join(folder, "k=1")) == ("delta", folder)
    True
    """
    where = resolve(path, filesystem)
    if not where.is_local:
        kind = table_format(where)
        return None if kind is None else (kind, where.uri)
    current = os.path.abspath(where.path)
    while True:
        kind = table_format(current)
        if kind is not None:
            return kind, current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def open_table(path: str | os.PathLike[str] | Location, *, filesystem: Any = None,
               storage_options: Mapping[str, str] | None = None) -> LakeTable:
    """The table in folder ``path`` at its current version (Delta or Iceberg).

    ``storage_options`` go to ``deltalake`` (for Iceberg, to pyiceberg's
    file IO) when the table is on an object store; without them both read the
    standard environment (``AWS_*`` variables, profiles).  A folder that is
    no table raises ValueError.

    >>> import tempfile
    >>> open_table(tempfile.mkdtemp())
    Traceback (most recent call last):
    ...
    ValueError: ...: not a Delta Lake or Iceberg table (no _delta_log/, no metadata/*.metadata.json)
    """
    where = resolve(path, filesystem)
    kind = table_format(where)
    if kind == "delta":
        return delta_table(where, storage_options=storage_options)
    if kind == "iceberg":
        return _static_iceberg_table(where, storage_options)
    raise ValueError(f"{where.uri}: not a Delta Lake or Iceberg table (no _delta_log/, "
                     "no metadata/*.metadata.json)")


# -- Delta Lake ----------------------------------------------------------------


def _delta_uri(where: Location) -> str:
    if where.is_local:
        return os.path.abspath(where.path)
    if where.uri.split("://", 1)[0] not in ("s3", "gs", "gcs", "abfs", "abfss", "az", "hdfs"):
        raise ValueError(f"{where.uri}: deltalake cannot open this location "
                         "(give the table's URI: s3://, gs://, abfss://, ...)")
    return where.uri


def delta_table(path: str | os.PathLike[str] | Location, *, version: int | None = None,
                storage_options: Mapping[str, str] | None = None) -> LakeTable:
    """A Delta table at its current version (or at ``version``): its live files.

    The files are the add actions of that version, as ``deltalake`` reads
    them from the log and its checkpoints.

    >>> import os, tempfile, pyarrow as pa
    >>> from deltalake import write_deltalake
    >>> folder = os.path.join(tempfile.mkdtemp(), "t")
    >>> write_deltalake(folder, pa.table({"x": [1.0]}))
    >>> write_deltalake(folder, pa.table({"x": [2.0]}), mode="overwrite")
    >>> len(os.listdir(folder)), len(delta_table(folder).files), delta_table(folder, version=0).version
    (3, 1, 0)
    """
    deltalake = _require("deltalake", "reading a Delta table")
    import pyarrow as pa

    where = resolve(path)
    uri = _delta_uri(where)
    options = dict(storage_options) if storage_options else None
    try:
        dt = deltalake.DeltaTable(uri, version=version, storage_options=options)
    except deltalake.exceptions.TableNotFoundError as exc:
        raise FileNotFoundError(f"{where.uri}: no Delta table here ({exc})") from exc
    rows = pa.table(dt.get_add_actions(flatten=False)).to_pylist()
    files = []
    for row in rows:
        log_path = row["path"]
        if urllib.parse.urlparse(log_path).scheme:  # an absolute URI (a shallow clone)
            file_path = _local_or_uri(log_path)
        else:
            relative = urllib.parse.unquote(log_path)
            file_path = (os.path.join(uri, *relative.split("/")) if where.is_local
                         else uri.rstrip("/") + "/" + relative)
        files.append(TableFile(file_path, log_path, int(row["size_bytes"]),
                               row.get("num_records"), dict(row.get("partition") or {}), row))
    files.sort(key=lambda f: f.path)
    return LakeTable("delta", uri, dt.version(), tuple(files), dt, None, options)


def _local_or_uri(uri: str) -> str:
    return resolve(uri).path if uri.startswith("file:") else uri


# -- Iceberg -------------------------------------------------------------------


def _iceberg_files(table: Any, snapshot_id: int | None) -> tuple[TableFile, ...]:
    if table.current_snapshot() is None and snapshot_id is None:
        return ()
    files = []
    for task in table.scan(snapshot_id=snapshot_id).plan_files():
        data = task.file
        partition = {}
        spec = table.specs().get(data.spec_id)
        if spec is not None:
            partition = {f.name: data.partition[i] for i, f in enumerate(spec.fields)}
        files.append(TableFile(_local_or_uri(data.file_path), data.file_path,
                               int(data.file_size_in_bytes), int(data.record_count),
                               partition, task))
    return tuple(sorted(files, key=lambda f: f.path))


def iceberg_table(catalog: Any, identifier: str | tuple[str, ...], *,
                  snapshot_id: int | None = None) -> LakeTable:
    """An Iceberg table loaded from its catalog (at its current snapshot, or
    ``snapshot_id``): its live files.  Upgrades commit through the catalog.

    ``catalog`` is a pyiceberg ``Catalog`` or the name of one configured for
    ``pyiceberg.catalog.load_catalog`` (``.pyiceberg.yaml``,
    ``PYICEBERG_CATALOG__<NAME>__...`` variables).  The files are those
    pyiceberg plans for a full scan of that snapshot.

    >>> import os, tempfile, pyarrow as pa
    >>> from pyiceberg.catalog.sql import SqlCatalog
    >>> where = tempfile.mkdtemp()
    >>> catalog = SqlCatalog("demo", uri=f"sqlite:///{where}/catalog.db", warehouse=f"file://{where}")
    >>> catalog.create_namespace("lake")
    >>> data = pa.table({"x": [1.0, float("nan")]})
    >>> catalog.create_table("lake.events", schema=data.schema).append(data)
    >>> table = iceberg_table(catalog, "lake.events")
    >>> table.format, len(table.files), table.files[0].records, table.commit_refusal
    ('iceberg', 1, 2, None)
    """
    catalogs = _require("pyiceberg.catalog", "reading an Iceberg table")
    if isinstance(catalog, str):
        catalog = catalogs.load_catalog(catalog)
    table = catalog.load_table(identifier)
    return _iceberg(table, snapshot_id, None)


def _iceberg(table: Any, snapshot_id: int | None, refusal: str | None) -> LakeTable:
    if snapshot_id is None:
        current = table.current_snapshot()
        version = None if current is None else int(current.snapshot_id)
    else:
        if table.snapshot_by_id(snapshot_id) is None:
            raise ValueError(f"{table.location()}: no snapshot {snapshot_id}")
        version = snapshot_id
    return LakeTable("iceberg", str(table.location()), version,
                     _iceberg_files(table, snapshot_id), table, refusal)


def _current_metadata(where: Location) -> str:
    """The metadata file of a static Iceberg table: the one named by
    ``metadata/version-hint.text``, else the newest by what the files say
    (their last sequence number and update time), never by their names."""
    if where.path.endswith(_METADATA_SUFFIX):
        return where.uri
    if _entry_type(where, "metadata", "version-hint.text") == pafs.FileType.File:
        return where.uri  # pyiceberg follows the hint itself
    newest: tuple[int, int] | None = None
    chosen: list[str] = []
    for info in _metadata_files(where):
        with where.filesystem.open_input_stream(info.path) as f:
            try:
                meta = json.loads(f.read())
            except ValueError as exc:
                raise NanstatsError(f"{info.path}: not an Iceberg metadata file ({exc})") from exc
        key = (int(meta.get("last-sequence-number", 0)), int(meta.get("last-updated-ms", 0)))
        if newest is None or key > newest:
            newest, chosen = key, [info.path]
        elif key == newest:
            chosen.append(info.path)
    if len(chosen) != 1:
        raise NanstatsError(
            f"{where.uri}: {len(chosen)} Iceberg metadata files are equally new "
            f"({', '.join(os.path.basename(c) for c in chosen)}); load the table from "
            "its catalog (nanstats.lake.tables.iceberg_table) or name the metadata file")
    return where.with_path(chosen[0]).uri


def _static_iceberg_table(where: Location, storage_options: Mapping[str, str] | None
                          ) -> LakeTable:
    table_module = _require("pyiceberg.table", "reading an Iceberg table")
    metadata = _current_metadata(where)
    if where.is_local and not metadata.startswith("file:"):
        metadata = "file://" + urllib.parse.quote(os.path.abspath(metadata))
    table = table_module.StaticTable.from_metadata(metadata, dict(storage_options or {}))
    refusal = (f"{where.uri}: an Iceberg table found by its folder has no catalog to commit "
               "to; name it in its catalog (nanstats upgrade namespace.table --catalog NAME, "
               "or nanstats.parquet.upgrade_table(nanstats.lake.tables.iceberg_table("
               "catalog, 'namespace.table')))")
    return _iceberg(table, None, refusal)



def live_files(path: str | os.PathLike[str]) -> list[str] | None:
    """The live files of the table that ``path`` is (its folder, or an Iceberg
    ``*.metadata.json``), read through the table's library; None when it is no table.

    >>> import tempfile
    >>> live_files(tempfile.mkdtemp()) is None
    True
    """
    text = os.fspath(path)
    if not (is_uri(text) or os.path.isdir(text) or text.endswith(_METADATA_SUFFIX)):
        return None  # a local file or glob: no get_file_info needed
    if table_format(text) is None:
        return None
    return open_table(text).paths


def list_data_files(path_or_paths: str | os.PathLike[str] | Sequence[str]) -> list[str]:
    """The data files of the given paths: a table's folder gives its live files
    (:func:`open_table`), any other path what
    :func:`~nanstats.lake.listing.list_parquet_files` finds.

    >>> import os, tempfile, pyarrow as pa
    >>> from deltalake import write_deltalake
    >>> folder = os.path.join(tempfile.mkdtemp(), "t")
    >>> write_deltalake(folder, pa.table({"x": [1.0]}))
    >>> write_deltalake(folder, pa.table({"x": [2.0]}), mode="overwrite")
    >>> list_data_files(folder) == open_table(folder).paths
    True
    """
    items = [path_or_paths] if isinstance(path_or_paths, (str, os.PathLike)) else path_or_paths
    files: list[str] = []
    for item in items:
        text = os.fspath(item)
        live = live_files(text)
        files += live if live is not None else list_parquet_files(text)
    return files
