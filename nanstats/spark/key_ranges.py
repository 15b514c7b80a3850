"""Key ranges: the rows a plan keeps, said with a file's own integer statistics.

Spark's Parquet reader skips row groups and pages by the statistics of the
predicate it is given.  Its float statistics cannot be trusted (NaN left out
of the bounds, no ``nan_count``), but integer statistics can: every writer
computes them exactly, and Spark's own filter pushdown relies on them.  So
the rows a nanstats plan keeps in a file are described by ranges of one
integer column of the file (``id``, ``minute``...): for every kept run of
rows, the smallest and largest value of the pages the run touches.  Every
kept row lies in a range, so ``col BETWEEN lo AND hi OR ...``, given to
Spark as a filter it pushes down, loses no kept row; row groups and pages
whose bounds meet no range are skipped by Spark's vectorized reader, in the
JVM.  Runs with nulls in a column (a comparison with null would drop the
row) rule that column out; of the columns left, the one whose ranges leave
the fewest rows to read is chosen, and neighbouring ranges are merged to at
most ``max_ranges`` (the filter is evaluated on every row read, and Spark
reads fragmented row ranges slowly: measured in docs/performance).

>>> import os, tempfile, numpy as np, pyarrow as pa, pyarrow.parquet as papq
>>> from nanstats.prune.results import RowSelection
>>> path = os.path.join(tempfile.mkdtemp(), "a.parquet")
>>> papq.write_table(pa.table({"t": np.arange(100, dtype=np.int64), "x": np.arange(100.0)}),
...                  path, row_group_size=50, data_page_size=64, write_batch_size=10,
...                  write_page_index=True)
>>> keys = file_key_ranges(path, RowSelection({1: ((20, 30),)}, 100))
>>> keys, keys.rows
(KeyRanges(t: [70, 79]), 50)
>>> ranges_sql([keys])
'((`t` BETWEEN 70 AND 79))'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nanstats.lake.fs import FileCache, resolve
from nanstats.metadata.footer import Footer, LeafColumn, read_footer
from nanstats.metadata.page_index import PageIndexRegion
from nanstats.prune.results import RowSelection

__all__ = ["KeyRanges", "file_key_ranges", "key_columns", "ranges_sql"]

#: At most this many ranges per file: ranges beyond are merged (a wider range
#: reads more, never less).
MAX_RANGES_PER_FILE = 8

_INT32, _INT64 = 1, 2  # Parquet physical types
_SIGNED_CONVERTED = {15, 16, 17, 18}  # INT_8, INT_16, INT_32, INT_64


@dataclass(frozen=True)
class KeyRanges:
    """Inclusive ranges of one integer column holding every kept row of a file.

    ``rows`` is how many rows of the file lie in row groups whose bounds
    meet a range: at most what Spark reads with them.

    >>> KeyRanges("minute", ((10, 99), (200, 200)), 0).to_sql()
    '(`minute` BETWEEN 10 AND 99 OR `minute` BETWEEN 200 AND 200)'
    """

    column: str
    ranges: tuple[tuple[int, int], ...]
    rows: int

    def to_sql(self) -> str:
        """The ranges as a Spark SQL disjunction."""
        quoted = "`" + self.column.replace("`", "``") + "`"
        return "(" + " OR ".join(f"{quoted} BETWEEN {_int_sql(lo)} AND {_int_sql(hi)}"
                                 for lo, hi in self.ranges) + ")"

    def __repr__(self) -> str:
        return f"KeyRanges({self.column}: " + ", ".join(
            f"[{lo}, {hi}]" for lo, hi in self.ranges) + ")"


def _int_sql(v: int) -> str:
    return f"{v}L" if not -2**31 <= v < 2**31 else str(v)


def key_columns(footer: Footer) -> list[LeafColumn]:
    """Top-level signed INT32/INT64 columns: those whose statistics Spark compares as we do.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> path = os.path.join(tempfile.mkdtemp(), "a.parquet")
    >>> papq.write_table(pa.table({"i": [1], "u": pa.array([1], pa.uint32()), "x": [1.0],
    ...                            "d": pa.array([1], pa.date32())}), path)
    >>> [c.name for c in key_columns(read_footer(path))]
    ['i']
    """
    out = []
    for leaf in footer.columns:
        if len(leaf.path) != 1 or leaf.max_repetition_level > 0:
            continue
        if leaf.physical_type not in (_INT32, _INT64):
            continue
        el = footer.schema[leaf.schema_index]
        logical = el.logicalType
        if logical is not None:
            integer = logical.INTEGER
            if integer is None or not integer.isSigned:
                continue
        elif el.converted_type is not None and el.converted_type not in _SIGNED_CONVERTED:
            continue
        out.append(leaf)
    return out


def _decode(raw: bytes | None, width: int) -> int | None:
    if raw is None or len(raw) != width:
        return None
    return int.from_bytes(raw, "little", signed=True)


def _chunk_bounds(footer: Footer, g: int, leaf: LeafColumn) -> tuple[int, int] | None:
    stats = footer.chunk_meta(g, leaf.index).statistics
    if stats is None or stats.null_count is None or stats.null_count != 0:
        return None
    width = 4 if leaf.physical_type == _INT32 else 8
    lo = _decode(stats.min_value if stats.min_value is not None else stats.min, width)
    hi = _decode(stats.max_value if stats.max_value is not None else stats.max, width)
    return None if lo is None or hi is None else (lo, hi)


def _pages(footer: Footer, region: PageIndexRegion, g: int, leaf: LeafColumn
           ) -> tuple[np.ndarray, list[tuple[int, int] | None]]:
    """First rows and (lo, hi) of each page of a key column chunk (None: nulls or no bounds).

    Without a page index, the row group is one page with the chunk's bounds.
    """
    from nanstats.metadata.page_index import PageIndex

    index = region.page_index(footer, g, leaf.index)
    assert isinstance(index, PageIndex)
    if index.has_column_index and index.has_offset_index and index.null_counts is not None:
        assert index.first_row_index is not None and index.null_pages is not None
        assert index.min_values is not None and index.max_values is not None
        width = 4 if leaf.physical_type == _INT32 else 8
        bounds: list[tuple[int, int] | None] = []
        for i in range(index.num_pages):
            lo, hi = _decode(index.min_values[i], width), _decode(index.max_values[i], width)
            ok = not index.null_pages[i] and index.null_counts[i] == 0 \
                and lo is not None and hi is not None
            bounds.append((lo, hi) if ok else None)  # type: ignore[arg-type]
        return index.first_row_index, bounds
    return np.zeros(1, dtype=np.int64), [_chunk_bounds(footer, g, leaf)]


def _merge_intervals(intervals: list[tuple[int, int]], max_ranges: int
                     ) -> tuple[tuple[int, int], ...]:
    merged: list[list[int]] = []
    for lo, hi in sorted(intervals):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    while len(merged) > max_ranges:  # close the smallest gap
        i = min(range(len(merged) - 1), key=lambda k: merged[k + 1][0] - merged[k][1])
        merged[i] = [merged[i][0], merged[i + 1][1]]
        del merged[i + 1]
    return tuple((lo, hi) for lo, hi in merged)


_KeyPages = tuple[Footer, list[tuple[LeafColumn, dict[
    int, tuple[np.ndarray, list[tuple[int, int] | None]]]]]]


def _read_key_pages(path: str) -> _KeyPages:
    """The footer and every key column's pages of a file."""
    footer = read_footer(path)
    keys = key_columns(footer)
    if not keys:
        return footer, []
    with resolve(path).open_reader() as f:  # local or remote: the file system layer
        region = PageIndexRegion(f, footer)
        return footer, [(leaf, {g: _pages(footer, region, g, leaf)
                                for g in range(footer.num_row_groups)}) for leaf in keys]


#: A file's key columns and their pages, read once while the file is unchanged.
_key_pages: FileCache[_KeyPages] = FileCache(_read_key_pages)


def file_key_ranges(path: str | os.PathLike[str], selection: RowSelection,
                    max_ranges: int = MAX_RANGES_PER_FILE) -> KeyRanges | None:
    """The ranges of the integer column that leave the fewest rows to read, or None.

    None when no integer column bounds every kept run (see the module example).
    A file's key columns and their page bounds are read once while the file
    is unchanged (size and modification time).
    """
    footer, columns = _key_pages(os.fspath(path))
    best: KeyRanges | None = None
    for leaf, pages in columns:
        intervals: list[tuple[int, int]] = []
        for g in selection.row_groups:
            starts, bounds = pages[g]
            rows = int(footer.row_groups[g].num_rows or 0)
            ends = np.append(starts[1:], rows)
            for a, b in selection.ranges[g]:
                hit = np.flatnonzero((starts < b) & (ends > a))
                found = [bounds[i] for i in hit]
                if not found or any(x is None for x in found):
                    break
                intervals.append((min(x[0] for x in found if x is not None),
                                  max(x[1] for x in found if x is not None)))
            else:
                continue
            break
        else:
            ranges = _merge_intervals(intervals, max_ranges)
            # Counted by row group: Spark's page skipping depends on every
            # column's page boundaries, its row-group skipping on these alone.
            read = 0
            for g, (_, bounds) in pages.items():
                if any(bnd is None or any(lo <= bnd[1] and bnd[0] <= hi for lo, hi in ranges)
                       for bnd in bounds):
                    read += int(footer.row_groups[g].num_rows or 0)
            if best is None or read < best.rows:
                best = KeyRanges(leaf.name, ranges, read)
    return best


def ranges_sql(keys: Sequence[KeyRanges]) -> str:
    """The OR of every file's ranges in Spark SQL.

    >>> ranges_sql([KeyRanges("i", ((1, 2),), 0), KeyRanges("j", ((5, 5),), 0)])
    '((`i` BETWEEN 1 AND 2) OR (`j` BETWEEN 5 AND 5))'
    """
    return "(" + " OR ".join(k.to_sql() for k in keys) + ")"
