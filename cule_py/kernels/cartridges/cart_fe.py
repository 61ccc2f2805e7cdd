"""Activision's FE (8K) as ALE models it: no bank register at all.

ALE does not follow the real cartridge's snooping of JSR/RTS stack traffic. Its cartridge sees
the CPU's full 16-bit address and picks the 4K half by address line A13: with A13 set ($F000-$FFFF,
where the reset vector is read) the first 4K of the image, with A13 clear ($D000-$DFFF) the second
(ALE's CartFE.cxx). Writes are ignored.
"""

import numpy as np
from numba.extending import register_jitable


@register_jitable(forceinline=True)
def read(rom, addr):
    return np.int32(rom[(addr & 0x0FFF) | ((~addr & 0x2000) >> 1)])
