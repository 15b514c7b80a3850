"""asv benchmarks of upgrade against pyarrow.parquet.read_table of the same columns.

The file is ``benchmarks/upgrade_speed.py``'s (8 float64 columns with NaNs
of both signs and nulls, pyarrow's defaults), at 128 MB so that a run stays
short; ``make upgrade-speed`` (that script) measures the issue's 1 GB case.

``Upgrade.time_upgrade`` times the whole rewrite into a new file (memory-mapped
source, or pread with ``memory_map=False``), fsync and rename included;
``Upgrade.track_ratio_to_read_table`` the issue's measure (target <= 1.5),
both sides timed in turn.  ``Reference.time_read_table`` times the decoding
any reader pays, ``Reference.track_write_floor_ratio`` what writing and
fsyncing as many bytes costs alone, in ``read_table`` units.
"""

from __future__ import annotations

import os
import sys
import tempfile

import pyarrow.parquet as papq
from bench_support.timing import best_interleaved

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))

MB = 128
NAMES = [f"x{c}" for c in range(8)]


class _SourceFile:
    """The 128 MB source written once (asv's setup_cache), warm in the page cache."""

    def setup_cache(self):
        from upgrade_speed import write_file

        folder = tempfile.mkdtemp(prefix="nanstats-asv-upgrade-")
        src = os.path.join(folder, "src.parquet")
        write_file(src, MB)
        os.sync()
        return src

    def setup(self, src, *params):
        self.dst = src + f".{os.getpid()}.out.parquet"
        self._clean()
        papq.read_table(src, columns=NAMES)

    def teardown(self, src, *params):
        self._clean()

    def _clean(self) -> None:
        """No dst (freeing an old one's blocks is not the upgrade's work), disk synced."""
        if os.path.exists(self.dst):
            os.unlink(self.dst)
        os.sync()

    def _read_table(self, src) -> None:
        papq.read_table(src, columns=NAMES)


class Upgrade(_SourceFile):
    params = [[True, False]]
    param_names = ["memory_map"]
    timeout = 300
    # One call per sample, after setup removed dst: every timed upgrade
    # writes a new file.
    number = 1
    repeat = (3, 5, 60.0)
    warmup_time = 0

    def time_upgrade(self, src, memory_map):
        from nanstats.parquet.upgrading import upgrade

        upgrade(src, self.dst, memory_map=memory_map)

    def track_ratio_to_read_table(self, src, memory_map):
        from nanstats.parquet.upgrading import upgrade

        up, read = best_interleaved([lambda: upgrade(src, self.dst, memory_map=memory_map),
                                     lambda: self._read_table(src)], 3, self._clean)
        return up / read

    track_ratio_to_read_table.unit = "x read_table"


class Reference(_SourceFile):
    timeout = 300

    def time_read_table(self, src):
        self._read_table(src)

    def track_write_floor_ratio(self, src):
        from upgrade_speed import write_and_fsync

        size, block = os.path.getsize(src), os.urandom(1 << 22)
        floor, read = best_interleaved([lambda: write_and_fsync(self.dst, size, block),
                                        lambda: self._read_table(src)], 3, self._clean)
        return floor / read

    track_write_floor_ratio.unit = "x read_table"
