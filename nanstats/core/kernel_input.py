"""What one kernel call reads: bit patterns, a validity and its kind.

The contract between the core and the compiled kernels; the converters in
:mod:`nanstats.core.inputs` and :mod:`nanstats.core.arrow_c` produce it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from nanstats import _kernels
from nanstats.core.floats import FloatType

#: The validity of an input without nulls.
NO_VALIDITY = np.zeros(0, dtype=np.uint8)


@dataclass(frozen=True)
class KernelInput:
    """What one kernel call reads: bits, validity and its kind.

    ``validity_kind`` is one of the kernel's ``VALIDITY_*`` constants: none,
    bytes (1 = valid), null bytes (1 = null) or an Arrow bitmap starting at
    ``bit_offset``.

    >>> import numpy as np
    >>> from nanstats.core.floats import DOUBLE
    >>> inp = KernelInput(DOUBLE, np.zeros(3, np.uint64), _kernels.VALIDITY_NONE, NO_VALIDITY)
    >>> len(inp), inp.slice(1, 3).bits.shape
    (3, (2,))
    """

    float_type: FloatType
    bits: npt.NDArray[np.unsignedinteger]
    validity_kind: int
    validity: npt.NDArray[np.uint8]
    bit_offset: int = 0

    def __len__(self) -> int:
        return int(self.bits.shape[0])

    def slice(self, start: int, stop: int) -> KernelInput:
        """Rows ``[start, stop)`` as another input, without copying.

        >>> import numpy as np
        >>> from nanstats.core.inputs import from_numpy
        >>> inp = from_numpy(np.arange(10.0), np.arange(10) % 3 > 0)
        >>> part = inp.slice(4, 9)
        >>> len(part), part.validity.tolist()
        (5, [1, 1, 0, 1, 1])
        """
        if not 0 <= start <= stop <= len(self):
            raise ValueError(f"rows [{start}, {stop}) are not within the {len(self)} rows")
        validity, bit_offset = self.validity, self.bit_offset
        if self.validity_kind == _kernels.VALIDITY_BITMAP:
            bit_offset += start
        elif self.validity_kind != _kernels.VALIDITY_NONE:
            validity = validity[start:stop]
        return KernelInput(self.float_type, self.bits[start:stop], self.validity_kind,
                           validity, bit_offset)

    @classmethod
    def empty(cls, float_type: FloatType) -> KernelInput:
        """No rows of a float type.

        >>> from nanstats.core.floats import FLOAT
        >>> len(KernelInput.empty(FLOAT))
        0
        """
        return cls(float_type, np.zeros(0, float_type.bits_dtype), _kernels.VALIDITY_NONE,
                   NO_VALIDITY)
