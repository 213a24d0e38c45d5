"""``unsolvable`` (``transforms.py``): an unsolvable variant of each kind (a needed tool removed, the
goals contradicted, a parameter the task says is not known) and its solvable control, which carries
the same kind of change, so that nothing but planning tells the two apart.
"""

from __future__ import annotations

import random

from ...schema import Case, ToolSpec
from ..base import Contradicts, OffersDistractors, Restates
from ..registry import get_family
from .spec import REFUSE_TOOL, Given, RobustSpec, Unsolvable
from .tool_edits import _alias, _alias_name, _cannot, _renamed, _unsupported

# (parameter, its description, the prefix of its values): plausible for any of the jobs
MISSING_PARAMS = (
    ("booking_reference", "The booking reference the customer was given.", "BR"),
    ("account_id", "The account id of the person this is done for.", "AC"),
    ("ticket_number", "The number of the work ticket this belongs to.", "TK"),
    ("employee_id", "The id of the employee who approved this work.", "EMP"),
    ("work_order", "The number of the work order this is recorded under.", "WO"),
    ("site_code", "The code of the site where the work is done.", "ST"),
)

def _with_param(tool: ToolSpec, param: str, text: str) -> ToolSpec:
    """The tool with one more required string parameter, named in its description as in its schema."""
    params = dict(tool.parameters)
    props = dict(params.get("properties") or {})
    props[param] = {"type": "string", "description": text}
    params["properties"] = props
    params["required"] = [*params.get("required", []), param]
    params.setdefault("type", "object")
    desc = tool.description
    words = text[:1].lower() + text[1:].rstrip(".")
    if "It takes no arguments." in desc:
        desc = desc.replace("It takes no arguments.", f"It takes one argument: {param}, {words}.")
    elif "Receives one argument: " in desc:
        head, _, rest = desc.partition("Receives one argument: ")
        first, dot, tail = rest.partition(". ")
        desc = f"{head}Receives two arguments: {first}; and {param}, {words}{dot}{tail}"
    else:
        desc = f"{desc.rstrip()} It requires {param}: {words}."
    return tool.model_copy(update={"description": desc, "parameters": params})


def _value(param: str, rng: random.Random) -> str:
    prefix = {p: v for p, _, v in MISSING_PARAMS}[param]
    return f"{prefix}-{rng.randrange(10000, 100000)}"


def _value_note(param: str, value: str) -> str:
    return f"The {param.replace('_', ' ')} to use is {value}."


def _unknown_note(param: str) -> str:
    return f"The {param.replace('_', ' ')} is not known."


def _notes(given: str, unknown: str, rng: random.Random) -> str:
    """Missing-info's two sentences (a value given, a parameter not known) in a random order."""
    return f"{given} {unknown}" if rng.random() < 0.5 else f"{unknown} {given}"


def _free_params(tools: list[ToolSpec], param: str) -> list[str]:
    """Missing-info's parameters other than ``param`` that no tool of the case takes."""
    taken = {p for t in tools for p in (t.parameters.get("properties") or {})}
    return [p for p, _, _ in MISSING_PARAMS if p != param and p not in taken]


def _free_param(case: Case, tools: list[ToolSpec], param: str, rng: random.Random) -> str:
    """One of ``_free_params``, drawn; a clear error when the case's tools take them all."""
    free = _free_params(tools, param)
    if not free:
        raise _cannot(case, "unsolvable:missing-info", "its tools already take every parameter missing-info "
                      f"can name ({', '.join(p for p, _, _ in MISSING_PARAMS)})")
    return rng.choice(free)

def _unsolvable(case: Case, tools: list[ToolSpec], needed: list[str], kind: str, rng: random.Random,
                spec: RobustSpec, taken: set[str]) -> tuple[Case, list[ToolSpec], Unsolvable, str | None]:
    """An unsolvable variant: (base, tools, why, a note for the task)."""
    if kind == "removal":  # a needed tool goes; a tool for another activity, under an unrelated name, comes
        gone = rng.choice(needed)
        out = [t for t in tools if t.name != gone]
        decoy = _decoy(case, out, gone, rng, spec, taken)
        if decoy is not None:
            out.insert(rng.randrange(len(out) + 1), decoy)
        return case, out, Unsolvable(kind="removal", removed_tool=gone,
                                     proof=f"the task needs {gone}, and no tool can do it"), None
    if kind == "contradiction":
        family = get_family(case.family)
        if not isinstance(family, Contradicts):
            raise _unsupported(case, "unsolvable:contradiction")
        changed, proof = family.contradict(case, rng)
        return changed, list(changed.tools), Unsolvable(kind="contradiction", proof=proof), None
    assert kind == "missing-info", kind  # parse_transforms admits only UNSOLVABLE_KINDS
    tool_name = rng.choice(needed)
    param, description, _ = rng.choice(MISSING_PARAMS)
    other = _free_param(case, tools, param, rng)  # the task gives a value, not for this one
    out = [_with_param(t, param, description) if t.name == tool_name else t for t in tools]
    # the required parameter is named as in the controls, as not known: the text names one
    # required parameter and one that no tool takes in both (issue #26: "a required parameter the
    # text never names" told variants from controls with balanced accuracy 0.65 on mixed suites)
    notes = _notes(_value_note(other, _value(other, rng)), _unknown_note(param), rng)
    return case, out, Unsolvable(kind="missing-info", missing_tool=tool_name, missing_param=param,
                                 proof=f"{tool_name} needs {param}, and the task says it is not known"), notes


def _control(case: Case, tools: list[ToolSpec], needed: list[str], kind: str, rng: random.Random,
             spec: RobustSpec, taken: set[str]) -> tuple[Case, list[ToolSpec], str | None]:
    """A solvable control carrying the same kind of change as an unsolvable variant of ``kind``."""
    if kind == "removal":  # a needed tool under an unrelated name: the text's names and the tools mismatch as often
        name = rng.choice(needed)
        alias = _alias_name(rng, taken)
        spec.aliases[alias] = name
        return case, _renamed(case, tools, name, alias, rng), None
    if kind == "contradiction":  # one more sentence from the same grammar, restating a constraint
        family = get_family(case.family)
        if not isinstance(family, Restates):
            return case, tools, None
        changed = family.restate(case, rng)
        return changed, list(changed.tools), None
    tool_name = rng.choice(needed)
    param, description, _ = rng.choice(MISSING_PARAMS)
    value = _value(param, rng)
    spec.given = Given(tool=tool_name, param=param, value=value)
    unknown = _free_param(case, tools, param, rng)  # not known, and no tool takes it
    return case, [_with_param(t, param, description) if t.name == tool_name else t for t in tools], \
        _notes(_value_note(param, value), _unknown_note(unknown), rng)


def _decoy(case: Case, tools: list[ToolSpec], gone: str, rng: random.Random, spec: RobustSpec,
           taken: set[str]) -> ToolSpec | None:
    """What takes a removed tool's place, under an unrelated name, so that the tool count and the
    names the text does not mention are as in the controls: a tool for an activity the task does
    not ask for (families with ``distractor_tools``), else a twin of another tool of the case."""
    family = get_family(case.family)
    if isinstance(family, OffersDistractors):
        found = family.distractor_tools(case, 1, rng)
        if not found:
            return None
        decoy = found[0].model_copy(update={"name": _alias_name(rng, taken)})
        spec.distractors.append(decoy.name)
        return decoy
    removed = next((t for t in case.tools if t.name == gone), None)
    arity = len(removed.parameters.get("required", [])) if removed is not None else None
    others = [t for t in tools if t.name != gone and t.name != REFUSE_TOOL]
    if not others:
        return None
    # a twin taking as many arguments as the removed tool, so the schemas' sizes stay as in controls
    same = [t for t in others if len(t.parameters.get("required", [])) == arity]
    original = rng.choice(same or others)
    name = _alias_name(rng, taken)
    spec.aliases[name] = original.name
    return _alias(case, original, name, rng)
