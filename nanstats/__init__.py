"""nanstats: IEEE 754 total-order float statistics for Parquet.

>>> import numpy as np, nanstats
>>> nanstats.summary(np.array([1.0, np.nan, -0.0])).nan_count
1
"""

from nanstats.core.column_index import ColumnIndex, column_index
from nanstats.core.stats import ColumnStats, EncodedStatistics, page_stats, summary
from nanstats.errors import NanstatsError, UnsupportedDtypeError
from nanstats.threads import get_threads, set_threads

__version__ = "0.1.0.dev0"

import importlib.util as _importlib_util

if _importlib_util.find_spec("pyarrow") is not None:
    import nanstats.arrow

    nanstats.arrow.register_compute_functions()
if _importlib_util.find_spec("pandas") is not None:
    import nanstats.pandas  # noqa: F401  (registers the .nanstats accessors)

__all__ = [
    "ColumnIndex",
    "ColumnStats",
    "EncodedStatistics",
    "NanstatsError",
    "UnsupportedDtypeError",
    "column_index",
    "get_threads",
    "page_stats",
    "set_threads",
    "summary",
]
