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
>>> df.nanstats.summary()[["physical_type", "nan_count", "min", "max"]]
  physical_type  nan_count  min  max
x        DOUBLE          1  1.0  1.0
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from nanstats.core.column_index import ColumnIndex, column_index
from nanstats.core.inputs import (
    PANDAS_SUPPORTED,
    KernelInput,
    from_pandas,
    is_supported_pandas_dtype,
)
from nanstats.core.records import select, stats_columns
from nanstats.core.rules import ColumnOrderName, TypeOrderPolicy
from nanstats.core.stats import ColumnStats, EncodedStatistics, page_stats, summary

_SUMMARY_FIELDS = select("physical_type", "count", "value")
#: Columns of DataFrame.nanstats.summary(), in order.
SUMMARY_COLUMNS = [f.name for f in _SUMMARY_FIELDS]


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

    def summary(self) -> ColumnStats:
        """Statistics of the whole Series (see :func:`nanstats.summary`)."""
        return summary(self._input())

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


@pd.api.extensions.register_dataframe_accessor("nanstats")
class DataFrameAccessor:
    """``DataFrame.nanstats``: statistics of every float column.

    >>> import numpy as np, pandas as pd
    >>> df = pd.DataFrame({"t": [1.0, np.nan], "h": np.array([-0.0, 2.0], np.float16)})
    >>> df.nanstats.summary()[["nan_count", "min", "max"]]
       nan_count  min  max
    t          1  1.0  1.0
    h          0 -0.0  2.0
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    def summary(self) -> pd.DataFrame:
        """One row per float column (others are skipped), indexed by column name.

        >>> import pandas as pd
        >>> pd.DataFrame({"a": [1.0], "b": [2]}).nanstats.summary().index.tolist()
        ['a']
        """
        floats = [(name, col) for name, col in self._frame.items()
                  if is_supported_pandas_dtype(col.dtype)]
        columns = stats_columns([summary(from_pandas(col)) for _, col in floats])
        # Rows of Python objects, as pandas infers them: a bound column is
        # float64 with NaN for a scope with no bound, object when no scope has one.
        rows = list(zip(*columns.to_pylists(_SUMMARY_FIELDS).values(), strict=True))
        out = pd.DataFrame(rows, index=pd.Index([name for name, _ in floats], dtype=object),
                           columns=SUMMARY_COLUMNS)
        return out.astype({f.name: "int64" for f in _SUMMARY_FIELDS if f.kind == "count"})
