"""The ``.nanstats`` accessor on pandas Series and DataFrames.

Registered when nanstats is imported (if pandas is installed).  Supported
dtypes: numpy float16/float32/float64 (no nulls: NaN is a NaN value),
pandas' masked ``Float32``/``Float64`` (``NA`` is a null; a NaN kept in the
data is a NaN), and ``ArrowDtype`` halffloat/float/double (Arrow nulls are
nulls).  Data is read in place.

pandas 3 turns NaN into NA in masked arrays unless the option
``future.distinguish_nan_and_na`` is on; nanstats reports what the array
holds: with the option off a NaN you wrote is counted as a null.

>>> import numpy as np, pandas as pd, nanstats
>>> s = pd.Series([1.5, None, -0.0], dtype="Float64")
>>> s.nanstats.summary()
ColumnStats(DOUBLE, num_values=3, null_count=1, nan_count=0 (+0/-0), min=-0.0, max=1.5)
>>> df = pd.DataFrame({"x": [1.0, np.nan], "name": ["a", "b"]})
>>> df.nanstats.summary()[["column", "physical_type", "nan_count", "min", "max"]]
  column physical_type  nan_count  min  max
0      x        DOUBLE          1  1.0  1.0

``df.nanstats.summary(by=...)`` is the groupby path (pandas has no accessors
on GroupBy objects): one row per group and column, like
:func:`nanstats.spark.summary`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nanstats.core.column_index import ColumnIndex, column_index
from nanstats.core.inputs import (
    PANDAS_SUPPORTED,
    KernelInput,
    from_numpy,
    from_pandas,
    is_supported_pandas_dtype,
)
from nanstats.core.records import COLUMN, STATS_FIELDS, stats_columns
from nanstats.core.rules import ColumnOrderName, TypeOrderPolicy
from nanstats.core.stats import ColumnStats, EncodedStatistics, page_stats, page_table, summary

_SUMMARY_FIELDS = (COLUMN, *STATS_FIELDS)
#: Columns of DataFrame.nanstats.summary() after the group columns, in order:
#: those of :func:`nanstats.spark.summary` (bits as unsigned ``UInt64``).
SUMMARY_COLUMNS = [f.name for f in _SUMMARY_FIELDS]
#: pandas dtypes of the summary's columns, by field kind.
_DTYPES = {"label": object, "physical_type": object, "count": "int64", "value": "float64",
           "bits": "UInt64"}


def kernel_input(series: pd.Series, *, nan_as_null: bool = False) -> KernelInput:
    """The kernel input of a float Series; with ``nan_as_null``, as pandas writes it to Parquet.

    ``DataFrame.to_parquet`` (pyarrow) turns the NaNs of a numpy-backed float
    column into nulls; masked ``Float32``/``Float64`` and ``ArrowDtype``
    columns are written as they are, NaN kept.  ``nan_as_null=True`` reads a
    numpy-backed Series the same way.

    >>> import numpy as np, pandas as pd
    >>> s = pd.Series([1.0, np.nan])
    >>> kernel_input(s).validity_kind == kernel_input(s, nan_as_null=True).validity_kind
    False
    """
    if nan_as_null and isinstance(series.dtype, np.dtype):
        values = series.to_numpy(copy=False)
        return from_numpy(values, null_mask=np.isnan(values))
    return from_pandas(series)


@pd.api.extensions.register_series_accessor("nanstats")
class SeriesAccessor:
    """``Series.nanstats``: statistics of a float Series.

    >>> import pandas as pd
    >>> pd.Series([3.0, float("nan")]).nanstats.statistics("type_order").min_value is None
    True
    >>> hasattr(pd.Series(["a"]), "nanstats")
    False
    """

    def __init__(self, series: pd.Series) -> None:
        # O(1) and stateless but for the Series: pandas 3 rebuilds the
        # accessor on every attribute access.
        if not is_supported_pandas_dtype(series.dtype):
            raise AttributeError(
                f"the .nanstats accessor needs a float Series ({PANDAS_SUPPORTED}); "
                f"this one is {series.dtype}"
            )
        self._series = series

    def _input(self) -> KernelInput:
        return from_pandas(self._series)

    def summary(self, *, nan_as_null: bool = False) -> ColumnStats:
        """Statistics of the whole Series (see :func:`nanstats.summary`).

        ``nan_as_null=True`` gives the statistics of the column that
        ``DataFrame.to_parquet`` writes: pyarrow stores the NaNs of a
        numpy-backed float column as nulls.

        >>> import numpy as np, pandas as pd
        >>> s = pd.Series([2.0, np.nan])
        >>> s.nanstats.summary().nan_count, s.nanstats.summary(nan_as_null=True).null_count
        (1, 1)
        """
        return summary(kernel_input(self._series, nan_as_null=nan_as_null))

    def page_stats(
        self, *, page_rows: int | None = None, page_starts: Any = None
    ) -> list[ColumnStats]:
        """Statistics per page of rows (see :func:`nanstats.page_stats`)."""
        return page_stats(self._input(), page_rows=page_rows, page_starts=page_starts)

    def column_index(
        self,
        *,
        page_rows: int | None = None,
        page_starts: Any = None,
        order: ColumnOrderName = "ieee754",
        policy: TypeOrderPolicy = "safe",
    ) -> ColumnIndex | None:
        """The Parquet ColumnIndex of the Series split into pages."""
        return column_index(self._input(), page_rows=page_rows, page_starts=page_starts,
                            order=order, policy=policy)

    def statistics(
        self, order: ColumnOrderName = "ieee754", *, policy: TypeOrderPolicy = "safe"
    ) -> EncodedStatistics:
        """The Parquet Statistics a writer emits for the Series."""
        return self.summary().statistics(order, policy=policy)


def _describe(frame: pd.DataFrame, columns: Sequence[Hashable] | None,
              by: list[Hashable]) -> list[Hashable]:
    """The float columns to describe: ``columns``, checked, or every float one not in ``by``."""
    names = list(frame.columns)
    for key in by:
        if key not in names:
            raise ValueError(f"no group column {key!r} in the DataFrame "
                             f"(it has {', '.join(map(str, names))})")
    if columns is None:
        return [n for n, col in frame.items()
                if is_supported_pandas_dtype(col.dtype) and n not in by]
    for name in columns:
        if name not in names:
            raise ValueError(f"no column {name!r} in the DataFrame "
                             f"(it has {', '.join(map(str, names))})")
        if not is_supported_pandas_dtype(frame[name].dtype):
            raise TypeError(f"column {name!r} is {frame[name].dtype}, not a float dtype "
                            f"({PANDAS_SUPPORTED})")
    return list(columns)


@pd.api.extensions.register_dataframe_accessor("nanstats")
class DataFrameAccessor:
    """``DataFrame.nanstats``: statistics of the float columns, per group.

    >>> import numpy as np, pandas as pd
    >>> df = pd.DataFrame({"t": [1.0, np.nan], "h": np.array([-0.0, 2.0], np.float16)})
    >>> df.nanstats.summary()[["column", "nan_count", "min", "max"]]
      column  nan_count  min  max
    0      t          1  1.0  1.0
    1      h          0 -0.0  2.0
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    def summary(self, columns: Sequence[Hashable] | None = None,
                by: Hashable | Sequence[Hashable] | None = None, *,
                nan_as_null: bool = False) -> pd.DataFrame:
        """One row per float column (per group with ``by``), as :func:`nanstats.spark.summary`.

        Parameters
        ----------
        columns : the float columns to describe (default: every float column
            not in ``by``; others are skipped).
        by : group column(s), or None for the whole frame.  Groups are sorted
            by key; a null or NaN key is a group of its own (``dropna=False``).
        nan_as_null : read numpy-backed float columns as ``DataFrame.to_parquet``
            writes them (NaN becomes null), to see the statistics the file will hold.

        Returns a DataFrame with the group columns, ``column``,
        ``physical_type``, ``num_values``, ``null_count``, ``nan_count``,
        ``pos_nan_count``, ``neg_nan_count`` (int64), ``min``, ``max``
        (float64: exact for every float type; NaN extremes when every non-null
        value is NaN, NaN when every value is null) and ``min_bits``,
        ``max_bits`` (the bounds bit for bit in the column's own width, as
        ``UInt64``; ``<NA>`` when every value is null).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"k": ["a", "b", "a"], "x": [1.0, float("nan"), -0.0]})
        >>> df.nanstats.summary(by="k")[["k", "column", "nan_count", "min", "max"]]
           k column  nan_count  min  max
        0  a      x          0 -0.0  1.0
        1  b      x          1  NaN  NaN
        >>> df.nanstats.summary(nan_as_null=True)[["null_count", "nan_count"]].iloc[0].tolist()
        [1, 0]
        >>> hex(df.nanstats.summary()["min_bits"][0])
        '0x8000000000000000'
        """
        frame = self._frame
        by_list: list[Hashable] = (
            [] if by is None else list(by) if isinstance(by, list | tuple) else [by])
        names = _describe(frame, columns, by_list)
        if by_list:
            grouped = frame.groupby(by_list, sort=True, dropna=False, observed=True)
            codes = grouped.ngroup().to_numpy()
            keys = grouped.size().index.to_frame(index=False)
            # Rows sorted by group: each group is one run, described as a page.
            order = np.argsort(codes, kind="stable")
            run = codes[order]
            starts = np.flatnonzero(np.r_[True, run[1:] != run[:-1]]) if len(run) else \
                np.zeros(0, dtype=np.int64)
        else:
            keys, order, starts = pd.DataFrame(index=range(1)), None, np.zeros(1, np.int64)
        parts = []
        for name in names if len(starts) else []:  # no rows, no group
            col = frame[name] if order is None else frame[name].take(order)
            stats = page_table(kernel_input(col, nan_as_null=nan_as_null), page_starts=starts)
            label = np.empty(len(stats), dtype=object)
            label.fill(name)  # a name may be a tuple: one object per row, not unpacked
            records = stats_columns(stats).with_columns(column=label)
            lists = records.to_pylists(_SUMMARY_FIELDS)
            part = pd.DataFrame({f.name: pd.array(lists[f.name], dtype=_DTYPES[f.kind])
                                 for f in _SUMMARY_FIELDS})
            part.insert(0, "_group", np.arange(len(part)))
            parts.append(part)
        if not parts:
            empty: dict[Hashable, pd.Series] = {k: pd.Series(dtype=frame[k].dtype)
                                                 for k in by_list}
            empty.update({f.name: pd.Series(dtype=_DTYPES[f.kind]) for f in _SUMMARY_FIELDS})
            return pd.DataFrame(empty)
        out = pd.concat(parts, ignore_index=True).sort_values("_group", kind="stable")
        group_keys = keys.iloc[out["_group"].to_numpy()].reset_index(drop=True)
        out = out.drop(columns="_group").reset_index(drop=True)
        return pd.concat([group_keys, out], axis=1) if by_list else out
