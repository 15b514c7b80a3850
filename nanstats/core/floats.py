"""The three IEEE 754 formats nanstats handles: every fact about them lives here.

Widths, masks, the totalOrder key (for one bit pattern and vectorised over
numpy arrays), PLAIN bytes, and the names Parquet, Arrow and the Arrow C Data
Interface give each format.  Every other module asks this one.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

PhysicalType = Literal["FLOAT16", "FLOAT", "DOUBLE"]


@dataclass(frozen=True)
class FloatType:
    """One IEEE 754 binary format as Parquet stores it.

    Examples
    --------
    >>> FLOAT.width, FLOAT.float_dtype, FLOAT.is_nan_bits(0x7FC00000)
    (32, dtype('float32'), True)
    """

    physical_type: PhysicalType
    width: int  #: bits per value
    float_dtype: np.dtype[np.floating]
    bits_dtype: np.dtype[np.unsignedinteger]
    arrow_name: str  #: the Arrow type's name (``str(pyarrow type)``)
    c_format: bytes  #: the Arrow C Data Interface format string

    @property
    def nbytes(self) -> int:
        """Bytes per value."""
        return self.width // 8

    @property
    def sign_mask(self) -> int:
        """The sign bit."""
        return 1 << (self.width - 1)

    @property
    def abs_mask(self) -> int:
        """Every bit but the sign."""
        return self.sign_mask - 1

    @property
    def inf_bits(self) -> int:
        """Bits of +inf: exponent all ones, mantissa zero."""
        mantissa = {16: 10, 32: 23, 64: 52}[self.width]
        return self.abs_mask ^ ((1 << mantissa) - 1)

    def is_nan_bits(self, bits: int) -> bool:
        """Whether a bit pattern is a NaN (of either sign, any payload)."""
        return (bits & self.abs_mask) > self.inf_bits

    def key(self, bits: int) -> int:
        """The totalOrder key of one bit pattern: keys compare as signed integers
        exactly as the values compare in IEEE 754 totalOrder.

        >>> DOUBLE.key(0x8000000000000000) < DOUBLE.key(0) < DOUBLE.key(0x7FF8000000000000)
        True
        """
        signed = bits - (1 << self.width) if bits & self.sign_mask else bits
        return signed ^ (self.abs_mask if signed < 0 else 0)

    def key_to_bits(self, key: int) -> int:
        """The bit pattern of one totalOrder key (the inverse of :meth:`key`).

        >>> hex(FLOAT16.key_to_bits(FLOAT16.key(0xFE00))), DOUBLE.key_to_bits(DOUBLE.key(0))
        ('0xfe00', 0)
        """
        return (key ^ self.abs_mask if key < 0 else key) & ((1 << self.width) - 1)

    def keys_to_bits(self, keys: npt.NDArray[np.int64]) -> npt.NDArray[np.unsignedinteger]:
        """Bit patterns from sign-extended int64 totalOrder keys (vectorised)."""
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        flipped = keys ^ ((keys >> 63) & np.int64(self.abs_mask))
        # Two's complement view, then keep the low `width` bits.
        return flipped.view(np.uint64).astype(self.bits_dtype)

    def bits_to_keys(self, bits: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Sign-extended int64 totalOrder keys from bit patterns (vectorised)."""
        signed = np.asarray(bits, dtype=self.bits_dtype).view(f"i{self.nbytes}").astype(np.int64)
        return signed ^ ((signed >> 63) & np.int64(self.abs_mask))

    def is_nan_array(self, bits: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Which bit patterns are NaN (vectorised :meth:`is_nan_bits`)."""
        b = np.asarray(bits, dtype=self.bits_dtype)
        return np.asarray((b & self.bits_dtype.type(self.abs_mask))
                          > self.bits_dtype.type(self.inf_bits))

    def bits_to_float(self, bits: int) -> float:
        """A Python float holding the value of a bit pattern.

        NaN payloads may not survive the conversion; the bits are the exact
        record.
        """
        return float(np.array(bits, dtype=self.bits_dtype).view(self.float_dtype))

    def format_bits(self, bits: int) -> str:
        """A readable value: the float, or a signed NaN with its bits.

        >>> DOUBLE.format_bits(0xFFF8000000000000), DOUBLE.format_bits(0x8000000000000000)
        ('-nan(0xfff8000000000000)', '-0.0')
        """
        if self.is_nan_bits(bits):
            sign = "-" if bits & self.sign_mask else "+"
            return f"{sign}nan(0x{bits:0{self.nbytes * 2}x})"
        return repr(self.bits_to_float(bits))

    def bits_to_plain(self, bits: npt.ArrayLike) -> list[bytes]:
        """PLAIN encoding (little-endian, no length prefix) of each pattern."""
        le = np.asarray(bits, dtype=self.bits_dtype).astype(self.bits_dtype.newbyteorder("<"))
        return list(le.view(np.dtype((np.void, self.nbytes))).tolist())

    def plain_to_bits(self, plain: bytes) -> int:
        """Bit pattern of one PLAIN-encoded value."""
        if len(plain) != self.nbytes:
            raise ValueError(
                f"a PLAIN {self.physical_type} value has {self.nbytes} bytes, got {len(plain)}"
            )
        return int.from_bytes(plain, "little")


FLOAT16 = FloatType("FLOAT16", 16, np.dtype(np.float16), np.dtype(np.uint16), "halffloat", b"e")
FLOAT = FloatType("FLOAT", 32, np.dtype(np.float32), np.dtype(np.uint32), "float", b"f")
DOUBLE = FloatType("DOUBLE", 64, np.dtype(np.float64), np.dtype(np.uint64), "double", b"g")

FLOAT_TYPES: tuple[FloatType, ...] = (FLOAT16, FLOAT, DOUBLE)
BY_PHYSICAL_TYPE: dict[str, FloatType] = {t.physical_type: t for t in FLOAT_TYPES}
BY_ITEMSIZE: dict[int, FloatType] = {t.nbytes: t for t in FLOAT_TYPES}
#: By Arrow type name: ``BY_ARROW_NAME[str(pa.float32())] is FLOAT``.
BY_ARROW_NAME: dict[str, FloatType] = {t.arrow_name: t for t in FLOAT_TYPES}
#: By Arrow C Data Interface format string.
BY_C_FORMAT: dict[bytes, FloatType] = {t.c_format: t for t in FLOAT_TYPES}


def float_key(value: float) -> int:
    """The totalOrder key of a Python float (a float64), as a signed integer.

    >>> float_key(-0.0) < float_key(0.0) < float_key(float("inf")) < float_key(float("nan"))
    True
    """
    return DOUBLE.key(struct.unpack("<Q", struct.pack("<d", value))[0])


def nan_sign(value: float) -> int:
    """-1 for a negative NaN, +1 for a positive one (``value`` must be NaN).

    >>> nan_sign(float("nan")), nan_sign(-float("nan"))
    (1, -1)
    """
    return -1 if math.copysign(1.0, value) < 0 else 1
