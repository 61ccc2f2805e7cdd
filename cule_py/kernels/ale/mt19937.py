"""The Mersenne Twister MT19937 (32-bit), one generator per console, as device code.

ALE's environment RNG (the one behind sticky actions and Adventure's Select presses) is a
`std::mt19937` seeded with the integer setting `random_seed`; reproducing ALE's draws exactly needs
the same generator with the same seeding, per console. The algorithm is the published one
(Matsumoto & Nishimura 1998, with the 2002 initialisation `init_genrand`).

State: `mt` is (consoles, MT_COLUMNS) int64; columns 0..623 hold the 624 state words, column 624 the
index of the next word (624: a twist is due). int64 holds the unsigned 32-bit words without numba's
unsigned/signed promotion traps; everything is masked to 32 bits.
"""

import numpy as np
from numba import njit
from numba.extending import register_jitable

from ..._jit_cache import CACHE_ENABLED

MT_WORDS = 624
MT_COLUMNS = MT_WORDS + 1
_SHIFT = 397
_MATRIX_A = 0x9908B0DF
_UPPER = 0x80000000
_LOWER = 0x7FFFFFFF
_WORD = 0xFFFFFFFF


@register_jitable
def mt_seed(mt, env, seed):
    """init_genrand(seed): the state std::mt19937(seed) starts from."""
    word = np.int64(seed) & _WORD
    mt[env, 0] = word
    for i in range(1, MT_WORDS):
        word = (np.int64(1812433253) * (word ^ (word >> 30)) + i) & _WORD
        mt[env, i] = word
    mt[env, MT_WORDS] = MT_WORDS


@register_jitable
def _twist(mt, env):
    for i in range(MT_WORDS):
        y = (mt[env, i] & _UPPER) | (mt[env, (i + 1) % MT_WORDS] & _LOWER)
        value = mt[env, (i + _SHIFT) % MT_WORDS] ^ (y >> 1)
        if y & 1:
            value ^= _MATRIX_A
        mt[env, i] = value
    mt[env, MT_WORDS] = 0


@register_jitable
def mt_next(mt, env):
    """The next 32-bit output (as int64 in 0..2**32-1)."""
    if mt[env, MT_WORDS] >= MT_WORDS:
        _twist(mt, env)
    i = mt[env, MT_WORDS]
    mt[env, MT_WORDS] = i + 1
    return _temper(mt[env, i])


#: How far ahead `mt_peek` can see across a twist: twisted word j reads old words j, j + 1 and
#: j + 397, all still untwisted while j + 397 < 624.
MT_PEEK_LIMIT = MT_WORDS - _SHIFT


@register_jitable
def _temper(y):
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & _WORD


@register_jitable
def mt_peek(mt, env, ahead):
    """The output `ahead` draws after the next one (0: what mt_next would return now), without
    drawing; -1 where that lies further than MT_PEEK_LIMIT words into the next twist."""
    i = mt[env, MT_WORDS] + ahead
    if i < MT_WORDS:
        return _temper(mt[env, i])
    j = i - MT_WORDS
    if j >= MT_PEEK_LIMIT:
        return np.int64(-1)
    y = (mt[env, j] & _UPPER) | (mt[env, j + 1] & _LOWER)
    value = mt[env, j + _SHIFT] ^ (y >> 1)
    if y & 1:
        value ^= _MATRIX_A
    return _temper(value)


@njit(cache=CACHE_ENABLED)
def seed_generators(mt, seeds, mask):
    for env in range(mt.shape[0]):
        if mask[env]:
            mt_seed(mt, env, seeds[env])


@njit(cache=CACHE_ENABLED)
def draw(mt, mask, out):
    """One output per masked console into `out` (others untouched)."""
    for env in range(mt.shape[0]):
        if mask[env]:
            out[env] = mt_next(mt, env)
