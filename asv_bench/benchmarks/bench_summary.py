"""asv benchmarks of the kernel: dtype x size x NaN fraction x null fraction.

``time_`` and ``peakmem_`` track nanstats itself; ``track_`` records how
many times slower the best exact compositions (numpy, polars) are, and how
close nanstats gets to the read ceiling, measured in the same process.
"""

from __future__ import annotations

import numpy as np
from bench_support.compositions import numpy_summary, polars_summary
from bench_support.floor import ceiling_reads
from bench_support.timing import best, best_interleaved

import nanstats
from nanstats.core.stats import page_table

DTYPES = ["float16", "float32", "float64"]
SIZES = [10_000, 1_000_000, 10_000_000]
NAN_FRACS = [0.0, 0.001, 0.01, 0.5]  # 0.1%: few NaNs of both signs
NULL_FRACS = [0.0, 0.1, 0.99]  # 99%: a sparse column


def _column(dtype: str, size: int, nan_frac: float, null_frac: float):
    rng = np.random.default_rng(42)
    values = rng.normal(0, 100, size).astype(dtype)
    nan_rows = rng.random(size) < nan_frac
    values[nan_rows] = np.nan
    values[nan_rows & (rng.random(size) < 0.5)] = -np.nan
    valid = rng.random(size) >= null_frac if null_frac else None
    return values, valid


class Summary:
    params = [DTYPES, SIZES, NAN_FRACS, NULL_FRACS]
    param_names = ["dtype", "size", "nan_frac", "null_frac"]

    def setup(self, dtype, size, nan_frac, null_frac):
        self.values, self.valid = _column(dtype, size, nan_frac, null_frac)

    def time_summary(self, *_):
        nanstats.summary(self.values, self.valid)

    def time_page_stats(self, *_):
        page_table(self.values, self.valid, page_rows=20_000)

    def peakmem_summary(self, *_):
        nanstats.summary(self.values, self.valid)


class Ratios:
    """Ratios measured side by side (unit: times)."""

    params = [DTYPES, [10_000_000]]
    param_names = ["dtype", "size"]
    unit = "ratio"

    def setup(self, dtype, size):
        self.values, self.valid = _column(dtype, size, 0.01, 0.1)
        self.t_nanstats = best(lambda: nanstats.summary(self.values, self.valid))

    def track_numpy_over_nanstats(self, *_):
        return best(lambda: numpy_summary(self.values, self.valid)) / self.t_nanstats

    def track_polars_over_nanstats(self, *_):
        return best(lambda: polars_summary(self.values, self.valid)) / self.t_nanstats

    def track_fraction_of_read_ceiling(self, *_):
        return min(best(read) for read in ceiling_reads(self.values)) / self.t_nanstats

    track_numpy_over_nanstats.unit = "ratio"
    track_polars_over_nanstats.unit = "ratio"
    track_fraction_of_read_ceiling.unit = "ratio"


class KernelTargets:
    """The kernel's targets at 1e7 values, one thread (``make compare-targets``
    measures them at 1e8): fraction of the read ceiling with nulls as an Arrow
    bitmap, per-page cost, two threads over one (unit: times)."""

    params = [DTYPES]
    param_names = ["dtype"]
    unit = "ratio"

    def setup(self, dtype):
        import pyarrow as pa

        self.values, valid = _column(dtype, 10_000_000, 0.01, 0.1)
        self.arrow = pa.array(self.values, mask=~valid)
        self.before = nanstats.set_threads(1)

    def teardown(self, dtype):
        nanstats.set_threads(self.before)

    def _over_summary(self, other) -> float:
        """other's time over one summary of the Arrow array, timed in turn."""
        t_other, t_summary = best_interleaved(
            [other, lambda: nanstats.summary(self.arrow)])
        return t_other / t_summary

    def track_fraction_of_read_ceiling_arrow_nulls(self, _):
        return min(self._over_summary(read) for read in ceiling_reads(self.values))

    def track_pages_of_1000_over_summary(self, _):
        return self._over_summary(lambda: page_table(self.arrow, page_rows=1000))

    def track_pages_of_20000_over_summary(self, _):
        return self._over_summary(lambda: page_table(self.arrow, page_rows=20_000))

    def track_two_threads_speedup_forced_split(self, _):
        """Two threads over one at 1e7 values, split although the array is
        below PARALLEL_MIN_ROWS (to see whether the threshold could drop)."""
        from nanstats import threads

        def two_threads():
            nanstats.set_threads(2)
            threshold, threads.PARALLEL_MIN_ROWS = threads.PARALLEL_MIN_ROWS, len(self.values)
            try:
                nanstats.summary(self.arrow)
            finally:
                threads.PARALLEL_MIN_ROWS = threshold
                nanstats.set_threads(1)
        return 1 / self._over_summary(two_threads)

    track_fraction_of_read_ceiling_arrow_nulls.unit = "ratio"
    track_pages_of_1000_over_summary.unit = "ratio"
    track_pages_of_20000_over_summary.unit = "ratio"
    track_two_threads_speedup_forced_split.unit = "ratio"


class Faces:
    """The pandas and Arrow faces on the same 1e7 values (overhead over the raw call)."""

    params = [["float32", "float64"]]
    param_names = ["dtype"]

    def setup(self, dtype):
        import pandas as pd
        import pyarrow as pa

        self.values, valid = _column(dtype, 10_000_000, 0.01, 0.1)
        self.valid = valid
        self.series = pd.Series(self.values, copy=False)
        self.masked = pd.Series(pd.arrays.FloatingArray(self.values, ~valid))
        self.arrow = pa.array(self.values, mask=~valid)

    def time_ndarray(self, _):
        nanstats.summary(self.values)

    def time_series_accessor(self, _):
        self.series.nanstats.summary()

    def time_masked_series(self, _):
        self.masked.nanstats.summary()

    def time_arrow_array(self, _):
        nanstats.summary(self.arrow)

    def time_arrow_compute_udf(self, _):
        import pyarrow.compute as pc

        name = "nanstats_summary" if self.values.dtype == np.float64 else "nanstats_summary_float"
        pc.call_function(name, [self.arrow])
