"""``random.Random``'s Python-level draws, written again so that mypyc compiles them (issue #10).

``Random(str)``, ``randint``, ``choice``, ``sample`` and ``shuffle`` are pure Python in the
standard library's random.py; called from the compiled generator they were interpreted frames
in the middle of every case. The functions here follow random.py's algorithms step for step on
top of the generator's C methods (``getrandbits`` and the C-level ``seed``), so they consume the
same words of the Mersenne Twister stream and return the same values: a suite is byte-identical
whichever is used (tests/constraints/test_draws.py compares them, results and state after).

The algorithms were read in CPython 3.10-3.13's random.py and are the same in all four for the
calls made here (int arguments, sequences, the default string seeding). On any other version,
or for a generator that is not exactly ``random.Random`` (a subclass may override its draws),
every function calls the generator's own method instead: never a different stream.
"""

from __future__ import annotations

import hashlib
import importlib
import random
import sys
from _random import Random as _CoreRandom
from collections.abc import Callable, Sequence
from math import ceil, log
from typing import Any, Final, TypeVar

T = TypeVar("T")

# CPython versions whose random.py was read and matched (seed version 2, _randbelow_with_getrandbits,
# randrange's int path, choice, sample, shuffle); elsewhere the methods of random.Random are used
VERIFIED: Final = ((3, 10), (3, 11), (3, 12), (3, 13))
EXACT: Final = sys.version_info[:2] in VERIFIED


_RANDOM: Final = random.Random


def _sha512() -> Callable[[bytes], Any]:
    """The builtin SHA-512 random.py itself prefers (no OpenSSL context per call; same digest)."""
    for module in ("_sha512", "_sha2"):  # 3.10-3.11, 3.12+
        try:
            return importlib.import_module(module).sha512
        except (ImportError, AttributeError):
            pass
    return hashlib.sha512


SHA512: Final = _sha512()


def _own(rng: random.Random) -> bool:
    """Whether our copies of the algorithms stand for this generator's methods."""
    return EXACT and type(rng) is _RANDOM


def seeded(text: str) -> random.Random:
    """A new generator in the state ``random.Random(text)`` starts in.

    random.py (seed version 2) turns a string into the integer of its UTF-8 bytes followed by
    their SHA-512 digest and gives that to the C-level seed; ``__init__`` also clears the
    cached Gaussian. Done here without the two interpreted frames (``__init__``, ``seed``)."""
    if not EXACT:
        return random.Random(text)
    rng = random.Random.__new__(random.Random)
    data = text.encode()
    _CoreRandom.seed(rng, int.from_bytes(data + SHA512(data).digest(), "big"))
    setattr(rng, "gauss_next", None)  # noqa: B010 - not in the stubs; Random.__init__ sets it
    return rng


def randbelow(rng: random.Random, n: int) -> int:
    """random.py's ``_randbelow_with_getrandbits``: an int in [0, n) for n > 0, by rejection
    on ``n.bit_length()`` random bits (n = 1 still draws one word)."""
    getrandbits = rng.getrandbits
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def randrange(rng: random.Random, start: int, stop: int | None = None, step: int = 1) -> int:
    """``rng.randrange(start, stop, step)`` for int arguments, with its checks and errors.
    (random.py also takes integral floats on 3.10-3.11, with a DeprecationWarning; these
    arguments are typed int.)"""
    if not _own(rng):
        return rng.randrange(start, stop, step)
    if stop is None:
        if step != 1:  # random.py tests the default object's identity; for ints it is the same
            raise TypeError("Missing a non-None stop argument")
        if start > 0:
            return randbelow(rng, start)
        raise ValueError("empty range for randrange()")
    width = stop - start
    if step == 1:
        if width > 0:
            return start + randbelow(rng, width)
        raise ValueError(f"empty range for randrange() ({start}, {stop}, {width})")
    if step > 0:
        n = (width + step - 1) // step
    elif step < 0:
        n = (width + step + 1) // step
    else:
        raise ValueError("zero step for randrange()")
    if n <= 0:
        raise ValueError("empty range for randrange()")
    return start + step * randbelow(rng, n)


def randint(rng: random.Random, a: int, b: int) -> int:
    """``rng.randint(a, b)``: ``randrange(a, b + 1)``."""
    if not _own(rng):
        return rng.randint(a, b)
    if b + 1 - a > 0:  # randrange's unit-step path, without its argument handling
        return a + randbelow(rng, b + 1 - a)
    return randrange(rng, a, b + 1)  # raises as random.py does


def choice(rng: random.Random, seq: Sequence[T]) -> T:
    """``rng.choice(seq)``."""
    if not _own(rng):
        return rng.choice(seq)
    if not len(seq):
        raise IndexError("Cannot choose from an empty sequence")
    return seq[randbelow(rng, len(seq))]


def shuffle(rng: random.Random, x: list[T]) -> None:
    """``rng.shuffle(x)`` on a list (typed so for mypyc's native list access): Fisher-Yates from
    the last position down, ``randbelow(i + 1)`` each, inlined."""
    if not _own(rng):
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    i = len(x) - 1
    while i > 0:
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]
        i -= 1


def sample(rng: random.Random, population: Sequence[T], k: int) -> list[T]:
    """``rng.sample(population, k)`` (no ``counts``). random.py picks one of two methods by
    size, which draw differently: a pool it swaps out of when the population is small next to
    the memory of a k-element set, else redraws that skip indices already in a set."""
    kind = type(population)  # isinstance on the Sequence ABC is slow; tuples and lists are sequences
    if not _own(rng) or (kind is not tuple and kind is not list and not isinstance(population, Sequence)):
        return rng.sample(population, k)  # a set: an error, or on 3.10 a warning and a tuple
    n = len(population)
    if not 0 <= k <= n:
        raise ValueError("Sample larger than population or is negative")
    setsize = 21  # random.py's estimate: a small set's size minus an empty list's
    if k > 5:
        setsize += 4 ** ceil(log(k * 3, 4))
    result: list[T] = []
    if n <= setsize:
        pool = list(population)
        for i in range(k):
            j = randbelow(rng, n - i)
            result.append(pool[j])
            pool[j] = pool[n - i - 1]  # the last unpicked item fills the vacancy
    else:
        selected: set[int] = set()
        for _ in range(k):
            j = randbelow(rng, n)
            while j in selected:
                j = randbelow(rng, n)
            selected.add(j)
            result.append(population[j])
    return result
