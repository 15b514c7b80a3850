"""Truncated statistics of a STRING column chunk and of each of its pages.

For a BYTE_ARRAY column annotated STRING (or UTF8), pyarrow decodes the
values; each data page's true minimum and maximum (byte-wise, unsigned: the
order Parquet defines for strings) are shortened to at most ``n`` bytes with
:func:`~nanstats.core.byte_bounds.truncate_min` /
:func:`~nanstats.core.byte_bounds.truncate_max` in UTF-8 mode, as
parquet-java does for strings: the stored bounds stay valid UTF-8 (a cut
never falls inside a character; a maximum has its last kept character
incremented), and ``min_exact``/``max_exact`` say whether a bound is the
value itself.  A value that is not valid UTF-8 is truncated byte-wise, which
is still a correct bound.  UTF-8 truncation is not monotonic, so a chunk's
``boundary_order`` is derived from the stored bounds, never assumed.

Page boundaries come from the page headers' value counts, as for float
columns (an OffsetIndex is checked against them, never trusted).

>>> import pyarrow as pa
>>> values = pa.array(["Arthur", "Ford", None, "Zaphod", "Trillian"])
>>> cs = string_stats(values, page_starts=[0, 2, 4], n=3)
>>> cs.chunk
StringBounds(num_values=5, null_count=1, min=b'Art' (truncated), max=b'Zaq' (truncated))
>>> [(p.min_value, p.max_value) for p in cs.pages]
[(b'Art', b'Fos'), (b'Zap', b'Zaq'), (b'Tri', b'Trj')]
>>> cs.boundary_order()
'UNORDERED'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from nanstats.core.byte_bounds import StringBounds, StringChunkStats, truncate_max, truncate_min
from nanstats.core.table import page_starts_for
from nanstats.errors import UnsupportedParquetError
from nanstats.metadata.footer import Footer, LeafColumn
from nanstats.metadata.page_walk import PageTable
from nanstats.metadata.pages import Page
from nanstats.metadata.thrift import pq
from nanstats.parquet.recompute import _combine, _leaf_of, checked_page_starts
from nanstats.prune.parquet_source import leaf_kind


def check_truncate(n: Any) -> int:
    """``n`` when it is a usable truncation length (a positive int), else ValueError.

    >>> check_truncate(16)
    16
    >>> check_truncate(0)
    Traceback (most recent call last):
    ...
    ValueError: truncate must be a positive int (bytes), not 0
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"truncate must be a positive int (bytes), not {n!r}")
    return int(n)


def is_string_leaf(footer: Footer, leaf: LeafColumn) -> bool:
    """True for a BYTE_ARRAY leaf annotated STRING or UTF8, not repeated (flat or in structs).

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"s": ["a"], "b": [b"x"], "l": [["a"]], "x": [1.0]}), path)
    >>> footer = read_footer(path)
    >>> [(c.name, is_string_leaf(footer, c)) for c in footer.columns]
    [('s', True), ('b', False), ('l.list.element', False), ('x', False)]
    """
    return (leaf.physical_type == pq.TYPE_BYTE_ARRAY and leaf.max_repetition_level == 0
            and leaf_kind(footer, leaf) == "bytes")


def _as_binary(array: Any) -> Any:
    """The values as one large_binary Array (bytes, unsigned order), nulls kept."""
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    return array.cast(pa.large_binary())


def bounds_of(values: Any, n: int) -> StringBounds:
    """Counts and bounds (truncated to ``n`` bytes, UTF-8 mode) of a string/binary Array.

    >>> import pyarrow as pa
    >>> bounds_of(pa.array(["Zoë", "Eccentrica"]), 3)
    StringBounds(num_values=2, null_count=0, min=b'Ecc' (truncated), max=b'Zp' (truncated))
    >>> bounds_of(pa.array([None], pa.string()), 3)
    StringBounds(num_values=1, null_count=1)
    """
    import pyarrow.compute as pc

    values = _as_binary(values)
    extremes = pc.min_max(values)
    return _truncated(len(values), values.null_count, extremes["min"].as_py(),
                      extremes["max"].as_py(), n)


def _truncated(num_values: int, null_count: int, lo: bytes | None, hi: bytes | None,
               n: int) -> StringBounds:
    if lo is None or hi is None:
        return StringBounds(num_values, null_count, None, None, False, False)
    lo_bound, lo_exact = truncate_min(lo, n, utf8=True)
    hi_bound, hi_exact = truncate_max(hi, n, utf8=True)
    return StringBounds(num_values, null_count, lo_bound, hi_bound, lo_exact, hi_exact)


def string_stats(values: Any, *, page_starts: npt.ArrayLike, n: int) -> StringChunkStats:
    """Truncated statistics of a chunk's values split into pages at ``page_starts``.

    ``values`` is a pyarrow string or binary (Chunked)Array (dictionary
    arrays are decoded); ``page_starts`` must start at 0 and increase
    strictly.  The chunk's bounds are the truncated extremes of the page
    extremes.

    >>> import pyarrow as pa
    >>> cs = string_stats(pa.array(["pear", "apple", None, "fig"]), page_starts=[0, 2], n=2)
    >>> [(p.min_value, p.max_value, p.null_count) for p in cs.pages]
    [(b'ap', b'pf', 0), (b'fi', b'fj', 1)]
    >>> cs.chunk.min_value, cs.chunk.max_value, cs.page_starts.tolist()
    (b'ap', b'pf', [0, 2])
    """
    import pyarrow.compute as pc

    n = check_truncate(n)
    values = _as_binary(values)
    starts = page_starts_for(len(values), page_starts=np.asarray(page_starts, dtype=np.int64))
    ends = [*starts[1:].tolist(), len(values)]
    pages = []
    lows: list[bytes] = []
    highs: list[bytes] = []
    for start, end in zip(starts.tolist(), ends, strict=True):
        page = values.slice(start, end - start)
        extremes = pc.min_max(page)
        lo, hi = extremes["min"].as_py(), extremes["max"].as_py()
        if lo is not None:
            lows.append(lo)
            highs.append(hi)
        pages.append(_truncated(len(page), page.null_count, lo, hi, n))
    chunk = _truncated(len(values), values.null_count, min(lows, default=None),
                       max(highs, default=None), n)
    return StringChunkStats(chunk, tuple(pages), starts, n)


def string_stats_for_array(array: Any, pages: list[Page] | PageTable, offset_index: Any, n: int, *,
                           path: str, where: str) -> StringChunkStats:
    """StringChunkStats from a chunk's decoded values and its pages.

    Page boundaries as :func:`~nanstats.parquet.recompute.stats_for_array`
    takes them; ``path``/``where`` label ParquetFormatError when they do not
    fit the values.  A chunk without data pages has no page entries.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> from nanstats.metadata.pages import read_pages
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> values = pa.array(["Arthur", None, "Ford"])
    >>> papq.write_table(pa.table({"s": values}), path, data_page_size=1, write_batch_size=2)
    >>> footer = read_footer(path)
    >>> with open(path, "rb") as f:
    ...     pages = read_pages(f, footer, 0, 0)
    >>> cs = string_stats_for_array(values, pages, None, 3, path=path, where="row group 0")
    >>> cs.page_starts.tolist(), [(p.min_value, p.max_value) for p in cs.pages]
    ([0, 2], [(b'Art', b'Aru'), (b'For', b'Fos')])
    """
    starts, data_pages = checked_page_starts(len(array), pages, offset_index, path=path,
                                             where=where)
    cs = string_stats(array, page_starts=starts, n=n)
    if data_pages == 0:  # an empty chunk: no page entries
        return StringChunkStats(cs.chunk, (), cs.page_starts[:0], cs.n)
    return cs


def string_leaf_arrays(parquet_file: Any, footer: Footer, row_group: int,
                       leaves: Sequence[int]) -> dict[int, Any]:
    """The values of several STRING leaves of one row group, decoded in one pyarrow call.

    Leaves inside optional structs are flattened (null wherever an ancestor
    is null), as :func:`~nanstats.parquet.recompute.leaf_arrays` does for
    floats.  Returns ``{leaf: pyarrow.Array}``.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"s": ["Arthur", None], "x": [1.0, 2.0]}), path)
    >>> footer = read_footer(path)
    >>> string_leaf_arrays(papq.ParquetFile(path), footer, 0, [0])[0].to_pylist()
    ['Arthur', None]
    >>> string_leaf_arrays(papq.ParquetFile(path), footer, 0, [1])
    Traceback (most recent call last):
    ...
    nanstats.errors.UnsupportedParquetError: column 'x' is not a flat STRING column
    """
    import pyarrow as pa

    cols = [footer.columns[leaf] for leaf in leaves]
    for col in cols:
        if not is_string_leaf(footer, col):
            raise UnsupportedParquetError(f"column {col.name!r} is not a flat STRING column")
    table = parquet_file.read_row_group(row_group, columns=[c.name for c in cols],
                                        use_threads=True)
    out = {}
    for leaf, col in zip(leaves, cols, strict=True):
        chunks = _leaf_of(table.column(col.path[0]), col.path[1:])
        arr = _combine(chunks, chunks[0].type) if chunks else None
        value_type = arr.type.value_type if arr is not None and \
            pa.types.is_dictionary(arr.type) else getattr(arr, "type", None)
        if value_type is None or not (pa.types.is_string(value_type)
                                      or pa.types.is_large_string(value_type)
                                      or pa.types.is_string_view(value_type)
                                      or pa.types.is_binary(value_type)
                                      or pa.types.is_large_binary(value_type)
                                      or pa.types.is_binary_view(value_type)):
            raise UnsupportedParquetError(f"column {col.name!r} reads as {value_type}, not a "
                                          "string Arrow type")
        out[leaf] = arr
    return out


__all__ = ["bounds_of", "check_truncate", "is_string_leaf",
           "string_leaf_arrays", "string_stats", "string_stats_for_array"]
