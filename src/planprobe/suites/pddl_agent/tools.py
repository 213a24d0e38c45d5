"""The domain's actions as tools: one ``ToolSpec`` per action schema.

A tool's parameters are the action's parameters, as string properties whose
``enum`` lists the objects that can fill them: objects of the parameter's type,
narrowed by the action's unary *static* preconditions (predicates no action
changes — Logistics' untyped ``(truck ?truck)`` is how that domain says
"type"). So a schema-valid call always names objects of the right kind, and
what remains to get right is the planning: which action, in which state.
A tool whose parameter no object can fill is left out (it could never run).
"""

from __future__ import annotations

import random
import re
from functools import lru_cache

from ...pddl.model import Action, Atom, Domain, Problem
from ...schema import ToolSpec

_BAD_TOOL_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_BAD_KEY_CHARS = re.compile(r"[^A-Za-z0-9_.-]")


def tool_names(domain: Domain) -> dict[str, str]:
    """Action name → tool name (the action's own name when it is a valid tool name)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for a in domain.actions:
        base = _BAD_TOOL_CHARS.sub("_", a.name)[:64] or "action"
        name, k = base, 2
        while name in used:
            name = f"{base[:58]}_{k}"
            k += 1
        used.add(name)
        out[a.name] = name
    return out


def parameter_keys(action: Action) -> list[str]:
    """The tool's argument names: the PDDL parameters without '?' (``?ob`` → ``ob``)."""
    keys: list[str] = []
    for i, p in enumerate(action.parameters, 1):
        key = _BAD_KEY_CHARS.sub("_", p.name.lstrip("?"))[:64] or f"arg{i}"
        while key in keys:
            key += f"_{i}"
        keys.append(key)
    return keys


def parameter_domains(problem: Problem, action: Action, _index: dict | None = None) -> list[list[str]]:
    """For each parameter, the objects that can fill it (problem order)."""
    index = _index if _index is not None else _object_index(problem)
    static = problem.domain.static_predicates
    out = []
    for p in action.parameters:
        objs = index["types"].get(p.type)
        if objs is None:
            objs = index["types"][p.type] = [o.name for o in problem.all_objects
                                            if problem.domain.is_subtype(o.type, p.type)]
        for lit in action.precondition:
            a = lit.atom
            if not lit.is_equality and a.predicate in static and a.args == (p.name,):
                having = index["unary"].get(a.predicate, frozenset())
                objs = [o for o in objs if (o in having) == lit.positive]
        out.append(objs)
    return out


def _object_index(problem: Problem) -> dict:
    unary: dict[str, set[str]] = {}
    for a in problem.init:
        if len(a.args) == 1:
            unary.setdefault(a.predicate, set()).add(a.args[0])
    return {"types": {}, "unary": unary}


@lru_cache(maxsize=1024)
def _action_text(action: Action) -> str:
    return _schema_text(action, parameter_keys(action))


def _schema_text(action: Action, keys: list[str]) -> str:
    names = {p.name: k for p, k in zip(action.parameters, keys)}

    def atom(a: Atom) -> str:
        return f"({' '.join((a.predicate, *(names.get(x, x) for x in a.args)))})"

    def listing(atoms) -> str:
        return ", ".join(atoms) or "nothing"

    pre = [atom(lit.atom) if lit.positive else f"(not {atom(lit.atom)})" for lit in action.precondition]
    return (f"{action.name}({', '.join(keys)}). Preconditions: {listing(pre)}. "
            f"Makes true: {listing([atom(a) for a in action.add_effects])}. "
            f"Makes false: {listing([atom(a) for a in action.del_effects])}.")


def action_tools(problem: Problem) -> list[ToolSpec]:
    """The tools of a problem, in the domain's action order."""
    names = tool_names(problem.domain)
    index = _object_index(problem)
    tools = []
    for action in problem.domain.actions:
        keys = parameter_keys(action)
        domains = parameter_domains(problem, action, index)
        if any(not d for d in domains):
            continue
        props = {k: {"type": "string", "enum": d, "description": f"{p.name.lstrip('?')} (an object id)"}
                 for k, d, p in zip(keys, domains, action.parameters)}
        params = {"type": "object", "properties": props, "required": keys, "additionalProperties": False}
        desc = (f"Perform the action {_action_text(action)} The call fails, changing nothing, "
                "when a precondition does not hold.")
        tools.append(ToolSpec(name=names[action.name], description=desc, parameters=params))
    return tools


_DESCRIPTION = re.compile(r"^Perform the action [^\s(]+\(([^)]*)\)\. Preconditions: (.*?)\. Makes true: (.*?)\. "
                          r"Makes false: (.*?)\. (.*)$", re.DOTALL)


def aliased(tool: ToolSpec, name: str, rng: random.Random) -> ToolSpec:
    """``tool`` renamed (robustness variants): the description no longer names the action and
    lists its preconditions and effects in a shuffled order; the schema is unchanged."""
    m = _DESCRIPTION.match(tool.description)
    if m is None:
        return tool.model_copy(update={"name": name})
    params, *lists, tail = m.groups()

    def shuffled(text: str) -> str:
        items = text.split(", ")
        rng.shuffle(items)
        return ", ".join(items)

    pre, add, dele = (shuffled(x) for x in lists)
    desc = f"Perform this action on ({params}). Preconditions: {pre}. Makes true: {add}. Makes false: {dele}. {tail}"
    return tool.model_copy(update={"name": name, "description": desc})
