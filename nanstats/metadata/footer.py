"""The footer of a Parquet file: FileMetaData, its schema's leaf columns, checked.

Reading a footer reads the last 8 bytes, then the footer itself; nothing else.
Every length and count is checked against the file before it is used, so a
footer that lies raises :class:`~nanstats.errors.ParquetFormatError`.

>>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> papq.write_table(pa.table({"x": [1.0, float("nan")], "s": ["a", "b"]}), path)
>>> footer = read_footer(path)
>>> [(c.name, c.float_type and c.float_type.physical_type) for c in footer.columns]
[('x', 'DOUBLE'), ('s', None)]
>>> footer.num_row_groups, footer.column_order(0)
(1, 'type_order')
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from typing import IO, Any, Literal

from nanstats.core.floats import DOUBLE, FLOAT, FLOAT16, FloatType
from nanstats.errors import ParquetFormatError, UnsupportedParquetError
from nanstats.lake.fs import Location, Target, remote_errors, resolve
from nanstats.metadata.thrift import decode, pq

MAGIC = b"PAR1"
MAGIC_ENCRYPTED = b"PARE"
TAIL = 8  # footer length (u32 LE) + magic

_ENCRYPTED = "nanstats does not read encrypted Parquet files"

ColumnOrderKind = Literal["ieee754", "type_order", "undefined", "other"]



@dataclass(frozen=True)
class LeafColumn:
    """A leaf of the schema: one column chunk per row group.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> point = pa.struct([("x", pa.float32())])
    >>> papq.write_table(pa.table({"p": pa.array([{"x": 1.5}, None], point)}), path)
    >>> leaf = read_footer(path).columns[0]
    >>> leaf.name, leaf.path, leaf.float_type.physical_type, leaf.max_definition_level
    ('p.x', ('p', 'x'), 'FLOAT', 2)
    """

    index: int  # position among leaves = in RowGroup.columns and column_orders
    schema_index: int  # position in FileMetaData.schema
    path: tuple[str, ...]
    physical_type: int
    float_type: FloatType | None  # None for non-float columns
    max_definition_level: int
    max_repetition_level: int

    @property
    def name(self) -> str:
        """The dotted path, as pyarrow names a nested leaf."""
        return ".".join(self.path)


@dataclass(frozen=True, eq=False)
class Footer:
    """A decoded, checked footer and where it lies in the file.

    ``metadata`` is the Thrift ``FileMetaData``; the accessors below reach
    its row groups, schema and column chunks, typed.  ``raw`` is its bytes as
    read (what another Parquet reader can be given instead of reading them
    again: :meth:`arrow_schema`).

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, 2.0], "n": [1, 2]}), path)
    >>> footer = read_footer(path)
    >>> footer.num_row_groups, [c.name for c in footer.float_columns]
    (1, ['x'])
    >>> footer.chunk_meta(0, 0).num_values, footer.metadata.num_rows
    (2, 2)
    >>> footer.metadata_offset + footer.metadata_length + 8 == footer.file_size
    True
    """

    path: str
    file_size: int
    metadata: pq.FileMetaData
    metadata_offset: int
    metadata_length: int
    columns: tuple[LeafColumn, ...]
    raw: bytes = b""

    def arrow_schema(self) -> Any:
        """The file's schema as pyarrow reads it, from the footer's bytes (no read).

        >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
        >>> papq.write_table(pa.table({"x": [1.0], "d": pa.array([1], pa.int8()).dictionary_encode()}),
        ...                  path)
        >>> read_footer(path).arrow_schema() == papq.ParquetFile(path).schema_arrow
        True
        """
        import pyarrow as pa
        import pyarrow.parquet as papq

        if not self.raw:
            raise ValueError(f"{self.path}: the footer's bytes were not kept")
        tail = self.raw + len(self.raw).to_bytes(4, "little") + MAGIC
        return papq.ParquetFile(pa.BufferReader(MAGIC + tail)).schema_arrow

    @property
    def num_row_groups(self) -> int:
        return len(self.metadata.row_groups or ())

    @property
    def float_columns(self) -> tuple[LeafColumn, ...]:
        return tuple(c for c in self.columns if c.float_type is not None)

    def column_order(self, leaf: int) -> ColumnOrderKind:
        """The column order of a leaf: how its min/max are to be read."""
        orders = self.metadata.column_orders
        if not orders:
            return "undefined"
        order = orders[leaf]
        if order.IEEE_754_TOTAL_ORDER is not None:
            return "ieee754"
        if order.TYPE_ORDER is not None:
            return "type_order"
        return "other"

    @property
    def row_groups(self) -> list[pq.RowGroup]:
        """The row groups (none when the footer lists none)."""
        return self.metadata.row_groups or []

    @property
    def schema(self) -> list[pq.SchemaElement]:
        """The flattened schema tree."""
        return self.metadata.schema or []

    def chunk(self, row_group: int, leaf: int) -> pq.ColumnChunk:
        """The ColumnChunk of a leaf in a row group."""
        # read_footer checked that every row group has one chunk per leaf.
        return (self.row_groups[row_group].columns or [])[leaf]

    def chunk_meta(self, row_group: int, leaf: int) -> pq.ColumnMetaData:
        """The ColumnMetaData of a chunk; UnsupportedParquetError when it is encrypted."""
        meta = self.chunk(row_group, leaf).meta_data
        if meta is None:  # read_footer allows only an encrypted one to be missing
            raise UnsupportedParquetError(
                f"{self.path}: row group {row_group}, column {self.columns[leaf].name!r}: "
                "the column metadata is encrypted")
        return meta


def refuse_encrypted(footer: Footer, consequence: str) -> None:
    """UnsupportedParquetError when the file or one of its column chunks is encrypted.

    :func:`read_footer` refuses encrypted files (either footer mode); this
    catches encrypted column chunks in a footer that does not say so.  ``consequence`` ends the message (what nanstats will not
    do), which names the path and, for a chunk, its row group and column.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0]}), path)
    >>> footer = read_footer(path)
    >>> refuse_encrypted(footer, "nanstats cannot decode its pages")   # not encrypted
    >>> footer.metadata.row_groups[0].columns[0].crypto_metadata = object()
    >>> refuse_encrypted(footer, "nanstats cannot decode its pages")
    Traceback (most recent call last):
    ...
    nanstats.errors.UnsupportedParquetError: .../t.parquet: row group 0, column 'x' is encrypted; nanstats cannot decode its pages
    """
    meta = footer.metadata
    if meta.encryption_algorithm is not None:
        raise UnsupportedParquetError(f"{footer.path}: the file is encrypted (plaintext footer); "
                                      f"{consequence}")
    for g, rg in enumerate(footer.row_groups):
        for c, chunk in enumerate(rg.columns or ()):
            if chunk.crypto_metadata is not None or chunk.encrypted_column_metadata is not None:
                raise UnsupportedParquetError(
                    f"{footer.path}: row group {g}, column {footer.columns[c].name!r} is "
                    f"encrypted; {consequence}")


def read_footer(source: Target | IO[bytes], *, filesystem: Any = None) -> Footer:
    """Read and check the footer of a Parquet file.

    ``source`` is a path, a URI (``s3://bucket/key.parquet``, any scheme of
    :func:`nanstats.lake.fs.resolve`, with ``filesystem=`` a path on that
    filesystem), a :class:`~nanstats.lake.fs.Location`, or a binary file open
    for reading (a Python file, a pyarrow ``NativeFile``).  A remote file is
    read by ranges: its last 64 KiB in one request (the footer, unless it is
    longer) and its first 4 bytes (the magic).

    Raises ParquetFormatError (naming the path and byte offset) when the
    footer does not decode or does not fit the file, UnsupportedParquetError
    when it is encrypted (encrypted footer or plaintext footer alike).

    >>> import io, pyarrow as pa, pyarrow.parquet as papq
    >>> buffer = io.BytesIO()
    >>> papq.write_table(pa.table({"x": [1.0, 2.0]}), buffer)
    >>> read_footer(io.BytesIO(buffer.getvalue())).columns[0].name
    'x'
    >>> read_footer(pa.BufferReader(buffer.getvalue())).num_row_groups   # a pyarrow file
    1
    >>> read_footer(io.BytesIO(b"PAR1" + bytes(20)))
    Traceback (most recent call last):
    ...
    nanstats.errors.ParquetFormatError: <file>: byte 20: does not end with the Parquet magic 'PAR1'
    """
    if isinstance(source, (str, os.PathLike, Location)):
        where = resolve(source, filesystem)
        with remote_errors(where), where.open_reader() as f:
            return _read(f, where.uri)
    return _read(source, str(getattr(source, "name", "<file>")))


def _read(f: IO[bytes], path: str) -> Footer:
    size = f.seek(0, os.SEEK_END)
    if size < len(MAGIC) + TAIL:
        raise ParquetFormatError(f"{size} bytes is too short for a Parquet file", path=path)
    f.seek(0)
    head = f.read(4)
    f.seek(size - TAIL)
    tail = f.read(TAIL)
    # An encrypted footer ('PARE' at both ends) is a valid file we cannot read:
    # say so before any magic check calls it corrupt.
    if MAGIC_ENCRYPTED in (head, tail[4:]):
        raise UnsupportedParquetError(
            f"{path}: the file is encrypted (encrypted footer, magic 'PARE'); {_ENCRYPTED}")
    if head != MAGIC:
        raise ParquetFormatError("does not start with the Parquet magic 'PAR1'", path=path, offset=0)
    if tail[4:] != MAGIC:
        raise ParquetFormatError("does not end with the Parquet magic 'PAR1'", path=path,
                                 offset=size - 4)
    (length,) = struct.unpack("<I", tail[:4])
    start = size - TAIL - length
    if length == 0 or start < len(MAGIC):
        raise ParquetFormatError(f"footer length {length} does not fit in a file of {size} bytes",
                                 path=path, offset=size - TAIL)
    f.seek(start)
    raw = f.read(length)
    meta, used = decode(pq.FileMetaData, raw, path=path, offset=start)
    if meta.encryption_algorithm is not None:
        # The plaintext-footer mode: FileMetaData names the algorithm and is
        # followed by its signature (nonce and tag), so the lengths differ.
        raise UnsupportedParquetError(
            f"{path}: the file is encrypted (plaintext footer); {_ENCRYPTED}")
    if used != length:
        raise ParquetFormatError(f"FileMetaData takes {used} of the {length} footer bytes",
                                 path=path, offset=start)
    columns = _leaves(meta, path, start)
    _check_row_groups(meta, len(columns), path, start)
    return Footer(path, size, meta, start, length, columns, bytes(raw))


def _leaves(meta: pq.FileMetaData, path: str, at: int) -> tuple[LeafColumn, ...]:
    """Walk the flattened schema tree (depth first, num_children) to its leaves."""
    schema = meta.schema or []
    if not schema:
        raise ParquetFormatError("FileMetaData has no schema", path=path, offset=at)
    leaves: list[LeafColumn] = []
    # Stack of (children still to visit, path, def level, rep level) per open group.
    root_children = schema[0].num_children or 0
    stack: list[list[Any]] = [[root_children, (), 0, 0]]
    for i, el in enumerate(schema[1:], start=1):
        while stack and stack[-1][0] == 0:
            stack.pop()
        if not stack:
            raise ParquetFormatError(f"schema element {i} lies outside the schema tree",
                                     path=path, offset=at)
        parent = stack[-1]
        parent[0] -= 1
        name = (el.name or b"").decode("utf-8", "replace")
        rep = el.repetition_type
        d = parent[2] + (rep in (pq.REPETITION_OPTIONAL, pq.REPETITION_REPEATED))
        r = parent[3] + (rep == pq.REPETITION_REPEATED)
        n = el.num_children
        if n is not None and n < 0:
            raise ParquetFormatError(f"schema element {name!r} has {n} children",
                                     path=path, offset=at)
        if n:  # a group
            if n > len(schema) - i - 1:
                raise ParquetFormatError(
                    f"schema element {name!r} claims {n} children; the schema has "
                    f"{len(schema) - i - 1} more elements", path=path, offset=at)
            stack.append([n, (*parent[1], name), d, r])
            continue
        if el.type is None:
            raise ParquetFormatError(f"schema leaf {name!r} has no physical type",
                                     path=path, offset=at)
        leaves.append(LeafColumn(len(leaves), i, (*parent[1], name), el.type,
                                 _float_type(el), d, r))
    if any(s[0] for s in stack):
        raise ParquetFormatError("schema ends before all of its groups' children",
                                 path=path, offset=at)
    return tuple(leaves)


def _float_type(el: pq.SchemaElement) -> FloatType | None:
    if el.type == pq.TYPE_FLOAT:
        return FLOAT
    if el.type == pq.TYPE_DOUBLE:
        return DOUBLE
    if (el.type == pq.TYPE_FIXED_LEN_BYTE_ARRAY and el.type_length == 2
            and el.logicalType is not None and el.logicalType.FLOAT16 is not None):
        return FLOAT16
    return None


def _check_row_groups(meta: pq.FileMetaData, n_leaves: int, path: str, at: int) -> None:
    orders = meta.column_orders
    if orders is not None and orders and len(orders) != n_leaves:
        raise ParquetFormatError(
            f"{len(orders)} column orders for {n_leaves} leaf columns", path=path, offset=at)
    for g, rg in enumerate(meta.row_groups or ()):
        cols = rg.columns or []
        if len(cols) != n_leaves:
            raise ParquetFormatError(
                f"row group {g} has {len(cols)} column chunks for {n_leaves} leaf columns",
                path=path, offset=at)
        if (rg.num_rows or 0) < 0:
            raise ParquetFormatError(f"row group {g} has {rg.num_rows} rows", path=path, offset=at)
        for c, chunk in enumerate(cols):
            if chunk.meta_data is None and chunk.encrypted_column_metadata is None:
                raise ParquetFormatError(
                    f"row group {g}, column {c}: no ColumnMetaData", path=path, offset=at)
