"""Where an API-Bank case's calls go.

Levels 1-2: planprobe's implementations of the APIs (``apis.World``) over a fresh copy
of the initial databases, read from the data folder the case was imported from (its
digest is checked, so changed databases are refused rather than silently used). Level
3: the calls API-Bank recorded for the requirement — a call is answered with a
recorded result when API-Bank's level-3 rule would accept the call as that recorded
one (same API; equal inputs, or the rule's looser reading); a call that matches none
gets an answer of the same kind (``Level3Server.serve``), so the answer never tells
the agent whether its call was the right one. ToolSearcher works offline in both
(``searcher``).

The agent sees the visible tools of the case (level 1: the dialogue's APIs; levels 2-3:
ToolSearcher and the APIs its answers have revealed, more as it searches) but may call
any API of the level by name, as API-Bank lets a model name any API.
"""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...environment import Environment, Limits
from ...errors import PlanprobeError
from ...schema import Case, ToolCallError, ToolSpec
from .apis import World
from .catalog import CallRefused, catalog, convert_arguments, tool_spec
from .checks import check
from .databases import read_databases
from .searcher import level3_searcher, level12_searcher, split_by_uppercase
from .spec import L3_TOOLSEARCHER, level3_tool

NOT_RECORDED = "No result was recorded for this call (level 3 serves the calls API-Bank recorded)."


@lru_cache(maxsize=4)
def _databases(data_dir: str) -> tuple[dict[str, Any], str]:
    return read_databases(Path(data_dir))


def databases_for(spec: dict[str, Any]) -> dict[str, Any]:
    data_dir = spec.get("data_dir")
    if not isinstance(data_dir, str):
        raise PlanprobeError("api-bank case: spec field 'data_dir' missing")
    dbs, digest = _databases(str(data_dir))
    if spec.get("db_digest") and digest != spec["db_digest"]:
        raise PlanprobeError(f"{data_dir}/init_database: the databases changed since the suite was imported "
                             f"(digest {digest}, suite has {spec['db_digest']}); re-import the suite")
    return dbs


def fresh_world(spec: dict[str, Any], seed: str, databases: dict[str, Any] | None = None) -> World:
    """A World over fresh databases, as API-Bank's evaluator builds a ToolManager per call."""
    dbs = databases if databases is not None else databases_for(spec)
    return World(dbs, seed=seed, recorded=spec.get("recorded") or {},
                 searcher=level12_searcher(spec.get("search") or {}))


def dump(result: Any) -> str:
    return json.dumps(result, ensure_ascii=False, default=str)


def _lv3_refusal(api: str, args: dict[str, Any]) -> str | None:
    """What API-Bank's level-3 EmailReminder refuses although its rule ignores the field
    (``content``): a time that does not parse, an empty content."""
    if api != "EmailReminder":
        return None
    import datetime

    try:
        datetime.datetime.strptime(args.get("time"), "%Y-%m-%d %H:%M:%S")  # type: ignore[arg-type]
    except Exception as exc:  # noqa: BLE001
        return str(exc)
    content = args.get("content")
    if isinstance(content, str) and content.strip() == "":
        return "Content should not be empty"
    return None


class Level3Server:
    """Level-3 calls against the recorded ones of one requirement.

    ``call`` is the judge's view: the recorded result the call is accepted as, or an
    exception saying none was recorded for it (what API-Bank's rules are applied to).
    ``serve`` is what the agent gets, and it must not tell a right call from a wrong
    one: a call that matches no recording is answered as the first recording of that
    API that no call of the episode has matched yet would be (the last one once all
    are matched), or — an API the requirement never called — as that API answered in
    another requirement (``stand_ins``); its own arguments stay in ``input``."""

    def __init__(self, spec: dict[str, Any]):
        self.recorded = spec.get("recorded_calls") or []
        self.stand_ins: dict[str, Any] = spec.get("stand_ins") or {}
        self.search = level3_searcher(spec.get("apis") or {}, spec.get("search") or {})
        self.matched: set[int] = set()  # recordings an earlier served call matched

    def serve(self, api: str, args: dict[str, Any]) -> dict[str, Any]:
        """The agent's answer (stateful: which recordings the episode has matched)."""
        result = self.call(api, args)
        if api == "ToolSearcher" or result.get("exception") != NOT_RECORDED:
            hit = self._recording_of(api, result)
            if hit is not None:
                self.matched.add(hit)
            return result
        mine = [i for i, rec in enumerate(self.recorded) if rec["api_name"] == api]
        free = [i for i in mine if i not in self.matched]
        if mine:
            shown = self.recorded[free[0] if free else mine[-1]]["result"]
        else:
            shown = self.stand_ins.get(api) or {"output": None, "exception": None}
        return {"api_name": api, "input": dict(args), "output": copy.deepcopy(shown.get("output")),
                "exception": shown.get("exception")}

    def _recording_of(self, api: str, result: dict[str, Any]) -> int | None:
        """The recording a served result came from (the first free one it is accepted as)."""
        fits = [i for i, rec in enumerate(self.recorded) if rec["api_name"] == api and api != "ToolSearcher"
                and check(api, result, rec["result"], level=3)[0]]
        free = [i for i in fits if i not in self.matched]
        return (free or fits)[0] if fits else None

    def call(self, api: str, args: dict[str, Any]) -> dict[str, Any]:
        if api == "ToolSearcher":
            keywords = args.get("keywords")
            inputs: dict[str, Any] = {"keywords": split_by_uppercase(keywords) if isinstance(keywords, str)
                                      else keywords}
            try:
                return {"api_name": api, "input": inputs, "output": self.search(keywords), "exception": None}
            except Exception as exc:  # noqa: BLE001  (API-Bank reports the failure as the exception)
                return {"api_name": api, "input": inputs, "output": None, "exception": str(exc)}
        problem = _lv3_refusal(api, args)
        if problem is not None:
            return {"api_name": api, "input": dict(args), "output": None, "exception": problem}
        for rec in self.recorded:
            if rec["api_name"] != api:
                continue
            result = rec["result"]
            candidate = {"api_name": api, "input": copy.deepcopy(args), "output": copy.deepcopy(result.get("output")),
                         "exception": result.get("exception")}
            if check(api, candidate, result, level=3)[0]:
                return candidate
        return {"api_name": api, "input": dict(args), "output": None, "exception": NOT_RECORDED}


class ApiBankEnvironment(Environment):
    def __init__(self, case: Case, limits: Limits = Limits(), trial: int = 0, agent: str = ""):
        super().__init__(case, limits, trial, agent)
        self.spec = case.spec
        self.level = int(self.spec["level"])
        self._callable: dict[str, ToolSpec] = {}
        if self.level == 3:
            self.server: Any = Level3Server(self.spec)
            defs = {"ToolSearcher": L3_TOOLSEARCHER, **(self.spec.get("apis") or {})}
            self._callable = {n: level3_tool(d) for n, d in defs.items()}
        else:
            self.server = fresh_world(self.spec, f"{case.id}/{trial}")
            self._callable = {n: tool_spec(d) for n, d in catalog().items()}
        for name, spec in self._callable.items():
            self._tools_by_name.setdefault(name, spec)

    def _reveal(self, output: Any) -> None:
        for item in output if isinstance(output, list) else [output]:
            name = item.get("name") if isinstance(item, dict) else None
            if isinstance(name, str) and name in self._callable and all(t.name != name for t in self.tools):
                self.tools.append(self._callable[name])

    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        if self.level == 3:
            result = self.server.serve(name, args)
        else:
            try:
                converted = convert_arguments(catalog()[name], copy.deepcopy(args))
            except CallRefused as exc:
                return f"Error: {exc}", ToolCallError.INVALID_ARGUMENTS.value
            result = self.server.call(name, converted)
        if name == "ToolSearcher":
            self._reveal(result.get("output"))
        return dump(result), None
