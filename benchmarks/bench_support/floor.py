"""Floor probes for the AVX2 float16 targets: loops that do less than any exact kernel.

``floor_probe.c`` (beside this file) is compiled with the C compiler Python
was built with (``CC`` overrides it) into a temporary shared library and
called through ctypes; it is never part of the package.  Timed beside the
read ceiling and the kernel (``benchmarks/compare.py --targets``), the
probes say how far the machine lets any exact float16 kernel with an Arrow
bitmap go:

- :func:`read2`: the values and the bitmap read, a min and a max a vector;
- :func:`bitmap16`: each vector's validity bits widened to lanes, one blend,
  one min and one max, and per page the two horizontal reductions;

and one more read ceiling, :func:`read_or`: the OR-reduce of
``compositions.read_ceiling`` with AVX2 and software prefetch (numpy's does
not prefetch; the kernels do, and read faster than it), and its twin over
two streams, :func:`read_or2`: the values and a numpy bool mask (a byte a
row) read together, the floor of every width's kernel with a bool mask.

:func:`read2` and :func:`bitmap16` return the signed 16-bit min and max of
the valid rows (the bits read as int16), the two OR-reduces the OR of each
stream's bytes; ``benchmarks/tests/test_floor.py`` checks all four.

>>> import numpy as np
>>> v = np.array([3, -1, 7, 2], np.int16)
>>> bits = np.packbits([1, 1, 0, 1], bitorder="little")
>>> bitmap16(v, bits).tolist() if available() else [[-1, 3]]
[[-1, 3]]
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import subprocess
import sysconfig
import tempfile
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from nanstats import _kernels

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "floor_probe.c")


class FloorUnavailable(RuntimeError):
    """The probes cannot run here (no AVX2 level, or no compiler that builds them)."""


@functools.cache
def _library() -> ctypes.CDLL:
    if "avx2" not in _kernels.simd_levels():
        raise FloorUnavailable("the floor probes need the AVX2 level, which this CPU lacks")
    cc = os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc").split()[0]
    tmp = tempfile.mkdtemp(prefix="nanstats-floor-")
    try:
        lib_path = os.path.join(tmp, "floor_probe.so")
        run = subprocess.run([cc, "-O3", "-shared", "-fPIC", SOURCE, "-o", lib_path],
                             capture_output=True, text=True, check=False)
        if run.returncode != 0:
            raise FloorUnavailable(f"{cc} could not build {SOURCE}: {run.stderr.strip()[:400]}")
        lib = ctypes.CDLL(lib_path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ptr = ctypes.c_void_p
    lib.ns_floor_read2.argtypes = [ptr, ctypes.c_int64, ptr, ptr]
    lib.ns_floor_read2.restype = ctypes.c_int64
    lib.ns_floor_bitmap16.argtypes = [ptr, ctypes.c_int64, ptr, ctypes.c_int64, ctypes.c_int64,
                                      ptr]
    lib.ns_floor_bitmap16.restype = None
    lib.ns_floor_read_or.argtypes = [ptr, ctypes.c_int64]
    lib.ns_floor_read_or.restype = ctypes.c_uint64
    lib.ns_floor_read_or2.argtypes = [ptr, ctypes.c_int64, ctypes.c_int64, ptr, ptr]
    lib.ns_floor_read_or2.restype = None
    return lib


def available() -> bool:
    """Whether the probes run here (an AVX2 CPU and a compiler that builds them).

    >>> isinstance(available(), bool)
    True
    """
    try:
        _library()
    except FloorUnavailable:
        return False
    return True


def _as_int16(values: npt.NDArray[np.generic]) -> npt.NDArray[np.int16]:
    if values.dtype.itemsize != 2 or values.ndim != 1:
        raise ValueError(f"the probes take a 1-D array of 16-bit values, got {values.dtype}")
    return np.ascontiguousarray(values).view(np.int16)


def _check_bitmap(n: int, bitmap: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    bitmap = np.ascontiguousarray(bitmap, dtype=np.uint8)
    if bitmap.size * 8 < n:
        raise ValueError(f"a bitmap of {bitmap.size} bytes is too short for {n} rows")
    return bitmap


def read_or(values: npt.NDArray[np.generic]) -> int:
    """The OR of every byte of ``values`` (as :func:`compositions.read_ceiling` gives
    it), read with AVX2 and software prefetch: the read ceiling's faster candidate.

    >>> read_or(np.array([1.0, -2.0])) == 0xfff0000000000000 if available() else True
    True
    """
    data = np.ascontiguousarray(values).view(np.uint8)
    return int(_library().ns_floor_read_or(data.ctypes.data, data.size))


def read_or2(values: npt.NDArray[np.generic], mask: npt.NDArray[np.bool_]) -> tuple[int, int]:
    """The OR of every byte of ``values`` and of ``mask`` (one byte a row), read in
    one loop with AVX2 and software prefetch in both streams: what the read of a
    kernel with a numpy bool mask costs at least.

    >>> v, m = np.array([1.0, -2.0]), np.array([True, False])
    >>> read_or2(v, m) == (0xfff0000000000000, 1) if available() else True
    True
    """
    data = np.ascontiguousarray(values)
    if data.ndim != 1:
        raise ValueError(f"read_or2 takes a 1-D array of values, got shape {data.shape}")
    bytes_ = np.ascontiguousarray(mask).view(np.uint8)
    if bytes_.shape != data.shape:
        raise ValueError(f"a mask of {bytes_.size} bytes for {data.size} values")
    out = np.zeros(2, np.uint64)
    _library().ns_floor_read_or2(data.ctypes.data, data.size, data.itemsize, bytes_.ctypes.data,
                                 out.ctypes.data)
    return int(out[0]), int(out[1])


def ceiling_reads(values: npt.NDArray[np.generic]) -> list[Callable[[], int]]:
    """The read loops whose fastest is the read ceiling of ``values``: numpy's
    OR-reduce (``compositions.read_ceiling``), and :func:`read_or` where it runs.

    >>> len(ceiling_reads(np.zeros(4))) == (2 if available() else 1)
    True
    """
    from bench_support.compositions import read_ceiling

    reads: list[Callable[[], int]] = [lambda: read_ceiling(values, None)]
    if available():
        reads.append(lambda: read_or(values))
    return reads


def read2(values: npt.NDArray[np.generic], bitmap: npt.NDArray[np.uint8]) -> tuple[int, int]:
    """Min and max of every row (as int16), the bitmap read beside them and not used.

    >>> v = np.array([3, -1, 7, 2], np.int16)
    >>> read2(v, np.zeros(1, np.uint8)) if available() else (-1, 7)
    (-1, 7)
    """
    d = _as_int16(values)
    bits = _check_bitmap(len(d), bitmap)
    out = np.zeros(2, np.int16)
    _library().ns_floor_read2(d.ctypes.data, len(d), bits.ctypes.data, out.ctypes.data)
    return int(out[0]), int(out[1])


def bitmap16(values: npt.NDArray[np.generic], bitmap: npt.NDArray[np.uint8],
             page_rows: int = 0) -> npt.NDArray[np.int16]:
    """Per page (``page_rows`` rows; 0: one page), min and max of the valid rows as int16.

    A page of nulls gives (32767, -32768).

    >>> v = np.array([3, -1, 7, 2, 5], np.int16)
    >>> bits = np.packbits([1, 0, 1, 1, 0], bitorder="little")
    >>> bitmap16(v, bits, 2).tolist() if available() else [[3, 3], [2, 7], [32767, -32768]]
    [[3, 3], [2, 7], [32767, -32768]]
    """
    d = _as_int16(values)
    bits = _check_bitmap(len(d), bitmap)
    pages = max(1, -(-len(d) // page_rows)) if page_rows > 0 else 1
    out = np.zeros((pages, 2), np.int16)
    _library().ns_floor_bitmap16(d.ctypes.data, len(d), bits.ctypes.data, bits.size, page_rows,
                                 out.ctypes.data)
    return out
