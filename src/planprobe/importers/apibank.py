"""API-Bank's test samples as planprobe cases.

Levels 1 and 2 follow ``evaluator.py``: every API turn at position i of a dialogue
yields two samples, (turns before i -> the API call) and (turns up to i -> turn i+1),
numbered in that order — so two adjacent API turns give the same sample twice, and
API-Bank counts both (399 level-1 API samples from 389 API turns); planprobe keeps
them so its accuracy is API-Bank's. A sample whose expected turn is an API call is an
``api`` case (the agent must make that call), one whose expected turn is the AI's
reply is a ``response`` case (scored by ROUGE-L); samples expecting a User turn are
not scored by API-Bank and are skipped.

Level 3 follows ``lv3_evaluator.py`` (and its batch files): for each of the 50
requirements, one ``step`` case per recorded call (the requirement and the calls
before it are given; the agent must make the next one) and one ``response`` case
(all calls given; the agent writes the reply) — and one ``run`` case for PMC's
whole-run metrics, where the agent gets only the requirement and does everything.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..schema import Case, CaseMeta, OracleKind
from ..suites.apibank.api_support import canonical_input
from ..suites.apibank.catalog import (
    CallRefused,
    catalog,
    convert_arguments,
    public_definition,
    tool_spec,
)
from ..suites.apibank.checks import check
from ..suites.apibank.databases import read_databases
from ..suites.apibank.environment import fresh_world
from ..suites.apibank.searcher import split_by_uppercase
from ..suites.apibank.spec import (
    FAMILY,
    KINDS,
    L3_TOOLSEARCHER,
    RESPONSE_FAMILY,
    SPEC_VERSION,
    call_text,
    level3_tool,
)
from .apibank_samples import (
    Level3Sample,
    Turn,
    dialogue_files,
    read_dialogue,
    read_level3,
)

OFFLINE_APIS = ("Dictionary", "Translate")  # web services in API-Bank: served from recorded calls
DEFAULT_PASS_ROUGE = 0.5

API_INSTRUCTION = ("You are the AI assistant in the conversation below, which may include API calls "
                   "(API-Request: [ApiName(key='value', ...)]->result). Make the API call the AI should make next, "
                   "as one tool call, then stop. The current year is 2023.")
RESPONSE_INSTRUCTION = ("You are the AI assistant in the conversation below, which includes API calls "
                        "(API-Request: [ApiName(key='value', ...)]->result). Write the AI's next reply to the user "
                        "as plain text; make no tool call. The current year is 2023.")
STEP_INSTRUCTION = ("Fulfil the user's requirement with API calls. Search for the APIs you need with "
                    "ToolSearcher(keywords), then call them. The calls made so far are listed below with their "
                    "results; make the next API call, as one tool call, then stop.")
RUN_INSTRUCTION = ("Fulfil the user's requirement with API calls. Search for the APIs you need with "
                   "ToolSearcher(keywords), call them with the right arguments, and when everything is done reply "
                   "to the user with the outcome.")
L3_RESPONSE_INSTRUCTION = ("The user's requirement was fulfilled with the API calls listed below. Write the AI's "
                           "reply to the user reporting the outcome, as plain text; make no tool call.")


def _render_turn(t: Turn) -> str:
    if t.role == "API":
        r = t.result or {}
        output = json.dumps(r.get("output"), ensure_ascii=False)
        return f"API-Request: {call_text(t.api_name, r.get('input'))}->{output}"
    return f"{t.role}: {t.text}"


def samples(turns: list[Turn]) -> list[tuple[list[Turn], Turn]]:
    """``Sample.from_chat_history``: two samples per API turn; a dialogue ending with an
    API turn has no turn after it (API-Bank crashes there; planprobe drops that sample)."""
    out = []
    for i, t in enumerate(turns):
        if t.role != "API":
            continue
        out.append((turns[:i], t))
        if i + 1 < len(turns):
            out.append((turns[: i + 1], turns[i + 1]))
    return out


def _revealed(history: list[Turn]) -> list[str]:
    names: list[str] = []
    for t in history:
        if t.role == "API" and t.api_name == "ToolSearcher" and t.result:
            out = t.result.get("output")
            for item in out if isinstance(out, list) else [out]:
                if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"] not in names:
                    names.append(item["name"])
    return names


class _Level12:
    """Reads a level's dialogues once and makes its cases."""

    def __init__(self, root: Path, level: int):
        self.root = root
        self.level = level
        self.databases, self.digest = read_databases(root)
        self.files = dialogue_files(root, level)
        self.dialogues = [(p, read_dialogue(p, level)) for p in self.files]
        self.search_table = self._search_table()

    def _search_table(self) -> dict[str, str]:
        """keywords -> the API API-Bank's searcher returned, over both levels' dialogues."""
        table: dict[str, str] = {}
        other = 2 if self.level == 1 else 1
        dialogues = [turns for _, turns in self.dialogues] + [read_dialogue(p, other)
                                                              for p in _maybe_files(self.root, other)]
        for turns in dialogues:
            for t in turns:
                if t.role == "API" and t.api_name == "ToolSearcher" and t.result:
                    kw = (t.result.get("input") or {}).get("keywords")
                    names = _revealed([t])
                    if isinstance(kw, str) and names:
                        table.setdefault(kw, names[-1])
        return dict(sorted(table.items()))

    def cases(self, pass_rouge: float) -> Iterator[Case]:
        for path, turns in self.dialogues:
            recorded = {canonical_input(t.api_name, (t.result or {}).get("input") or {}): t.result
                        for t in turns if t.role == "API" and t.api_name in OFFLINE_APIS}
            dialogue_apis = sorted({t.api_name for t in turns if t.role == "API"})
            for sid, (history, target) in enumerate(samples(turns)):
                if target.role == "User":
                    continue
                yield self._case(path, sid, history, target, dialogue_apis, recorded, pass_rouge)

    def _case(self, path: Path, sid: int, history: list[Turn], target: Turn, dialogue_apis: list[str],
              recorded: dict[str, Any], pass_rouge: float) -> Case:
        kind = "api" if target.role == "API" else "response"
        stem = path.name[: -len(".jsonl")]
        if self.level == 1:
            visible = dialogue_apis
        else:
            visible = ["ToolSearcher"] + [n for n in _revealed(history) if n != "ToolSearcher"]
        defs = catalog()
        tools = [tool_spec(defs[n]) for n in visible if n in defs]
        spec: dict[str, Any] = {
            "version": SPEC_VERSION, "level": self.level, "kind": kind,
            "source": {"file": path.name, "sample": sid, "line": target.line},
            "data_dir": str(self.root.resolve()), "db_digest": self.digest,
            "search": self.search_table, "recorded": recorded,
        }
        if kind == "api":
            spec["gold"] = {"api_name": target.api_name, "result": target.result}
            spec["gold_consistent"] = gold_consistent(spec, self.databases)
            task = API_INSTRUCTION
        else:
            spec["gold"] = {"text": target.text}
            spec["pass_rouge"] = pass_rouge
            task = RESPONSE_INSTRUCTION
        # as API-Bank's test files: level 1 and every response sample describe the dialogue's APIs,
        # level-2 call samples only ToolSearcher
        described = dialogue_apis if self.level == 1 or kind == "response" else ["ToolSearcher"]
        task += "\n\nAPI descriptions:\n" + "\n".join(json.dumps(public_definition(defs[n]), ensure_ascii=False)
                                                     for n in described)
        task += "\n\nConversation:\n" + "\n".join(_render_turn(t) for t in history)
        meta = CaseMeta(topic=f"level-{self.level} {kind}",
                        difficulty={"level": float(self.level), "history_turns": float(len(history))},
                        tags=[f"level-{self.level}", kind, "api-bank"],
                        generator={"source": "api-bank", "file": path.name, "sample": sid})
        return Case(id=f"api-bank/l{self.level}/{stem}/{sid}", family=FAMILY if kind == "api" else RESPONSE_FAMILY,
                    task=task, tools=tools, oracle=OracleKind.FORMAL, spec=spec,
                    meta=meta)


def _maybe_files(root: Path, level: int) -> list[Path]:
    try:
        return dialogue_files(root, level)
    except PlanprobeError:
        return []


def gold_consistent(spec: dict[str, Any], databases: dict[str, Any]) -> bool:
    """Whether the recorded call, run by planprobe's implementation on the initial
    databases, passes API-Bank's own check — False marks data where the recording and
    the APIs disagree (see docs/api-bank.md)."""
    gold = spec["gold"]
    world = fresh_world(spec, "gold", databases)
    args = (gold["result"] or {}).get("input") or {}
    try:
        converted = convert_arguments(catalog()[gold["api_name"]], dict(args))
    except CallRefused:
        return False
    result = world.call(gold["api_name"], converted)
    return check(gold["api_name"], result, gold["result"], spec["level"])[0]


# -- level 3 -----------------------------------------------------------------


def level3_definitions(samples3: list[Level3Sample]) -> dict[str, dict[str, Any]]:
    """The level-3 APIs as the recorded ToolSearcher answers describe them."""
    defs: dict[str, dict[str, Any]] = {}
    for s in samples3:
        for call in s.apis:
            if call["api_name"] != "ToolSearcher":
                continue
            out = call["output"].get("output")
            for item in out if isinstance(out, list) else [out]:
                if isinstance(item, dict) and isinstance(item.get("name"), str):
                    defs.setdefault(item["name"], item)
    return dict(sorted(defs.items()))


def level3_stand_ins(samples3: list[Level3Sample]) -> dict[str, dict[str, Any]]:
    """Per level-3 API, its first recorded result in the data (output and exception): the
    answer a requirement that never called the API serves for it (``Level3Server.serve``)."""
    out: dict[str, dict[str, Any]] = {}
    for s in samples3:
        for call in s.apis:
            if call["api_name"] != "ToolSearcher" and isinstance(call.get("output"), dict):
                out.setdefault(call["api_name"], {"output": call["output"].get("output"),
                                                  "exception": call["output"].get("exception")})
    return dict(sorted(out.items()))


def level3_search_table(samples3: list[Level3Sample]) -> dict[str, str]:
    table: dict[str, str] = {}
    for s in samples3:
        for call in s.apis:
            out = call["output"].get("output") if call["api_name"] == "ToolSearcher" else None
            if isinstance(out, dict) and isinstance(out.get("name"), str):
                kw = call["input"].get("keywords")
                if isinstance(kw, str):
                    table.setdefault(kw, out["name"])
                    table.setdefault(split_by_uppercase(kw), out["name"])
    return dict(sorted(table.items()))


def _l3_render(s: Level3Sample, calls: list[dict[str, Any]]) -> str:
    lines = [f"User: {s.requirement}"]
    for c in calls:
        lines.append(f"API-Request: {call_text(c['api_name'], c['input'])}->"
                     f"{json.dumps(c['output'].get('output'), ensure_ascii=False)}")
    return "\n".join(lines)


def level3_cases(root: Path, pass_rouge: float, kinds: tuple[str, ...]) -> Iterator[Case]:
    samples3 = read_level3(root)
    defs = level3_definitions(samples3)
    table = level3_search_table(samples3)
    stand_ins = level3_stand_ins(samples3)
    for s in samples3:
        base = {"version": SPEC_VERSION, "level": 3, "search": table, "apis": defs, "stand_ins": stand_ins,
                "sample": s.index,
                "recorded_calls": [{"api_name": c["api_name"], "result": c["output"]} for c in s.apis]}
        difficulty = {"level": 3.0, "required_calls": float(len(s.apis))}
        if "step" in kinds:
            for j, call in enumerate(s.apis):
                revealed = [n for n in _revealed([Turn(role="API", api_name=c["api_name"], result=c["output"])
                                                  for c in s.apis[:j]]) if n in defs]
                tools = [level3_tool(L3_TOOLSEARCHER)] + [level3_tool(defs[n]) for n in revealed]
                spec = {**base, "kind": "step", "step": j,
                        "gold": {"api_name": call["api_name"], "result": call["output"]}}
                yield Case(id=f"api-bank/l3/{s.index}/step-{j}", family=FAMILY,
                           task=f"{STEP_INSTRUCTION}\n\n{_l3_render(s, s.apis[:j])}", tools=tools, spec=spec,
                           meta=CaseMeta(topic="level-3 step", tags=["level-3", "step", "api-bank"],
                                         difficulty=difficulty,
                                         generator={"source": "api-bank", "sample": s.index, "step": j}))
        if "response" in kinds:
            spec = {**base, "kind": "response", "gold": {"text": s.response}, "pass_rouge": pass_rouge}
            yield Case(id=f"api-bank/l3/{s.index}/response", family=RESPONSE_FAMILY,
                       task=f"{L3_RESPONSE_INSTRUCTION}\n\n{_l3_render(s, s.apis)}", tools=[], spec=spec,
                       meta=CaseMeta(topic="level-3 response", tags=["level-3", "response", "api-bank"],
                                     difficulty=difficulty, generator={"source": "api-bank", "sample": s.index}))
        if "run" in kinds:
            spec = {**base, "kind": "run", "gold": {"calls": base["recorded_calls"], "text": s.response},
                    "pass_rouge": pass_rouge}
            yield Case(id=f"api-bank/l3/{s.index}/run", family=FAMILY,
                       task=f"{RUN_INSTRUCTION}\n\nUser: {s.requirement}", tools=[level3_tool(L3_TOOLSEARCHER)],
                       spec=spec, meta=CaseMeta(topic="level-3 run", tags=["level-3", "run", "api-bank"],
                                                difficulty=difficulty,
                                                generator={"source": "api-bank", "sample": s.index}))


def import_cases(root: Path, level: int, kinds: tuple[str, ...] | None = None,
                 pass_rouge: float = DEFAULT_PASS_ROUGE, official: bool = False) -> list[Case]:
    """Every case of one level (all kinds unless ``kinds`` narrows them). Everything is
    read and checked before a case is returned, so bad input never yields a partial suite.
    ``official``: call cases pass by API-Bank's own reading (list arguments as text) rather
    than the corrected one."""
    if level not in KINDS:
        raise PlanprobeError(f"--level {level}: expected 1, 2 or 3")
    wanted = kinds or KINDS[level]
    for k in wanted:
        if k not in KINDS[level]:
            raise PlanprobeError(f"--kind {k}: level {level} has {', '.join(KINDS[level])}")
    if not root.is_dir():
        raise PlanprobeError(f"{root}: not a directory (expected API-Bank's folder)")
    if level == 3:
        cases = list(level3_cases(root, pass_rouge, tuple(wanted)))
    else:
        cases = [c for c in _Level12(root, level).cases(pass_rouge) if c.spec["kind"] in wanted]
    if official:  # verdicts of call cases follow API-Bank's own reading (both are always recorded)
        for c in cases:
            if c.spec["kind"] in ("api", "step"):
                c.spec["reading"] = "official"
    return cases


__all__ = ["import_cases", "samples"]
