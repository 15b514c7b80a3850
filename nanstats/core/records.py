"""The record layout of statistics rows, and statistics as plain numpy columns.

Every table of statistics nanstats hands out -- the pandas summary, the Arrow
summary table and compute functions, the Spark summary, its pandas UDFs and
the Spark index of every page -- has its columns named, ordered and typed
here, once.  Each face turns :data:`STATS_FIELDS` (or a selection of it) into
its own schema and :func:`stats_columns` into its own table.  Pure numpy: no
pyarrow, pandas or pyspark.

The partial rows that merge exactly (counts and totalOrder keys) are the
columns of a StatsTable, :data:`nanstats.core.table.PARTIAL_COLUMNS`.

>>> import numpy as np, nanstats
>>> v = np.ma.masked_array([1.0, np.nan, 0.0], mask=[False, False, True])
>>> cols = stats_columns(nanstats.page_stats(v, page_rows=2))
>>> [f.name for f in STATS_FIELDS] == list(cols.columns)
True
>>> cols["nan_count"].tolist(), cols["min"].tolist(), cols.has_bounds.tolist()
([1, 0], [1.0, nan], [True, False])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from nanstats.core.floats import BY_PHYSICAL_TYPE
from nanstats.core.stats import ColumnStats, stats_table
from nanstats.core.table import StatsTable

#: What a field holds, and so how a face types it: ``label`` and
#: ``physical_type`` strings, ``position`` integers locating a scope in a
#: file, ``count`` int64 counts, ``value`` the bounds as floats (float64, or
#: the column's own type where a face keeps it), ``bits`` the exact bit
#: patterns of the bounds (uint64, or int64 where a face has no unsigned type).
FieldKind = Literal["label", "position", "physical_type", "count", "value", "bits"]


@dataclass(frozen=True)
class Field:
    """One column of a statistics record: its name, kind and numpy dtype.

    >>> STATS_FIELDS[1]
    Field(name='num_values', kind='count', dtype=dtype('int64'))
    """

    name: str
    kind: FieldKind
    dtype: np.dtype[Any]

    @property
    def bounded(self) -> bool:
        """Whether the field is a bound (``value`` or ``bits``): null for a scope
        with no non-null value."""
        return self.kind in ("value", "bits")


def _field(name: str, kind: FieldKind, dtype: npt.DTypeLike) -> Field:
    return Field(name, kind, np.dtype(dtype))


PHYSICAL_TYPE = _field("physical_type", "physical_type", object)
COUNT_FIELDS: tuple[Field, ...] = tuple(
    _field(n, "count", np.int64)
    for n in ("num_values", "null_count", "nan_count", "pos_nan_count", "neg_nan_count"))
VALUE_FIELDS: tuple[Field, ...] = (_field("min", "value", np.float64),
                                   _field("max", "value", np.float64))
BITS_FIELDS: tuple[Field, ...] = (_field("min_bits", "bits", np.uint64),
                                  _field("max_bits", "bits", np.uint64))

#: The statistics of one scope, in the order every face shows them.
STATS_FIELDS: tuple[Field, ...] = (PHYSICAL_TYPE, *COUNT_FIELDS, *VALUE_FIELDS, *BITS_FIELDS)

#: The name of the described column (the Arrow summary table, the Spark summary).
COLUMN = _field("column", "label", object)

#: A row of the index of every page of a lake (``nanstats.spark.index_files``).
INDEX_FIELDS: tuple[Field, ...] = (
    _field("path", "label", object), _field("row_group", "position", np.int32),
    _field("page", "position", np.int32), COLUMN, PHYSICAL_TYPE,
    _field("first_row", "position", np.int64), *COUNT_FIELDS, *VALUE_FIELDS, *BITS_FIELDS,
)


def select(*kinds: FieldKind, fields: Sequence[Field] = STATS_FIELDS) -> tuple[Field, ...]:
    """The fields of the given kinds, in record order.

    >>> [f.name for f in select("count", "value")]
    ['num_values', 'null_count', 'nan_count', 'pos_nan_count', 'neg_nan_count', 'min', 'max']
    """
    return tuple(f for f in fields if f.kind in kinds)


@dataclass(frozen=True, eq=False)
class StatsColumns:
    """Statistics records as columns: one numpy array per field, one element per scope.

    ``columns`` holds every field of :data:`STATS_FIELDS` (and any a face
    adds with :meth:`with_columns`); bound fields (``min``, ``max``,
    ``min_bits``, ``max_bits``) are meaningful only where ``has_bounds``
    (False for a scope with no non-null value; the arrays hold NaN and 0 there).

    >>> import numpy as np, nanstats
    >>> cols = stats_columns([nanstats.summary(np.array([-np.nan], np.float32))])
    >>> hex(cols["min_bits"][0]), cols.to_pylists(BITS_FIELDS, signed_bits=True)
    ('0xffc00000', {'min_bits': [4290772992], 'max_bits': [4290772992]})
    """

    columns: dict[str, npt.NDArray[Any]]
    has_bounds: npt.NDArray[np.bool_]

    def __len__(self) -> int:
        return int(self.has_bounds.shape[0])

    def __getitem__(self, name: str) -> npt.NDArray[Any]:
        return self.columns[name]

    def with_columns(self, **columns: npt.ArrayLike) -> StatsColumns:
        """The same records with more columns (labels, positions) added.

        >>> import numpy as np, nanstats
        >>> cols = stats_columns([nanstats.summary(np.array([1.0]))]).with_columns(column=["x"])
        >>> cols["column"].tolist()
        ['x']
        """
        extra = {k: np.asarray(v) for k, v in columns.items()}
        for name, v in extra.items():
            if v.shape != (len(self),):
                raise ValueError(f"column {name!r} has shape {v.shape}, not ({len(self)},)")
        return StatsColumns({**self.columns, **extra}, self.has_bounds)

    def column(self, field: Field, *, signed_bits: bool = False) -> npt.NDArray[Any]:
        """The array of one field, bits as int64 (two's complement) if ``signed_bits``.

        >>> import numpy as np, nanstats
        >>> cols = stats_columns([nanstats.summary(np.array([-0.0]))])
        >>> cols.column(BITS_FIELDS[0]).tolist(), cols.column(BITS_FIELDS[0], signed_bits=True).tolist()
        ([9223372036854775808], [-9223372036854775808])
        """
        data = self.columns[field.name]
        if field.kind == "bits" and signed_bits:
            return data.view(np.int64)
        return data.astype(field.dtype, copy=False)

    def to_pylists(self, fields: Sequence[Field] = STATS_FIELDS, *,
                   signed_bits: bool = False) -> dict[str, list[Any]]:
        """Python lists, one per field (None for the bounds of a scope without any).

        >>> import numpy as np, nanstats
        >>> pages = nanstats.page_stats(np.ma.masked_array([2.5, 1.0], [False, True]), page_rows=1)
        >>> stats_columns(pages).to_pylists(VALUE_FIELDS)
        {'min': [2.5, None], 'max': [2.5, None]}
        """
        missing = np.flatnonzero(~self.has_bounds).tolist()
        out = {}
        for f in fields:
            values = self.column(f, signed_bits=signed_bits).tolist()
            if f.bounded:
                for i in missing:  # only scopes with no non-null value
                    values[i] = None
            out[f.name] = values
        return out


def _table_columns(table: StatsTable) -> StatsColumns:
    ft = table.float_type
    counts, keys = table.counts, table.keys
    nan_count = counts[:, 2] + counts[:, 3]
    has_values = counts[:, 0] - counts[:, 1] - nan_count > 0
    has_bounds = has_values | (nan_count > 0)
    columns: dict[str, npt.NDArray[Any]] = {
        "physical_type": np.full(len(table), ft.physical_type, dtype=object),
        "num_values": counts[:, 0], "null_count": counts[:, 1], "nan_count": nan_count,
        "pos_nan_count": counts[:, 2], "neg_nan_count": counts[:, 3],
    }
    bits = {}
    # The IEEE_754_TOTAL_ORDER bounds: the non-NaN extremes, else the NaN ones.
    for name, value_key, nan_key in (("min", 0, 2), ("max", 1, 3)):
        key = np.where(has_values, keys[:, value_key], keys[:, nan_key])
        raw = np.where(has_bounds, ft.keys_to_bits(key), 0).astype(ft.bits_dtype)
        with np.errstate(invalid="ignore"):  # a signalling NaN quietens, as float() does
            columns[name] = np.where(has_bounds, raw.view(ft.float_dtype).astype(np.float64),
                                     np.nan)
        bits[f"{name}_bits"] = raw.astype(np.uint64)
    columns.update(bits)
    return StatsColumns({f.name: columns[f.name] for f in STATS_FIELDS}, has_bounds)


def stats_columns(stats: StatsTable | Sequence[ColumnStats]) -> StatsColumns:
    """The records of a StatsTable, or of ColumnStats (of any physical types), as columns.

    One numpy pass per physical type; no Python loop over the values or the
    rows of a table.

    >>> import numpy as np, nanstats
    >>> s = [nanstats.summary(np.array([1.5, -2.0])),
    ...      nanstats.summary(np.array([np.nan], np.float16))]
    >>> cols = stats_columns(s)
    >>> cols["physical_type"].tolist(), cols["min"].tolist(), cols["max_bits"].tolist()
    (['DOUBLE', 'FLOAT16'], [-2.0, nan], [4609434218613702656, 32256])
    """
    if isinstance(stats, StatsTable):
        return _table_columns(stats)
    n = len(stats)
    columns = {f.name: np.empty(n, dtype=f.dtype) for f in STATS_FIELDS}
    has_bounds = np.zeros(n, dtype=bool)
    types = np.array([s.physical_type for s in stats], dtype=object)
    for physical_type in BY_PHYSICAL_TYPE:
        rows = np.flatnonzero(types == physical_type)
        if rows.size == 0:
            continue
        part = _table_columns(stats_table([stats[i] for i in rows.tolist()]))
        for name, values in part.columns.items():
            columns[name][rows] = values
        has_bounds[rows] = part.has_bounds
    return StatsColumns(columns, has_bounds)
