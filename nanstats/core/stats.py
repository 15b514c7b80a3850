"""Column statistics: what one pass over a float column knows.

``ColumnStats`` is exact and mergeable; ``ColumnStats.statistics(order)``
turns it into the ``Statistics`` a Parquet writer must emit under a column
order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from nanstats.core.floats import BY_PHYSICAL_TYPE, FloatType, PhysicalType
from nanstats.core.inputs import as_inputs
from nanstats.core.rules import (
    ColumnOrderName,
    TypeOrderPolicy,
    bounds_to_write,
    check_order,
)
from nanstats.core.table import (
    KEY_EMPTY_MAX,
    KEY_EMPTY_MIN,
    StatsTable,
    merge_rows,
    page_starts_for,
    scan_chunks,
)


@dataclass(frozen=True)
class ColumnStats:
    """Exact statistics of the float values of one scope (column, page, ...).

    Bounds are kept as bit patterns in IEEE 754 totalOrder: the extremes of
    the non-NaN values (``value_min_bits``/``value_max_bits``) and of the NaN
    values (``nan_min_bits``/``nan_max_bits``), each None when there is no
    such value.  ``min``/``max`` follow the IEEE_754_TOTAL_ORDER rule: the
    non-NaN extremes, the NaN extremes when every non-null value is NaN, and
    None when every value is null.

    Examples
    --------
    >>> import numpy as np, nanstats
    >>> s = nanstats.summary(np.array([2.5, -0.0, np.nan, -np.nan, 0.0]))
    >>> s
    ColumnStats(DOUBLE, num_values=5, null_count=0, nan_count=2 (+1/-1), min=-0.0, max=2.5)
    >>> s.min_bits == 0x8000000000000000, s.is_all_nan
    (True, False)
    """

    physical_type: PhysicalType
    num_values: int
    null_count: int
    pos_nan_count: int
    neg_nan_count: int
    value_min_bits: int | None
    value_max_bits: int | None
    nan_min_bits: int | None
    nan_max_bits: int | None

    @property
    def float_type(self) -> FloatType:
        """The IEEE 754 format of the values."""
        return BY_PHYSICAL_TYPE[self.physical_type]

    @property
    def nan_count(self) -> int:
        """NaN values of either sign."""
        return self.pos_nan_count + self.neg_nan_count

    @property
    def value_count(self) -> int:
        """Non-null, non-NaN values."""
        return self.num_values - self.null_count - self.nan_count

    @property
    def is_all_null(self) -> bool:
        """True when there is no non-null value (an empty scope included)."""
        return self.null_count == self.num_values

    @property
    def is_all_nan(self) -> bool:
        """True when there are non-null values and every one is NaN."""
        return self.nan_count > 0 and self.value_count == 0

    @property
    def min_bits(self) -> int | None:
        """Bits of the minimum (see class docs), None when all null."""
        return self.nan_min_bits if self.value_min_bits is None else self.value_min_bits

    @property
    def max_bits(self) -> int | None:
        """Bits of the maximum (see class docs), None when all null."""
        return self.nan_max_bits if self.value_max_bits is None else self.value_max_bits

    @property
    def min(self) -> float | None:
        """The minimum as a Python float (NaN payloads may not survive)."""
        bits = self.min_bits
        return None if bits is None else self.float_type.bits_to_float(bits)

    @property
    def max(self) -> float | None:
        """The maximum as a Python float (NaN payloads may not survive)."""
        bits = self.max_bits
        return None if bits is None else self.float_type.bits_to_float(bits)

    @classmethod
    def from_table(cls, table: StatsTable, row: int) -> ColumnStats:
        """The statistics of one row (scope) of a StatsTable."""
        # Python ints, not numpy scalars: a handful of keys, where numpy's
        # machinery costs more than the arithmetic (and more still right
        # after a scan has streamed the caches full of data).
        num, nulls, pos, neg = table.counts[row].tolist()
        ft = table.float_type
        lo, hi, nan_lo, nan_hi = (ft.key_to_bits(k) for k in table.keys[row].tolist())
        has_values = num - nulls - pos - neg > 0
        has_nan = pos + neg > 0
        return cls(
            ft.physical_type,
            num,
            nulls,
            pos,
            neg,
            lo if has_values else None,
            hi if has_values else None,
            nan_lo if has_nan else None,
            nan_hi if has_nan else None,
        )

    def merge(self, other: ColumnStats) -> ColumnStats:
        """The statistics of the concatenation of both scopes (exact).

        >>> import numpy as np, nanstats
        >>> a, b = np.array([1.0, np.nan]), np.array([-3.0])
        >>> nanstats.summary(a).merge(nanstats.summary(b)) == nanstats.summary(np.r_[a, b])
        True
        """
        if not isinstance(other, ColumnStats):
            raise TypeError(f"can only merge ColumnStats, not {type(other).__name__}")
        if other.physical_type != self.physical_type:
            raise ValueError(
                f"cannot merge {self.physical_type} statistics with {other.physical_type}"
            )
        return merge_stats([self, other])

    def statistics(
        self, order: ColumnOrderName = "ieee754", *, policy: TypeOrderPolicy = "safe"
    ) -> EncodedStatistics:
        """The Parquet ``Statistics`` a writer emits for this scope.

        ``order`` is ``'ieee754'`` (IEEE_754_TOTAL_ORDER) or ``'type_order'``
        (the legacy order).  For ``type_order``, ``policy='safe'`` (default)
        writes no bounds for a scope holding any NaN, as parquet-java does;
        ``policy='format_minimum'`` writes the non-NaN bounds.

        >>> import numpy as np, nanstats
        >>> s = nanstats.summary(np.array([0.0, 1.5, np.nan], dtype=np.float32))
        >>> s.statistics("ieee754").min_value, s.statistics("ieee754").nan_count
        (b'\\x00\\x00\\x00\\x00', 1)
        >>> s.statistics("type_order").min_value is None
        True
        >>> s.statistics("type_order", policy="format_minimum").min_value
        b'\\x00\\x00\\x00\\x80'
        """
        check_order(order, policy)
        bounds = bounds_to_write(stats_table([self]), order, policy)
        ft = self.float_type
        min_value: bytes | None = None
        max_value: bytes | None = None
        if bounds.present[0]:
            min_value, max_value = ft.bits_to_plain([bounds.min_bits[0], bounds.max_bits[0]])
        return EncodedStatistics(
            order, ft.physical_type, min_value, max_value, self.null_count, self.nan_count
        )

    def to_dict(self) -> dict[str, Any]:
        """All fields and derived values as plain Python objects."""
        d = asdict(self)
        d.update(
            nan_count=self.nan_count,
            min=self.min,
            max=self.max,
            min_bits=self.min_bits,
            max_bits=self.max_bits,
            is_all_null=self.is_all_null,
            is_all_nan=self.is_all_nan,
        )
        return d

    def _format(self, bits: int | None) -> str:
        return "None" if bits is None else self.float_type.format_bits(bits)

    def __repr__(self) -> str:
        return (
            f"ColumnStats({self.physical_type}, num_values={self.num_values}, "
            f"null_count={self.null_count}, nan_count={self.nan_count} "
            f"(+{self.pos_nan_count}/-{self.neg_nan_count}), "
            f"min={self._format(self.min_bits)}, max={self._format(self.max_bits)})"
        )


def stats_table(stats: Sequence[ColumnStats]) -> StatsTable:
    """Columnar form (one row per scope) of ColumnStats of one physical type.

    >>> import numpy as np, nanstats
    >>> stats_table(nanstats.page_stats(np.array([1.0, np.nan]), page_rows=1)).nan_count.tolist()
    [0, 1]
    """
    if not stats:
        raise ValueError("need at least one ColumnStats")
    types = {s.physical_type for s in stats}
    if len(types) != 1:
        raise ValueError(f"pages of different physical types: {sorted(types)}")
    ft = BY_PHYSICAL_TYPE[types.pop()]
    counts = np.array(
        [(s.num_values, s.null_count, s.pos_nan_count, s.neg_nan_count) for s in stats],
        dtype=np.int64,
    ).reshape(-1, 4)
    empty = (KEY_EMPTY_MIN, KEY_EMPTY_MAX)
    bits = [(s.value_min_bits, s.value_max_bits, s.nan_min_bits, s.nan_max_bits) for s in stats]
    keys = np.empty((len(stats), 4), dtype=np.int64)
    for col in range(4):
        present = np.array([b[col] is not None for b in bits])
        raw = np.array([b[col] or 0 for b in bits], dtype=ft.bits_dtype)
        keys[:, col] = np.where(present, ft.bits_to_keys(raw), empty[col % 2])
    return StatsTable(ft, counts, keys)


def merge_stats(stats: Sequence[ColumnStats]) -> ColumnStats:
    """The statistics of the concatenation of all the scopes (exact, in one numpy pass).

    The merge of many pages at once; :meth:`~nanstats.ColumnStats.merge` is the merge of two.

    >>> import numpy as np, nanstats
    >>> v = np.array([4.0, -np.nan, 0.0, -0.0, np.nan, 2.0])
    >>> merge_stats(nanstats.page_stats(v, page_rows=2)) == nanstats.summary(v)
    True
    """
    return ColumnStats.from_table(merge_rows(stats_table(stats)), 0)


@dataclass(frozen=True)
class EncodedStatistics:
    """The float fields of a Parquet ``Statistics`` struct, as written.

    ``min_value``/``max_value`` (fields 6/5) are PLAIN little-endian bytes or
    None when the rules say not to write them; ``null_count`` (3) and
    ``nan_count`` (9) are always written.

    Examples
    --------
    >>> import numpy as np, nanstats
    >>> enc = nanstats.summary(np.array([2.0, np.nan, -1.0])).statistics("ieee754")
    >>> enc.min_value.hex(), enc.max_value.hex(), enc.nan_count
    ('000000000000f0bf', '0000000000000040', 1)
    >>> nanstats.summary(np.array([2.0, np.nan])).statistics("type_order").max_value is None
    True
    """

    order: ColumnOrderName
    physical_type: PhysicalType
    min_value: bytes | None
    max_value: bytes | None
    null_count: int
    nan_count: int

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict (bytes kept as bytes)."""
        return asdict(self)


def summary(values: Any, mask: npt.NDArray[np.bool_] | None = None) -> ColumnStats:
    """Statistics of a whole float array in one pass.

    Parameters
    ----------
    values : numpy.ndarray
        float16, float32 or float64, any shape.  Contiguous input is read in
        place; big-endian or strided input is copied once into native order.
        A ``numpy.ma.MaskedArray`` counts its masked entries as nulls.
    mask : numpy.ndarray of bool, optional
        True where a value is valid; False marks a null.

    Examples
    --------
    >>> import numpy as np, nanstats
    >>> v = np.array([1.0, np.nan, -np.inf, 7.0], dtype=np.float16)
    >>> s = nanstats.summary(v, mask=np.array([True, True, True, False]))
    >>> s.null_count, s.nan_count, s.min, s.max
    (1, 1, -inf, 1.0)
    """
    chunks = as_inputs(values, mask)
    n = sum(len(c) for c in chunks)
    return ColumnStats.from_table(scan_chunks(chunks, page_starts_for(n)), 0)


def page_stats(
    values: Any,
    mask: npt.NDArray[np.bool_] | None = None,
    *,
    page_rows: int | None = None,
    page_starts: npt.ArrayLike | None = None,
) -> list[ColumnStats]:
    """Statistics of every page of a 1-D float array, in one kernel call.

    Pages are either ``page_rows`` values each (the last may be shorter), or
    start at the offsets ``page_starts`` (strictly increasing, first 0, all
    within the array).  Without either, the whole array is one page.

    Examples
    --------
    >>> import numpy as np, nanstats
    >>> pages = nanstats.page_stats(np.array([3.0, np.nan, np.nan, 1.0, 2.0]), page_rows=2)
    >>> [(p.nan_count, p.min, p.max) for p in pages]
    [(1, 3.0, 3.0), (1, 1.0, 1.0), (0, 2.0, 2.0)]
    >>> pages[1].merge(pages[2]).max
    2.0
    """
    table = page_table(values, mask, page_rows=page_rows, page_starts=page_starts)
    return [ColumnStats.from_table(table, i) for i in range(len(table))]


def page_table(
    values: Any,
    mask: npt.NDArray[np.bool_] | None = None,
    *,
    page_rows: int | None = None,
    page_starts: npt.ArrayLike | None = None,
) -> StatsTable:
    """Columnar page statistics (a StatsTable) of a 1-D float array.

    The same pages as :func:`~nanstats.page_stats`, kept as arrays (one entry per page)
    rather than one :class:`~nanstats.ColumnStats` object per page: the form to use for
    many pages.

    Examples
    --------
    >>> import numpy as np
    >>> table = page_table(np.array([3.0, np.nan, np.nan, 1.0, 2.0]), page_rows=2)
    >>> len(table), table.nan_count.tolist(), table.value_count.tolist()
    (3, [1, 1, 0], [1, 1, 1])
    """
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise ValueError(f"page statistics need a 1-D array, got shape {values.shape}")
    chunks = as_inputs(values, mask)
    n = sum(len(c) for c in chunks)
    return scan_chunks(chunks, page_starts_for(n, page_rows, page_starts))
