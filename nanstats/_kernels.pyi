"""Type stub for the compiled kernels (see _kernels.pyx)."""

import numpy as np
import numpy.typing as npt

VALIDITY_NONE: int
VALIDITY_BYTES: int
VALIDITY_BITMAP: int
VALIDITY_NULL_BYTES: int

def scan(
    data: npt.NDArray[np.uint16] | npt.NDArray[np.uint32] | npt.NDArray[np.uint64],
    validity_kind: int,
    validity: npt.NDArray[np.uint8],
    bit_offset: int,
    page_starts: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    keys: npt.NDArray[np.int64],
) -> None: ...

SIMD_LEVELS: tuple[str, ...]

def built_levels() -> tuple[str, ...]: ...
def simd_levels() -> tuple[str, ...]: ...
def simd_level() -> str: ...
def set_simd_level(name: str) -> None: ...
def far16_bytes(value: int | None = None) -> int: ...
