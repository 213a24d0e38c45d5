"""What a constraint case's view says besides the requirement: which tools carry out which task,
the mode, the restart and refusal tools, values the task text gives for extra parameters, and the
prices of a cost variant (its composites included) — read from the task text and the tool
schemas only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MARKER = "Here is the requirement:"
START = "start_time"
_TASK_LIST = re.compile(r"^The tasks are: (.+)\.$", re.MULTILINE)
_COST = re.compile(r"\bCost: (\d+) credits?\.")
_COMPOSITE = re.compile(r"^Carries out (\w+) and then, immediately after it, (\w+), in one call\.")
_GIVEN = re.compile(r"\bThe ([a-z][a-z ]*?) to use is (\S+?)\.(?:\s|$)")
_UNKNOWN = re.compile(r"\bThe ([a-z][a-z ]*?) is not known\.")
_TAKES = re.compile(r"\bIt takes (\d+) hours?\.")


@dataclass(frozen=True)
class Setting:
    """The case as the view shows it. ``choices[k]``: the tools that carry out task k, the one
    named after it first (a twin with the same description is the fallback when it fails)."""

    names: tuple[str, ...]
    choices: tuple[tuple[str, ...], ...]
    extended: bool
    restart: str | None
    refuse: str | None
    requirement: str
    listed: bool  # the task text lists the tasks (planprobe style)
    extra_args: dict[str, dict[str, str]] = field(default_factory=dict)  # tool -> parameter -> value
    unknown_args: dict[str, str] = field(default_factory=dict)  # tool -> a required parameter with no value
    costs: dict[str, int] = field(default_factory=dict)
    composites: tuple[tuple[str, int, int], ...] = ()  # (tool, first task, second task)
    durations: dict[int, int] = field(default_factory=dict)  # stated in a description (planning protocols)

    def task_of(self) -> dict[str, int]:
        return {t: k for k, tools in enumerate(self.choices) for t in tools}


def schemas(tools: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """The tool schemas, unwrapped from OpenAI's ``{"type": "function", "function": …}``."""
    out = []
    for t in tools:
        f = t.get("function") if isinstance(t.get("function"), dict) else t
        if isinstance(f, dict) and isinstance(f.get("name"), str):
            out.append(f)
    return out


def title(description: str) -> str:
    """The first sentence of a tool's description: a task tool's name, capitalised."""
    return description.split(". ", 1)[0].strip().rstrip(".").strip()


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def listed_tasks(text: str) -> list[str] | None:
    m = _TASK_LIST.search(text)
    if not m:
        return None
    parts = m.group(1).split(" and ")
    head = [p.strip() for p in " and ".join(parts[:-1]).split(", ")] if len(parts) > 1 else []
    return [p for p in head if p] + [parts[-1].strip()]


def _required(schema: dict[str, Any]) -> list[str]:
    params = schema.get("parameters") or {}
    return [str(p) for p in params.get("required") or [] if p != START]


def read_setting(system: str, task: str) -> tuple[str, str] | None:
    """(the requirement paragraph, the text after it), or None without a requirement."""
    for text in (task, system):
        if text and MARKER in text:
            rest = text.split(MARKER, 1)[1].strip()
            requirement, _, notes = rest.partition("\n")
            return requirement.strip(), notes.strip()
    return None


def setting(system: str, task: str, tools: tuple[dict[str, Any], ...]) -> Setting | str:
    """The case's setting read from the view, or what keeps it from being one."""
    found = read_setting(system, task)
    if found is None:
        return f'no "{MARKER}" in the task'
    requirement, notes = found
    all_schemas = schemas(tools)
    names_of = {str(s["name"]) for s in all_schemas}
    restart = next((str(s["name"]) for s in all_schemas if "restart" in str(s["name"]).lower()), None)
    refuse = next((str(s["name"]) for s in all_schemas if str(s["name"]).lower() == "refuse"
                   or str(s.get("description") or "").startswith("Refuse the request")), None)
    composites_raw: list[tuple[str, str, str]] = []
    task_like: list[dict[str, Any]] = []
    for s in all_schemas:
        desc = str(s.get("description") or "")
        m = _COMPOSITE.match(desc)
        if m and m.group(1) in names_of and m.group(2) in names_of:
            composites_raw.append((str(s["name"]), m.group(1), m.group(2)))
        elif str(s["name"]) not in (restart, refuse) and title(desc):
            task_like.append(s)
    by_title: dict[str, list[dict[str, Any]]] = {}
    for s in task_like:
        by_title.setdefault(title(str(s.get("description") or "")).lower(), []).append(s)
    listed = listed_tasks(task) if task else None
    if listed is None and system:
        listed = listed_tasks(system)
    names = listed if listed is not None else [_lower_first(title(str(g[0].get("description") or "")))
                                               for g in by_title.values()]
    choices: list[tuple[str, ...]] = []
    for name in names:
        group = by_title.get(name.lower(), [])
        own = name.replace(" ", "_")
        ordered = sorted(group, key=lambda s: str(s["name"]) != own)  # stable: the named tool first
        choices.append(tuple(str(s["name"]) for s in ordered))
    if not any(choices):
        return (f"no tool carries out a task ({'the tasks listed: ' + ', '.join(names) if names else 'no task is listed'}; "
                f"the tools offered: {', '.join(sorted(names_of)) or 'none'})")
    chosen = [s for s in task_like if any(str(s["name"]) in c for c in choices)]
    props = [((s.get("parameters") or {}).get("properties") or {}) for s in chosen]
    timed = [START in p for p in props]
    if any(timed) != all(timed):
        untimed = [str(s["name"]) for s, t in zip(chosen, timed) if not t]
        return f"some task tools take a start time and others do not (without one: {', '.join(untimed)})"
    given = {g.replace(" ", "_"): v for g, v in _GIVEN.findall(notes)}
    unknown = {u.replace(" ", "_") for u in _UNKNOWN.findall(notes)}
    extra_args: dict[str, dict[str, str]] = {}
    unknown_args: dict[str, str] = {}
    for s in chosen:
        for p in _required(s):
            if p in given and p not in unknown:
                extra_args.setdefault(str(s["name"]), {})[p] = given[p]
            else:
                unknown_args[str(s["name"])] = p
    costs = {str(s["name"]): int(m.group(1)) for s in all_schemas
             if (m := _COST.search(str(s.get("description") or "")))}
    task_of = {t: k for k, c in enumerate(choices) for t in c}
    composites = tuple((tool, task_of[a], task_of[b]) for tool, a, b in composites_raw
                       if a in task_of and b in task_of)
    by_name = {str(s["name"]): s for s in chosen}
    durations = {k: int(m.group(1)) for k, c in enumerate(choices) if c
                 and (m := _TAKES.search(str(by_name[c[0]].get("description") or "")))}
    return Setting(tuple(names), tuple(choices), all(timed), restart, refuse, requirement, listed is not None,
                   extra_args, unknown_args, costs, composites, durations)
