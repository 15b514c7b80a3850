"""Thrift <-> nanstats: the one place where the Parquet metadata's enums and
structures meet nanstats' own types.

Each Thrift enum is named once here; every module that reads or writes a
``BoundaryOrder``, a physical type or a column order asks this module.  The
writing direction builds the ``Statistics``, ``ColumnIndex`` and
``ColumnOrder`` structs from nanstats' statistics; the reading direction
turns a ``Statistics`` struct into :class:`WrittenStatistics` (the page
index is decoded into columnar values by
:class:`~nanstats.metadata.page_index.PageIndex`).

>>> BOUNDARY_ORDER_NAMES[pq.BOUNDARY_ASCENDING], BOUNDARY_ORDER_CODES["DESCENDING"]
('ASCENDING', 2)
>>> PHYSICAL_TYPE_NAMES[pq.TYPE_DOUBLE]
'DOUBLE'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nanstats._pagewalk import encode_float_statistics
from nanstats.core.byte_bounds import StringBounds, StringChunkStats
from nanstats.core.column_index import ColumnIndex
from nanstats.core.rules import BoundaryOrder, ColumnOrderName, TypeOrderPolicy, bounds_to_write
from nanstats.core.stats import EncodedStatistics
from nanstats.core.table import StatsTable
from nanstats.metadata.compact import keep_unknown
from nanstats.metadata.thrift import pq

#: ColumnIndex.boundary_order (a Thrift enum) by its number.
BOUNDARY_ORDER_NAMES: dict[int, BoundaryOrder] = {
    pq.BOUNDARY_UNORDERED: "UNORDERED",
    pq.BOUNDARY_ASCENDING: "ASCENDING",
    pq.BOUNDARY_DESCENDING: "DESCENDING",
}
#: The number of each boundary order name.
BOUNDARY_ORDER_CODES: dict[BoundaryOrder, int] = {n: c for c, n in BOUNDARY_ORDER_NAMES.items()}

#: Parquet physical types by their number.
PHYSICAL_TYPE_NAMES: dict[int, str] = {
    pq.TYPE_BOOLEAN: "BOOLEAN",
    pq.TYPE_INT32: "INT32",
    pq.TYPE_INT64: "INT64",
    pq.TYPE_INT96: "INT96",
    pq.TYPE_FLOAT: "FLOAT",
    pq.TYPE_DOUBLE: "DOUBLE",
    pq.TYPE_BYTE_ARRAY: "BYTE_ARRAY",
    pq.TYPE_FIXED_LEN_BYTE_ARRAY: "FIXED_LEN_BYTE_ARRAY",
}


# --------------------------------------------------------------------- reading


@dataclass(frozen=True)
class WrittenStatistics:
    """A ``Statistics`` struct as a file holds it: every field, None when absent.

    ``min_value``/``max_value`` (fields 6/5) and the deprecated ``min``/``max``
    (2/1) are the raw PLAIN bytes; nothing is checked here.

    >>> st = WrittenStatistics.from_thrift(pq.Statistics(null_count=0, max=b"x"))
    >>> st.null_count, st.nan_count, st.max, st.has_bounds
    (0, None, b'x', False)
    """

    null_count: int | None
    nan_count: int | None
    min_value: bytes | None
    max_value: bytes | None
    min: bytes | None
    max: bytes | None
    is_min_value_exact: bool | None
    is_max_value_exact: bool | None

    @classmethod
    def from_thrift(cls, st: pq.Statistics) -> WrittenStatistics:
        """The fields of a Thrift ``Statistics`` struct."""
        return cls(st.null_count, st.nan_count, st.min_value, st.max_value, st.min, st.max,
                   st.is_min_value_exact, st.is_max_value_exact)

    @property
    def has_bounds(self) -> bool:
        """True when ``min_value`` or ``max_value`` is set."""
        return self.min_value is not None or self.max_value is not None


def written_statistics(st: pq.Statistics | None) -> WrittenStatistics | None:
    """:meth:`WrittenStatistics.from_thrift`, None for an absent struct.

    >>> written_statistics(None) is None, written_statistics(pq.Statistics(nan_count=2)).nan_count
    (True, 2)
    """
    return None if st is None else WrittenStatistics.from_thrift(st)


# --------------------------------------------------------------------- writing


def statistics_struct(enc: EncodedStatistics) -> pq.Statistics:
    """The Thrift ``Statistics`` struct nanstats writes for encoded float statistics.

    ``null_count`` and ``nan_count`` always; ``min_value``/``max_value`` with
    ``is_min/max_value_exact`` set when the rules give bounds; the
    deprecated ``min``/``max`` never.

    >>> import numpy as np, nanstats
    >>> st = statistics_struct(nanstats.summary(np.array([1.0, np.nan])).statistics())
    >>> st.nan_count, st.min_value.hex(), st.is_min_value_exact, st.min
    (1, '000000000000f03f', True, None)
    """
    st = pq.Statistics(null_count=enc.null_count, nan_count=enc.nan_count)
    if enc.min_value is not None and enc.max_value is not None:
        st.min_value, st.max_value = enc.min_value, enc.max_value
        st.is_min_value_exact = st.is_max_value_exact = True
    return st


def page_statistics(table: StatsTable, order: ColumnOrderName,
                    policy: TypeOrderPolicy = "safe") -> list[pq.Statistics]:
    """Statistics structs for every row (page) of a StatsTable, rules applied at once.

    Equal to ``statistics_struct(ColumnStats.from_table(table, i).statistics(order))``
    for each page ``i``.

    >>> import numpy as np
    >>> from nanstats.core.stats import page_table
    >>> [s.nan_count for s in page_statistics(page_table(np.array([1.0, np.nan]), page_rows=1),
    ...                                        "ieee754")]
    [0, 1]
    """
    if len(table) == 0:
        return []
    ft = table.float_type
    bounds = bounds_to_write(table, order, policy)
    mins = ft.bits_to_plain(bounds.min_bits)
    maxs = ft.bits_to_plain(bounds.max_bits)
    out = []
    for i, (present, nulls, nans) in enumerate(zip(
            bounds.present.tolist(), table.null_count.tolist(), table.nan_count.tolist(),
            strict=True)):
        st = pq.Statistics(null_count=nulls, nan_count=nans)
        if present:
            st.min_value, st.max_value = mins[i], maxs[i]
            st.is_min_value_exact = st.is_max_value_exact = True
        out.append(st)
    return out


def page_statistics_encoded(table: StatsTable, order: ColumnOrderName,
                            policy: TypeOrderPolicy = "safe") -> tuple[bytes, Any]:
    """:func:`page_statistics`, each struct already encoded: the structs back to back,
    and where each starts (one more entry: the end).  No object per page.

    >>> import numpy as np
    >>> from nanstats.core.stats import page_table
    >>> from nanstats.metadata.thrift import encode
    >>> t = page_table(np.array([1.0, np.nan]), page_rows=1)
    >>> blob, at = page_statistics_encoded(t, "ieee754")
    >>> [blob[a:b] for a, b in zip(at, at[1:])] == [encode(s) for s in page_statistics(t, "ieee754")]
    True
    """
    ft = table.float_type
    if len(table) == 0:
        return b"", np.zeros(1, dtype=np.int64)
    bounds = bounds_to_write(table, order, policy)
    width = ft.nbytes
    le = ft.bits_dtype.newbyteorder("<")

    def plain(bits: Any) -> Any:
        return np.ascontiguousarray(np.asarray(bits, dtype=ft.bits_dtype).astype(le)
                                    ).view(np.uint8).reshape(-1, width)

    return encode_float_statistics(
        np.ascontiguousarray(table.null_count, dtype=np.int64),
        np.ascontiguousarray(table.nan_count, dtype=np.int64),
        np.ascontiguousarray(bounds.present, dtype=np.uint8),
        plain(bounds.min_bits), plain(bounds.max_bits))


def column_index_struct(ci: ColumnIndex, like: pq.ColumnIndex | None = None) -> pq.ColumnIndex:
    """The Thrift ``ColumnIndex`` of a nanstats ColumnIndex.

    Level histograms are taken from ``like`` (the chunk's previous
    ColumnIndex), which stay right because the pages do not change.

    >>> import numpy as np, nanstats
    >>> s = column_index_struct(nanstats.column_index(np.array([1.0, np.nan]), page_rows=1))
    >>> s.nan_counts, s.boundary_order, s.null_pages
    ([0, 1], 1, [False, False])
    """
    out = pq.ColumnIndex(
        null_pages=list(ci.null_pages),
        min_values=list(ci.min_values),
        max_values=list(ci.max_values),
        boundary_order=BOUNDARY_ORDER_CODES[ci.boundary_order],
        null_counts=list(ci.null_counts),
        nan_counts=list(ci.nan_counts),
    )
    copy_level_histograms(out, like)
    return out


def copy_level_histograms(out: pq.ColumnIndex, like: pq.ColumnIndex | None) -> None:
    """Copy what ``like`` (the old ColumnIndex) holds besides bounds and counts into ``out``.

    That is its level histograms and any field the IDL does not know
    (``metadata.compact.unknown_fields``), only when the page
    count is unchanged: the pages are the same, so they still describe them.

    >>> old = pq.ColumnIndex(null_pages=[False], definition_level_histograms=[0, 3])
    >>> new = pq.ColumnIndex(null_pages=[False])
    >>> copy_level_histograms(new, old)
    >>> new.definition_level_histograms, new.repetition_level_histograms
    ([0, 3], None)
    """
    if like is None or len(like.null_pages or ()) != len(out.null_pages or ()):
        return
    for name in ("repetition_level_histograms", "definition_level_histograms"):
        hist = getattr(like, name)
        if hist:
            setattr(out, name, list(hist))
    keep_unknown(out, like)


def string_statistics_struct(bounds: StringBounds) -> pq.Statistics:
    """The Thrift ``Statistics`` struct nanstats writes for (truncated) string bounds.

    ``null_count`` always; ``min_value``/``max_value`` with honest
    ``is_min/max_value_exact`` unless every value is null; no ``nan_count``
    (strings have none) and never the deprecated ``min``/``max``.

    >>> import pyarrow as pa
    >>> from nanstats.parquet.string_stats import bounds_of
    >>> st = string_statistics_struct(bounds_of(pa.array(["Marvin", "Eddie"]), 4))
    >>> st.min_value, st.is_min_value_exact, st.max_value, st.is_max_value_exact, st.nan_count
    (b'Eddi', False, b'Marw', False, None)
    """
    st = pq.Statistics(null_count=bounds.null_count)
    if not bounds.all_null:
        st.min_value, st.max_value = bounds.min_value, bounds.max_value
        st.is_min_value_exact, st.is_max_value_exact = bounds.min_exact, bounds.max_exact
    return st


def string_column_index_struct(cs: StringChunkStats,
                               like: pq.ColumnIndex | None = None) -> pq.ColumnIndex:
    """The Thrift ``ColumnIndex`` of a string chunk's truncated page bounds.

    Null pages get empty bounds; ``boundary_order`` comes from the stored
    (truncated) bounds; level histograms are copied from ``like`` (the old
    ColumnIndex) when it has as many pages.

    >>> import pyarrow as pa
    >>> from nanstats.parquet.string_stats import string_stats
    >>> cs = string_stats(pa.array(["ab", None, "abc"]), page_starts=[0, 1, 2], n=2)
    >>> s = string_column_index_struct(cs)
    >>> s.null_pages, s.min_values, s.max_values, s.boundary_order, s.null_counts
    ([False, True, False], [b'ab', b'', b'ab'], [b'ab', b'', b'ac'], 1, [0, 1, 0])
    """
    out = pq.ColumnIndex(
        null_pages=[p.all_null for p in cs.pages],
        min_values=[p.min_value or b"" for p in cs.pages],
        max_values=[p.max_value or b"" for p in cs.pages],
        boundary_order=BOUNDARY_ORDER_CODES[cs.boundary_order()],
        null_counts=[p.null_count for p in cs.pages],
    )
    copy_level_histograms(out, like)
    return out


def column_orders(old: Sequence[pq.ColumnOrder] | None, num_leaves: int,
                  rewritten: Sequence[int], order: ColumnOrderName) -> list[pq.ColumnOrder]:
    """FileMetaData.column_orders with the leaves ``rewritten`` set to ``order``.

    The other leaves keep the order they had (TYPE_ORDER where the file had
    none).

    >>> orders = column_orders(None, 2, [1], "ieee754")
    >>> [o.TYPE_ORDER is not None for o in orders], orders[1].IEEE_754_TOTAL_ORDER is not None
    ([True, False], True)
    """
    orders = list(old) if old else [pq.ColumnOrder(TYPE_ORDER=pq.TypeDefinedOrder())
                                    for _ in range(num_leaves)]
    for leaf in rewritten:
        orders[leaf] = (pq.ColumnOrder(IEEE_754_TOTAL_ORDER=pq.IEEE754TotalOrder())
                        if order == "ieee754" else pq.ColumnOrder(TYPE_ORDER=pq.TypeDefinedOrder()))
    return orders


__all__ = ["BOUNDARY_ORDER_CODES", "BOUNDARY_ORDER_NAMES", "PHYSICAL_TYPE_NAMES",
           "WrittenStatistics", "column_index_struct", "column_orders", "copy_level_histograms",
           "page_statistics", "page_statistics_encoded", "statistics_struct",
           "string_column_index_struct", "string_statistics_struct", "written_statistics"]
