"""Bit-mask states as lists of fact ids.

Why a module: the planners (LM-cut, the search task's index, greedy best-first)
all turn a state or a condition mask into the ids of its set bits, lowest first.
"""

from __future__ import annotations

__all__ = ["bits"]


def bits(mask: int) -> list[int]:
    """The positions of the set bits of ``mask`` (a non-negative int), in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
