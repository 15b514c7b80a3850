"""``inspect``: what a Parquet file says about its float columns, read from the
footer and the page index only (data pages are never read).

>>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> papq.write_table(pa.table({"x": [1.0, np.nan, -0.0], "s": ["a", "b", "c"]}), path,
...                  write_page_index=True)
>>> report = inspect(path)
>>> col = report.columns[0]
>>> col.name, col.column_order, col.row_groups[0].statistics.nan_count
('x', 'type_order', None)
>>> col.row_groups[0].statistics.max
'1.0'
"""

from __future__ import annotations

import struct
from dataclasses import asdict, dataclass
from typing import Any

from nanstats.core.floats import FloatType
from nanstats.lake.fs import Target, remote_errors, resolve
from nanstats.metadata.convert import WrittenStatistics, written_statistics
from nanstats.metadata.footer import Footer, read_footer
from nanstats.metadata.page_index import PageIndex, PageIndexRegion

_STRUCT = {2: struct.Struct("<e"), 4: struct.Struct("<f"), 8: struct.Struct("<d")}


def _value(ft: FloatType, raw: bytes | None) -> tuple[str | None, str | None]:
    """(readable value, hex bits) of a PLAIN-encoded bound, or why it is unreadable.

    Same text as FloatType.format_bits, without numpy (this runs per page).
    """
    if raw is None:
        return None, None
    n = ft.nbytes
    if len(raw) != n:
        return f"<{len(raw)} bytes, not {n}>", raw.hex()
    bits = int.from_bytes(raw, "little")
    hex_bits = f"{bits:0{n * 2}x}"
    magnitude = bits & ((1 << (8 * n - 1)) - 1)
    inf = {2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}[n]
    if magnitude > inf:
        return f"{'-' if bits >> (8 * n - 1) else '+'}nan(0x{hex_bits})", hex_bits
    return repr(_STRUCT[n].unpack(raw)[0]), hex_bits


@dataclass(frozen=True)
class StatisticsReport:
    """A chunk's Statistics as written: values readable, bits exact, absent fields None.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, float("nan")]}), path, write_page_index=True)
    >>> st = inspect(path).columns[0].row_groups[0].statistics
    >>> st.min, st.max_bits, st.nan_count      # pyarrow counts no NaN
    ('1.0', '3ff0000000000000', None)
    """

    min: str | None
    max: str | None
    min_bits: str | None
    max_bits: str | None
    null_count: int | None
    nan_count: int | None
    deprecated_min: str | None
    deprecated_max: str | None
    is_min_value_exact: bool | None
    is_max_value_exact: bool | None


@dataclass(frozen=True)
class PageReport:
    """One page: its ColumnIndex entry (if any) and OffsetIndex location (if any).

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, float("nan")]}), path, write_page_index=True)
    >>> page = inspect(path).columns[0].row_groups[0].pages[0]
    >>> page.null_page, page.first_row, page.offset is not None
    (False, 0, True)
    """

    null_page: bool | None
    min: str | None
    max: str | None
    null_count: int | None
    nan_count: int | None
    offset: int | None
    compressed_size: int | None
    first_row: int | None


@dataclass(frozen=True)
class ChunkReport:
    """One float column chunk.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, float("nan")]}), path, write_page_index=True)
    >>> chunk = inspect(path).columns[0].row_groups[0]
    >>> chunk.row_group, chunk.num_values, chunk.column_index, chunk.offset_index
    (0, 2, True, True)
    """

    row_group: int
    num_values: int
    statistics: StatisticsReport | None
    column_index: bool
    offset_index: bool
    boundary_order: str | None
    pages: tuple[PageReport, ...]


@dataclass(frozen=True)
class ColumnReport:
    """One float column over all row groups.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, float("nan")]}), path, write_page_index=True)
    >>> column = inspect(path).columns[0]
    >>> column.name, column.physical_type, column.column_order, len(column.row_groups)
    ('x', 'DOUBLE', 'type_order', 1)
    """

    name: str
    physical_type: str
    column_order: str
    row_groups: tuple[ChunkReport, ...]


@dataclass(frozen=True)
class FileReport:
    """What the file says about its float columns.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, float("nan")]}), path, write_page_index=True)
    >>> report = inspect(path)
    >>> report.num_rows, report.num_row_groups, sorted(report.to_dict())[:3]
    (2, 1, ['columns', 'created_by', 'num_row_groups'])
    """

    path: str
    created_by: str | None
    num_rows: int
    num_row_groups: int
    columns: tuple[ColumnReport, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain Python objects (bytes as hex, NaNs as signed strings), for JSON."""
        return asdict(self)

    def __str__(self) -> str:
        lines = [f"{self.path}: {self.num_rows:,} rows, {self.num_row_groups} row groups, "
                 f"written by {self.created_by or 'unknown'}"]
        for c in self.columns:
            lines.append(f"  {c.name} ({c.physical_type}, column order {c.column_order})")
            for ch in c.row_groups:
                st = ch.statistics
                stats = ("no statistics" if st is None else
                         f"min={st.min} max={st.max} nulls={st.null_count} "
                         f"nan_count={'absent' if st.nan_count is None else st.nan_count}")
                index = (f"column index ({len(ch.pages)} pages, {ch.boundary_order})"
                         if ch.column_index else "no column index")
                lines.append(f"    row group {ch.row_group}: {stats}; {index}")
        return "\n".join(lines)


def _statistics(ft: FloatType, st: WrittenStatistics | None) -> StatisticsReport | None:
    if st is None:
        return None
    lo, lo_bits = _value(ft, st.min_value)
    hi, hi_bits = _value(ft, st.max_value)
    # Writers often repeat the bounds in the deprecated fields: format once.
    old_lo = lo if st.min == st.min_value else _value(ft, st.min)[0]
    old_hi = hi if st.max == st.max_value else _value(ft, st.max)[0]
    return StatisticsReport(lo, hi, lo_bits, hi_bits, st.null_count, st.nan_count,
                            old_lo, old_hi, st.is_min_value_exact, st.is_max_value_exact)


def _pages(ft: FloatType, index: PageIndex) -> tuple[PageReport, ...]:
    # Python lists: the report holds plain ints and bools.
    offsets = index.offsets.tolist() if index.offsets is not None else None
    sizes = index.compressed_sizes.tolist() if index.compressed_sizes is not None else None
    firsts = index.first_row_index.tolist() if index.first_row_index is not None else None
    nulls = index.null_counts.tolist() if index.null_counts is not None else None
    nans = index.nan_counts.tolist() if index.nan_counts is not None else None
    null_pages = index.null_pages.tolist() if index.null_pages is not None else None
    out = []
    for i in range(index.num_pages):
        if null_pages is not None:
            assert index.min_values is not None and index.max_values is not None
            null_page = null_pages[i]
            lo = None if null_page else _value(ft, index.min_values[i])[0]
            hi = None if null_page else _value(ft, index.max_values[i])[0]
            page_nulls = nulls[i] if nulls is not None else None
            page_nans = nans[i] if nans is not None else None
        else:
            null_page, lo, hi, page_nulls, page_nans = None, None, None, None, None
        out.append(PageReport(null_page, lo, hi, page_nulls, page_nans,
                              offsets[i] if offsets is not None else None,
                              sizes[i] if sizes is not None else None,
                              firsts[i] if firsts is not None else None))
    return tuple(out)


def inspect(path: Target, *, filesystem: Any = None) -> FileReport:
    """Read the float statistics of a Parquet file: footer and page index only.

    ``path`` is a local path or any URI of :func:`nanstats.lake.fs.resolve`
    (``s3://bucket/lake/part-0.parquet``, ``gs://``, ``memory://``, ...),
    or a path on ``filesystem`` (pyarrow.fs or fsspec).  A remote file is
    read by ranges: the last 64 KiB (footer, and page index when it lies
    there), the 4-byte magic at the start, and the page index when it lies
    further up; never a data page.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, float("nan")]}), path, write_page_index=True)
    >>> print(inspect(path).columns[0].row_groups[0].statistics.nan_count)
    None
    """
    where = resolve(path, filesystem)
    with remote_errors(where), where.open_reader() as f:
        footer: Footer = read_footer(f)
        region = PageIndexRegion(f, footer)
        columns = []
        for leaf in footer.float_columns:
            ft = leaf.float_type
            assert ft is not None
            chunks = []
            for g in range(footer.num_row_groups):
                md = footer.chunk_meta(g, leaf.index)
                index = region.page_index(footer, g, leaf.index)
                chunks.append(ChunkReport(
                    g, md.num_values or 0, _statistics(ft, written_statistics(md.statistics)),
                    index.has_column_index, index.has_offset_index, index.boundary_order,
                    _pages(ft, index)))
            columns.append(ColumnReport(leaf.name, ft.physical_type,
                                        footer.column_order(leaf.index), tuple(chunks)))
    meta = footer.metadata
    created = None if meta.created_by is None else meta.created_by.decode("utf-8", "replace")
    return FileReport(where.uri, created, meta.num_rows or 0, footer.num_row_groups, tuple(columns))
