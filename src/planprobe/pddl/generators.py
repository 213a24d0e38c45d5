"""Random Blocksworld and Logistics problems, deterministic per seed.

Why our own generators: PlanBench ships a fixed set of instances (600
Blocksworld, 285 Logistics); a benchmark that can be memorised is a weak one,
and a capability sweep needs problems of any size. Every problem uses the
standard domain shipped with planprobe (``domains/*.pddl``, PlanBench's files),
so generated problems, PlanBench's instances and their obfuscated variants
all speak one vocabulary.

* **Blocksworld** states are drawn *uniformly* from all states of n blocks (a
  state is a set of towers; there are A000262(n) of them: 1, 3, 13, 73, 501, …).
  The number of towers k is drawn with probability L(n, k) / A000262(n) (Lah
  numbers), then a uniform permutation of the blocks is cut at k - 1 uniformly
  chosen gaps: every set of k towers arises from exactly k! (permutation, cuts)
  pairs, so the state is uniform. The goal is another uniform state, stated as
  its ``on`` atoms (PlanBench's form), in full (``on`` and ``ontable``) or as a
  random part of it. Every Blocksworld problem is solvable: any state is
  reachable from any other.
* **Logistics** follows PlanBench's (and the IPC generator's) layout: cities
  ``c0…``, locations ``l<city>-<i>`` of which ``l<city>-0`` is the city's
  airport, trucks ``t0…`` (at least one per city), airplanes ``a0…`` at random
  airports, packages ``p0…`` at random locations, and goals that put packages
  at other locations. Solvable by construction: every city has a truck that
  reaches each of its locations and an airport, and when there are two or more
  cities there is at least one airplane, which flies between any two airports.

A problem never has a goal that already holds in its initial state.
Everything is drawn from a ``random.Random`` the caller seeds, so the same seed
gives the same problem, byte for byte.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from importlib import resources
from math import comb, factorial

from ..errors import PlanprobeError
from .model import Atom, Domain, PDDLLiteral, Problem, TypedName
from .parser import parse_domain

__all__ = [
    "BLOCKSWORLD_GOALS",
    "LOGISTICS_GOALS",
    "LogisticsSize",
    "block_names",
    "blocksworld_problem",
    "count_states",
    "logistics_problem",
    "random_towers",
    "standard_domain",
    "STANDARD_DOMAINS",
    "towers_atoms",
]

STANDARD_DOMAINS = ("blocksworld", "logistics")
BLOCKSWORLD_GOALS = ("on", "full", "partial")
LOGISTICS_GOALS = ("all", "partial")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@cache
def standard_domain_text(name: str) -> str:
    """The PDDL text of a shipped domain (``blocksworld`` or ``logistics``)."""
    if name not in STANDARD_DOMAINS:
        raise PlanprobeError(f"unknown domain {name!r}: expected one of {', '.join(STANDARD_DOMAINS)}")
    return resources.files(__package__).joinpath("domains").joinpath(f"{name}.pddl").read_text(encoding="utf-8")


@cache
def standard_domain(name: str) -> Domain:
    """The parsed shipped domain; parsed once per process and shared (domains are immutable)."""
    return parse_domain(standard_domain_text(name), f"{name}.pddl")


# ---------------------------------------------------------------------------
# Blocksworld
# ---------------------------------------------------------------------------


def block_names(n: int) -> list[str]:
    """a, b, …, z, aa, ab, … (PlanBench's names for the first 26)."""
    out = []
    for i in range(n):
        name, i = "", i + 1
        while i:
            i, r = divmod(i - 1, 26)
            name = _LETTERS[r] + name
        out.append(name)
    return out


@cache
def _lah_row(n: int) -> tuple[int, ...]:
    """L(n, k) for k = 1..n: the number of ways to split n blocks into k towers."""
    return tuple(comb(n - 1, k - 1) * factorial(n) // factorial(k) for k in range(1, n + 1))


def count_states(n: int) -> int:
    """How many Blocksworld states n blocks have (OEIS A000262)."""
    return sum(_lah_row(n)) if n else 1


def random_towers(blocks: list[str], rng: random.Random) -> list[list[str]]:
    """A uniformly random Blocksworld state: towers listed bottom to top."""
    n = len(blocks)
    if n == 0:
        return []
    r = rng.randrange(count_states(n))
    k = 0
    for k, weight in enumerate(_lah_row(n), 1):
        if r < weight:
            break
        r -= weight
    order = list(blocks)
    rng.shuffle(order)
    cuts = sorted(rng.sample(range(1, n), k - 1))
    bounds = [0, *cuts, n]
    return [order[bounds[i]:bounds[i + 1]] for i in range(k)]


def towers_atoms(towers: list[list[str]]) -> tuple[list[Atom], list[Atom], list[Atom]]:
    """(ontable atoms, on atoms, clear atoms) of a state given as towers."""
    ontable = [Atom("ontable", (t[0],)) for t in towers]
    on = [Atom("on", (t[i + 1], t[i])) for t in towers for i in range(len(t) - 1)]
    clear = [Atom("clear", (t[-1],)) for t in towers]
    return ontable, on, clear


def blocksworld_problem(n: int, rng: random.Random, goal: str = "on", name: str | None = None) -> Problem:
    """A random Blocksworld problem with ``n`` blocks (n >= 2), hand empty.

    ``goal``: ``on`` — the ``on`` atoms of a random state (PlanBench's form; a
    state with every block on the table is redrawn); ``full`` — its ``on`` and
    ``ontable`` atoms (the whole state); ``partial`` — a random non-empty part of
    the full goal. The goal never already holds in the initial state."""
    if n < 2:
        raise PlanprobeError(f"--blocks {n}: a Blocksworld problem needs at least 2 blocks")
    if goal not in BLOCKSWORLD_GOALS:
        raise PlanprobeError(f"goal {goal!r}: expected one of {', '.join(BLOCKSWORLD_GOALS)}")
    domain = standard_domain("blocksworld")
    blocks = block_names(n)
    init_towers = random_towers(blocks, rng)
    ontable, on, clear = towers_atoms(init_towers)
    init = (Atom("handempty"), *ontable, *on, *clear)
    init_set = set(init)
    while True:
        g_table, g_on, _ = towers_atoms(random_towers(blocks, rng))
        if goal == "on":
            atoms = g_on
        elif goal == "full":
            atoms = g_on + g_table
        else:
            full = g_on + g_table
            atoms = sorted(rng.sample(full, rng.randint(1, len(full))), key=full.index)
        if atoms and not init_set.issuperset(atoms):
            break
    return Problem(
        name=name or f"bw-rand-{n}",
        domain=domain,
        objects=tuple(TypedName(b) for b in blocks),
        init=init,
        goal=tuple(PDDLLiteral(a) for a in atoms),
    )


# ---------------------------------------------------------------------------
# Logistics
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LogisticsSize:
    """The shape of a Logistics problem (PlanBench's instance names read
    ``logistics-c<cities>-s<locations>-p<packages>-a<airplanes>``)."""

    cities: int = 2
    locations: int = 2  # per city; the first is the city's airport
    packages: int = 2
    airplanes: int = 1
    trucks: int = 1  # per city

    def check(self) -> None:
        if self.cities < 1 or self.locations < 1 or self.packages < 1 or self.trucks < 1:
            raise PlanprobeError("logistics: cities, locations, packages and trucks must each be at least 1 "
                                 f"(got {self.cities}, {self.locations}, {self.packages}, {self.trucks})")
        if self.airplanes < 0:
            raise PlanprobeError(f"logistics: airplanes cannot be negative (got {self.airplanes})")
        if self.cities > 1 and self.airplanes < 1:
            raise PlanprobeError(f"logistics: {self.cities} cities need at least one airplane to be connected")
        if self.cities == 1 and self.locations == 1:
            raise PlanprobeError("logistics: one city with one location leaves nowhere to move a package")

    @property
    def objects(self) -> int:
        c = self.cities
        return self.airplanes + c + c * self.trucks + c * self.locations + self.packages


def logistics_problem(size: LogisticsSize, rng: random.Random, goal: str = "all", name: str | None = None) -> Problem:
    """A random, solvable Logistics problem of this size.

    ``goal``: ``all`` — every package at a location (at least one different
    from where it starts); ``partial`` — a random non-empty subset of the
    packages, each at a location other than its start."""
    size.check()
    if goal not in LOGISTICS_GOALS:
        raise PlanprobeError(f"goal {goal!r}: expected one of {', '.join(LOGISTICS_GOALS)}")
    domain = standard_domain("logistics")
    c_n, s_n = size.cities, size.locations
    airplanes = [f"a{i}" for i in range(size.airplanes)]
    cities = [f"c{i}" for i in range(c_n)]
    trucks = [f"t{i}" for i in range(c_n * size.trucks)]
    locs = [[f"l{c}-{i}" for i in range(s_n)] for c in range(c_n)]
    all_locs = [x for row in locs for x in row]
    packages = [f"p{i}" for i in range(size.packages)]

    init: list[Atom] = [Atom("airplane", (a,)) for a in airplanes]
    init += [Atom("city", (c,)) for c in cities]
    init += [Atom("truck", (t,)) for t in trucks]
    for c, row in enumerate(locs):
        for loc in row:
            init += [Atom("location", (loc,)), Atom("in-city", (loc, cities[c]))]
    init += [Atom("airport", (row[0],)) for row in locs]
    init += [Atom("obj", (p,)) for p in packages]
    for k, t in enumerate(trucks):  # truck k serves city k mod c_n
        init.append(Atom("at", (t, rng.choice(locs[k % c_n]))))
    start = {p: rng.choice(all_locs) for p in packages}
    init += [Atom("at", (p, start[p])) for p in packages]
    init += [Atom("at", (a, locs[rng.randrange(c_n)][0])) for a in airplanes]  # at an airport

    if goal == "all":
        chosen = packages
        target = {p: rng.choice(all_locs) for p in packages}
        if all(target[p] == start[p] for p in packages):  # make at least one package move
            p = rng.choice(packages)
            target[p] = rng.choice([x for x in all_locs if x != start[p]])
    else:
        chosen = sorted(rng.sample(packages, rng.randint(1, len(packages))), key=packages.index)
        target = {p: rng.choice([x for x in all_locs if x != start[p]]) for p in chosen}
    objects = [*airplanes, *cities, *trucks, *all_locs, *packages]
    return Problem(
        name=name or f"logistics-c{c_n}-s{s_n}-p{size.packages}-a{size.airplanes}",
        domain=domain,
        objects=tuple(TypedName(o) for o in objects),
        init=tuple(init),
        goal=tuple(PDDLLiteral(Atom("at", (p, target[p]))) for p in chosen),
    )
