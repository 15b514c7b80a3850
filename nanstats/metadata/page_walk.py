"""The pages of a column chunk as columns: one walk of their headers, no object per page.

:func:`walk_pages` reads a chunk's page headers with the compiled walker
(``nanstats._pagewalk``): the fields the rest of nanstats needs (type,
sizes, value, row and null counts, encoding, where the header's statistics
lie) land in numpy columns of a :class:`PageTable`, and the header bytes
are kept as read.  Every check a page must pass is made during the walk,
in file order, and the first that fails raises
:class:`~nanstats.errors.ParquetFormatError` naming the page's byte offset:
this is the one place that decides whether a chunk's pages are sound
(:func:`nanstats.metadata.pages.read_pages` builds on it).

Hostile input stays bounded: a header is decoded from a window of the
chunk, grown only up to the chunk's own bytes; strings and lists must fit
in the bytes left, nesting is limited, and the columns hold a few dozen
bytes per page, each page taking several bytes of the chunk.

>>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> from nanstats.metadata.footer import read_footer
>>> from nanstats.metadata.pages import chunk_range
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> papq.write_table(pa.table({"x": [1.0, 2.0, 3.0]}), path, use_dictionary=False,
...                  data_page_size=1, write_batch_size=1)
>>> footer = read_footer(path)
>>> start, length = chunk_range(footer, 0, 0)
>>> with open(path, "rb") as f:
...     _ = f.seek(start)
...     table = walk_pages(f.read(length), start, footer, 0, 0)
>>> len(table), table.num_values.tolist(), table.is_data.tolist()
(3, [1, 1, 1], [True, True, True])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from nanstats import _pagewalk
from nanstats.errors import ParquetFormatError

if TYPE_CHECKING:
    from nanstats.metadata.footer import Footer

I64 = npt.NDArray[np.int64]

#: An unset field in a PageTable column.
ABSENT = int(_pagewalk.ABSENT)

# Page types (the IDL's PageType).
PAGE_DATA, PAGE_INDEX, PAGE_DICTIONARY, PAGE_DATA_V2 = 0, 1, 2, 3
DATA_PAGE_TYPES = (PAGE_DATA, PAGE_DATA_V2)
PAGE_TYPE_NAMES = {
    PAGE_DATA: "DATA_PAGE",
    PAGE_INDEX: "INDEX_PAGE",
    PAGE_DICTIONARY: "DICTIONARY_PAGE",
    PAGE_DATA_V2: "DATA_PAGE_V2",
}
#: The field id of the statistics in a v1 and a v2 data page header.
STATISTICS_FIELD = {PAGE_DATA: 5, PAGE_DATA_V2: 8}

# Bytes read at first to decode a header; grown when a header is larger
# (page statistics of long byte-array values, say).
_FIRST_WINDOW = 1024
# After a small page, a window of this many pages' bytes (up to _MAX_WINDOW)
# is read and its headers decoded in one call.
_PAGES_PER_WINDOW = 64
_MAX_WINDOW = 1 << 16


def _opt(value: int) -> int | None:
    return None if value == ABSENT else int(value)


@dataclass(frozen=True, eq=False)
class PageTable:
    """The pages of one column chunk, one row per page in file order.

    ``offset`` is the file offset of each header, ``header_length`` its
    size; the payload (``compressed_page_size`` bytes) follows.  Fields a
    header does not set hold ``ABSENT``.  ``headers`` holds the header
    bytes back to back, ``header_at`` where each starts there;
    ``stats_lo``/``stats_hi`` are the span (from the header's start) of a
    data page's statistics field, or where one would go; ``stats_prev`` the
    id of the field before it and ``next_byte`` what the short field header
    after that point becomes once statistics are put in (-1: unchanged).

    >>> PageTable.empty().is_data.tolist(), len(PageTable.empty())
    ([], 0)
    """

    offset: I64
    header_length: I64
    page_type: I64
    uncompressed_page_size: I64
    compressed_page_size: I64
    num_values: I64
    num_rows: I64
    num_nulls: I64
    encoding: I64
    stats_lo: I64
    stats_hi: I64
    stats_prev: I64
    next_byte: I64
    header_at: I64
    headers: bytes

    @classmethod
    def empty(cls) -> PageTable:
        """A chunk without pages."""
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, z, z, z, z, z, z, z, z, z, z, z, z, b"")

    @classmethod
    def _of_walk(cls, walk: Any) -> PageTable:
        c = walk.columns()
        return cls(c["offset"], c["header_length"], c["type"], c["uncompressed_page_size"],
                   c["compressed_page_size"], c["num_values"], c["num_rows"], c["num_nulls"],
                   c["encoding"], c["stats_lo"], c["stats_hi"], c["stats_prev"],
                   c["next_byte"], c["header_at"], walk.headers())

    def __len__(self) -> int:
        return len(self.offset)

    @property
    def is_data(self) -> npt.NDArray[np.bool_]:
        """True for data pages (v1 or v2)."""
        data: npt.NDArray[np.bool_] = (self.page_type == PAGE_DATA) | \
            (self.page_type == PAGE_DATA_V2)
        return data

    @property
    def end(self) -> I64:
        """File offset just past each page's payload."""
        return self.offset + self.header_length + self.compressed_page_size

    @property
    def data_page_count(self) -> int:
        """How many data pages the chunk has."""
        return int(np.count_nonzero(self.is_data))

    def data_rows(self) -> I64:
        """Rows of each data page as its header counts them: ``num_rows`` of a v2 page,
        ``num_values`` of a v1 page (one value or null per row where the leaf is not
        repeated)."""
        data = self.is_data
        rows = self.num_rows[data]
        return np.where(rows != ABSENT, rows, self.num_values[data])

    def header_bytes(self, i: int) -> bytes:
        """The header of page ``i`` as read."""
        at = int(self.header_at[i])
        return self.headers[at:at + int(self.header_length[i])]

    def type_name(self, i: int) -> str:
        """The type of page ``i`` as the format names it."""
        ptype = int(self.page_type[i])
        return PAGE_TYPE_NAMES.get(ptype, str(ptype))


def walk_pages(data: bytes | memoryview | Callable[[int, int], bytes], start: int,
               footer: Footer, row_group: int, leaf: int,
               length: int | None = None) -> PageTable:
    """The checked pages of one column chunk starting at file offset ``start``.

    ``data`` is the chunk's bytes, or a function ``(offset, size) -> bytes``
    reading the file (then ``length`` is the chunk's size, and only windows
    around the headers are read).  Raises ParquetFormatError when a header
    does not decode, lies outside the chunk, has a negative size or count,
    an unknown type or no type-specific header, when a dictionary page is
    not first, or when the data pages' value counts do not add up to the
    chunk's ``num_values``.  See the module example.
    """
    where = f"row group {row_group}, column {footer.columns[leaf].name!r}"
    walk = _pagewalk.Walk()
    if callable(data):
        assert length is not None
        _walk_windows(walk, data, start, start + length, where, footer.path)
    else:
        view = memoryview(data).cast("B")
        end = start + len(view)
        outcome, pos, reason, at = walk.walk(view, start, start, end)
        if outcome != _pagewalk.WALKED:
            _fail(walk, outcome, pos, reason, at, end, where, footer.path)
    table = PageTable._of_walk(walk)
    expected = footer.chunk_meta(row_group, leaf).num_values
    if expected is not None:
        total = int(table.num_values[table.is_data].sum())
        if total != expected:
            raise ParquetFormatError(
                f"{where}: the data pages hold {total} values, the column metadata says "
                f"{expected}", path=footer.path, offset=start)
    return table


def _walk_windows(walk: Any, read: Callable[[int, int], bytes], start: int, end: int,
                  where: str, path: str) -> None:
    pos = start
    span = _FIRST_WINDOW  # bytes of the last page, header and payload
    want = 0
    while pos < end:
        available = end - pos
        want = max(want, min(_FIRST_WINDOW, available))
        size = min(max(want, min(span * _PAGES_PER_WINDOW, _MAX_WINDOW)), available)
        buf = read(pos, size)
        if len(buf) < size:  # a short read is the end of the file: no page can follow
            raise ParquetFormatError(
                f"{where}: the file ends at byte {pos + len(buf)}, inside the column chunk "
                f"(bytes {start} to {end})", path=path, offset=pos + len(buf))
        outcome, new_pos, reason, at = walk.walk(buf, pos, pos, end)
        if outcome == _pagewalk.DECODE_ERROR and pos + size < end:
            # The header at new_pos may go past the window: a larger one.
            want = min((pos + size - new_pos) * 16, end - new_pos)
            pos = new_pos
            continue
        if outcome != _pagewalk.WALKED:
            _fail(walk, outcome, new_pos, reason, at, end, where, path)
        if new_pos <= pos:  # never loop: a walk that did not move is a broken header
            raise ParquetFormatError(f"cannot decode page header of {where}", path=path,
                                     offset=pos)
        want = 0
        n = walk.count
        if n:
            cols = walk.columns()
            span = int(cols["header_length"][n - 1] + cols["compressed_page_size"][n - 1])
        pos = new_pos


def _fail(walk: Any, outcome: int, pos: int, reason: str | None, at: int, end: int,
          where: str, path: str) -> None:
    """Raise the ParquetFormatError of a walk's ``outcome`` at page offset ``pos``."""
    if outcome == _pagewalk.DECODE_ERROR:
        if reason == "nesting too deep":
            raise ParquetFormatError(f"page header of {where}: nesting too deep", path=path,
                                     offset=pos)
        raise ParquetFormatError(f"cannot decode page header of {where}: {reason}", path=path,
                                 offset=at)
    if outcome == _pagewalk.REPEATED_FIELD:
        raise ParquetFormatError(f"cannot decode page header of {where}: {reason}", path=path,
                                 offset=at)
    row = {name: col[walk.count - 1] for name, col in walk.columns().items()}
    ptype = _opt(row["type"])
    name = PAGE_TYPE_NAMES.get(ptype, str(ptype)) if ptype is not None else "None"
    if outcome == _pagewalk.BAD_SIZES:
        msg = (f"page header at byte {pos} has sizes {_opt(row['compressed_page_size'])} "
               f"(compressed) and {_opt(row['uncompressed_page_size'])} (uncompressed)")
    elif outcome == _pagewalk.BAD_V2_COUNTS:
        msg = (f"DATA_PAGE_V2 at byte {pos} has num_rows {_opt(row['num_rows'])}, num_nulls "
               f"{_opt(row['num_nulls'])}")
    elif outcome == _pagewalk.BAD_V2_LEVELS:
        levels = sum(int(row[k]) for k in ("def_levels_length", "rep_levels_length")
                     if row[k] != ABSENT)
        msg = (f"DATA_PAGE_V2 at byte {pos} has {levels} level bytes in a "
               f"{int(row['compressed_page_size'])}-byte page")
    elif outcome == _pagewalk.UNKNOWN_TYPE:
        msg = f"unknown page type {ptype} at byte {pos}"
    elif outcome == _pagewalk.NO_SUB_HEADER:
        msg = f"{name} at byte {pos} lacks its type-specific header"
    elif outcome == _pagewalk.BAD_NUM_VALUES:
        msg = f"{name} at byte {pos} has num_values {_opt(row['num_values'])}"
    elif outcome == _pagewalk.PAST_CHUNK:
        page_end = pos + int(row["header_length"]) + int(row["compressed_page_size"])
        msg = (f"{name} at byte {pos} ends at byte {page_end}, past the end of the column "
               f"chunk (byte {end})")
    elif outcome == _pagewalk.LATE_DICTIONARY:
        msg = "a dictionary page that is not the chunk's first page"
    else:  # pragma: no cover - every outcome is named above
        msg = f"page walk outcome {outcome} at byte {pos}"
    raise ParquetFormatError(f"{where}: {msg}", path=path, offset=pos)
