"""Type stub for the compiled page-header walker (see _pagewalk.pyx)."""

from typing import Any

import numpy as np
import numpy.typing as npt

_I64 = npt.NDArray[np.int64]

ABSENT: int
COLUMNS: tuple[str, ...]
WALKED: int
DECODE_ERROR: int
BAD_SIZES: int
BAD_V2_COUNTS: int
BAD_V2_LEVELS: int
UNKNOWN_TYPE: int
NO_SUB_HEADER: int
BAD_NUM_VALUES: int
PAST_CHUNK: int
LATE_DICTIONARY: int
REPEATED_FIELD: int

def reason_text(code: int, n: int, m: int) -> str: ...

class Walk:
    @property
    def count(self) -> int: ...
    def walk(self, window: Any, base: int, pos: int,
             end: int) -> tuple[int, int, str | None, int]: ...
    def columns(self) -> dict[str, _I64]: ...
    def headers(self) -> bytes: ...

def rewrite_headers(headers: Any, at: _I64, length: _I64, stats_lo: _I64, stats_hi: _I64,
                    stats_prev: _I64, next_byte: _I64, stats_fid: _I64, stats: Any,
                    stats_at: _I64) -> tuple[bytes, _I64]: ...
def interleave(headers: Any, header_at: _I64, source: Any, source_base: int,
               payload_offset: _I64, payload_length: _I64, lo: int, hi: int) -> bytes: ...
def encode_float_statistics(null_count: _I64, nan_count: _I64, present: Any, mins: Any,
                            maxs: Any) -> tuple[bytes, _I64]: ...
def encode_page_locations(offset: _I64, size: _I64, first_row: _I64) -> bytes | None: ...
