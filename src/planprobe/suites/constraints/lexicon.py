"""Jobs and their daily activities: the words that fill a skeleton's action slots.

The activities of one case all come from one job, which is the case's topic
(seed §4.2). The embedded lexicon (``lexicon.txt``) has 50 jobs × 20 activities,
written for this project; a user can load their own file in the same format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from ...errors import PlanprobeError

_ACTIVITY = re.compile(r"^[a-z]+ing( [a-z]+){1,4}$")
# words the requirement language relates tasks with: inside a task's name they would let a
# reader take part of the name for the relation ("checking alarms before opening comes before …")
RESERVED_WORDS = frozenset({"and", "which", "both", "before", "after", "once", "than", "by", "while", "until",
                            "prior", "following", "ahead", "earlier", "later", "sooner", "subsequent"})


@dataclass(frozen=True)
class Job:
    name: str
    activities: tuple[str, ...]


@dataclass(frozen=True)
class Lexicon:
    jobs: tuple[Job, ...]

    def job(self, name: str) -> Job:
        for j in self.jobs:
            if j.name == name:
                return j
        raise PlanprobeError(f"unknown topic {name!r}: the lexicon has no such job")

    @property
    def max_actions(self) -> int:
        return min(len(j.activities) for j in self.jobs)

    def all_activities(self) -> frozenset[str]:
        return frozenset(a for j in self.jobs for a in j.activities)


def tool_name(activity: str) -> str:
    return activity.replace(" ", "_")


def parse_lexicon(text: str, source: str = "<lexicon>") -> Lexicon:
    """Parse the lexicon format: ``## Job`` lines, each followed by activity lines."""
    jobs: list[Job] = []
    name: str | None = None
    acts: list[str] = []
    seen_tools: set[str] = set()

    def close() -> None:
        if name is not None:
            if len(acts) < 2:
                raise PlanprobeError(f"{source}: job {name!r} needs at least 2 activities, has {len(acts)}")
            jobs.append(Job(name, tuple(acts)))

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("# "):
            continue
        if line.startswith("## "):
            close()
            name, acts, seen_tools = line[3:].strip(), [], set()
            continue
        if name is None:
            raise PlanprobeError(f"{source}:{lineno}: activity {line!r} before any '## Job' line")
        if not _ACTIVITY.match(line):
            raise PlanprobeError(
                f"{source}:{lineno}: activity {line!r} must be a lowercase gerund phrase of 2-5 words (a-z and spaces)"
            )
        reserved = sorted(set(line.split()) & RESERVED_WORDS)
        if reserved:
            raise PlanprobeError(
                f"{source}:{lineno}: activity {line!r} contains {reserved[0]!r}, a word the requirements use to "
                "relate tasks; reword it"
            )
        tool = tool_name(line)
        if tool in seen_tools:
            raise PlanprobeError(f"{source}:{lineno}: activity {line!r} repeats within job {name!r}")
        seen_tools.add(tool)
        acts.append(line)
    close()
    if not jobs:
        raise PlanprobeError(f"{source}: no jobs found (expected '## Job' lines followed by activities)")
    return Lexicon(tuple(jobs))


@cache
def default_lexicon() -> Lexicon:
    text = resources.files(__package__).joinpath("lexicon.txt").read_text(encoding="utf-8")
    return parse_lexicon(text, "lexicon.txt")


def load_lexicon(path: Path | None) -> Lexicon:
    if path is None:
        return default_lexicon()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise PlanprobeError(f"cannot read lexicon {path}: {exc.strerror}") from None
    return parse_lexicon(text, str(path))
