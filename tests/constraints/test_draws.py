"""draws.py against random.Random itself: the same values and the same generator state after
every call, over long mixed sequences on many seeds (both the pure and the compiled module)."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from math import ceil, log
from typing import Any

import pytest

from planprobe.suites.constraints import draws

# sizes where the draws behave differently: 1 (one word for nothing), powers of two (no
# rejection), one more than a power of two (rejection about half the time), beyond 32 bits
SIZES = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257,
         1000, 1023, 1024, 1025, 2**31 - 1, 2**31, 2**31 + 1, 2**32, 2**32 + 1, 2**40 + 1, 2**64 + 1, 3**50]


def _setsize(k: int) -> int:
    """random.py's threshold between sample's two methods (used to pick sizes on both sides)."""
    return 21 + (4 ** ceil(log(k * 3, 4)) if k > 5 else 0)


def _op(script: random.Random) -> tuple[str, Callable[[random.Random], Any], Callable[[random.Random], Any]]:
    """One call drawn at random, as (name, through draws, through the generator's method)."""
    kind = script.randrange(7)
    if kind == 0:
        a = script.randint(-50, 50)
        b = a + script.choice(SIZES) - 1
        return f"randint({a}, {b})", lambda r: draws.randint(r, a, b), lambda r: r.randint(a, b)
    if kind == 1:
        start = script.randint(-20, 20)
        step = script.choice([1, 1, 2, 3, -1, -2, 7])
        stop = start + step * script.choice(SIZES)
        return (f"randrange({start}, {stop}, {step})", lambda r: draws.randrange(r, start, stop, step),
                lambda r: r.randrange(start, stop, step))
    if kind == 2:
        n = script.choice(SIZES)
        return f"randrange({n})", lambda r: draws.randrange(r, n), lambda r: r.randrange(n)
    if kind == 3:
        seq = tuple(range(script.choice([s for s in SIZES if s < 5000])))
        return f"choice(<{len(seq)}>)", lambda r: draws.choice(r, seq), lambda r: r.choice(seq)
    if kind == 4:
        n = script.choice([0, 1, 2, 3, 4, 5, 8, 9, 16, 17, 33, 100])

        def ours(r: random.Random) -> list[int]:
            x = list(range(n))
            draws.shuffle(r, x)
            return x

        def theirs(r: random.Random) -> list[int]:
            x = list(range(n))
            r.shuffle(x)
            return x
        return f"shuffle(<{n}>)", ours, theirs
    if kind == 5:
        return "random()", lambda r: r.random(), lambda r: r.random()
    k = script.choice([0, 1, 2, 3, 5, 6, 7, 9, 12, 20, 30])
    edge = _setsize(k)
    n = max(k, script.choice([k, k + 1, edge - 1, edge, edge + 1, edge + 2, 2 * edge, 5000]))
    pop: Sequence[object] = script.choice([tuple(range(100, 100 + n)), range(n), "x" * n])
    return f"sample(<{n}>, {k})", lambda r: draws.sample(r, pop, k), lambda r: r.sample(pop, k)


@pytest.mark.parametrize("seed", range(40))
def test_mixed_draws_equal_the_random_module_in_values_and_state(seed):
    script = random.Random(f"script/{seed}")
    ours, theirs = random.Random(seed), random.Random(seed)
    for step in range(400):
        name, by_draws, by_method = _op(script)
        assert by_draws(ours) == by_method(theirs), f"seed {seed} step {step}: {name}"
        assert ours.getstate() == theirs.getstate(), f"seed {seed} step {step}: {name} left another state"


def test_both_branches_of_sample_and_rejection_are_exercised():
    """The fixtures reach what they claim: sample's set branch, and randbelow redrawing."""
    assert _setsize(3) == 21 and _setsize(6) == 85  # 4 ** ceil(log(18, 4)) = 64
    calls = []

    class Counting(random.Random):
        def getrandbits(self, k: int) -> int:
            calls.append(k)
            return super().getrandbits(k)
    rng = Counting(1)
    rng.sample(range(86), 6)  # the set branch: indices drawn from all 86
    assert calls and set(calls) == {(86).bit_length()}
    calls.clear()
    for _ in range(200):
        rng.randrange(2**16 + 1)
    assert len(calls) > 250  # about two draws per value: rejection repeated


@pytest.mark.parametrize("text", ["", "a", "planprobe/constraints/7/0", "planprobe/constraints/7/123/mentions",
                                  "é✓ü", "x" * 1000, "\x00"])
def test_seeded_is_the_state_of_random_random_of_the_string(text):
    mine = draws.seeded(text)
    assert type(mine) is random.Random
    assert mine.getstate() == random.Random(text).getstate()
    ref = random.Random(text)
    assert [mine.random() for _ in range(5)] == [ref.random() for _ in range(5)]
    assert mine.gauss(0, 1) == ref.gauss(0, 1) and mine.getstate() == ref.getstate()  # gauss_next is set


def test_seeded_generators_are_independent():
    a, b = draws.seeded("s"), draws.seeded("s")
    assert a is not b
    a.random()
    assert a.getstate() != b.getstate() and b.getstate() == random.Random("s").getstate()


@pytest.mark.parametrize("call", [
    lambda m, r: m(r, "randint")(5, 4), lambda m, r: m(r, "randrange")(0), lambda m, r: m(r, "randrange")(-3),
    lambda m, r: m(r, "randrange")(3, 3), lambda m, r: m(r, "randrange")(0, 10, 0),
    lambda m, r: m(r, "randrange")(0, 10, -1), lambda m, r: m(r, "randrange")(10, None, 2),
    lambda m, r: m(r, "choice")([]), lambda m, r: m(r, "sample")([1, 2], 3), lambda m, r: m(r, "sample")([1], -1),
    lambda m, r: m(r, "sample")({1, 2}, 1),
], ids=["randint-empty", "randrange-0", "randrange-neg", "randrange-empty", "step-0", "wrong-way",
        "step-without-stop", "choice-empty", "sample-too-many", "sample-negative", "sample-set"])
def test_bad_arguments_raise_as_the_random_module_does_and_draw_nothing(call):
    def via_draws(r: random.Random, name: str) -> Callable[..., Any]:
        return lambda *args: getattr(draws, name)(r, *args)

    def via_method(r: random.Random, name: str) -> Callable[..., Any]:
        return getattr(r, name)
    ours, theirs = random.Random(3), random.Random(3)
    with pytest.raises(Exception) as mine:
        call(via_draws, ours)
    with pytest.raises(Exception) as ref:
        call(via_method, theirs)
    assert type(mine.value) is type(ref.value)
    if sys.version_info[:2] == (3, 11):  # the messages changed in 3.12; matched to 3.11's
        assert str(mine.value) == str(ref.value)
    assert ours.getstate() == theirs.getstate() == random.Random(3).getstate()


def test_a_subclass_keeps_its_own_methods():
    """A generator that overrides its draws is not second-guessed: its methods are called."""
    class Fixed(random.Random):
        def randint(self, a: int, b: int) -> int:
            return a

        def choice(self, seq: Any) -> Any:
            return seq[-1]

        def shuffle(self, x: Any, random: Any = None) -> None:
            x.reverse()

        def sample(self, population: Any, k: int, *, counts: Any = None) -> list[Any]:
            return list(population[:k])

        def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
            return -1
    rng = Fixed(0)
    x = [1, 2, 3]
    draws.shuffle(rng, x)
    assert (draws.randint(rng, 4, 9), draws.choice(rng, "abc"), x, draws.sample(rng, [5, 6, 7], 2),
            draws.randrange(rng, 10)) == (4, "c", [3, 2, 1], [5, 6], -1)


def test_this_interpreter_is_matched_or_falls_back():
    assert draws.EXACT == (sys.version_info[:2] in draws.VERIFIED)


@pytest.mark.pure_only  # compiled build: run in a pure subprocess (test_native_build.py)
def test_on_an_unverified_interpreter_every_call_goes_to_random_random(monkeypatch):
    """Where random.py was not read (another CPython), draws.py must not use its own copies."""
    monkeypatch.setattr(draws, "EXACT", False)
    called = []
    for name in ("randint", "randrange", "choice", "sample", "shuffle", "seed"):
        original = getattr(random.Random, name)

        def spy(self: random.Random, *args: Any, _name: str = name, _original: Any = original, **kw: Any) -> Any:
            called.append(_name)
            return _original(self, *args, **kw)
        monkeypatch.setattr(random.Random, name, spy)
    rng = draws.seeded("x")
    draws.randint(rng, 1, 9), draws.randrange(rng, 5), draws.choice(rng, "abc"), draws.sample(rng, "abcd", 2)
    draws.shuffle(rng, [1, 2, 3])
    assert called == ["seed", "randint", "randrange", "randrange", "choice", "sample", "shuffle"]
