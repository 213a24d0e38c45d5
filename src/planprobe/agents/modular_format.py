"""Reading a modular agent's reply: memory, reflection, plan, action (AgentDebug's rollout format).

AgentDebug's rollout prompts (seed 003, Figs. 17–19) ask for ``<memory>``,
``<reflection>``, ``<plan>`` and ``<action>`` sections, and ``<answer>`` for a final
answer in the tool-use setting, with actions written ``tool: NAME parameters: {...}``.
Replies from real models drift, so this reader is lenient: tags in any case, a
missing closing tag (the section runs to the next tag), the official code's aliases
(``<memory_recall>`` for memory, ``<think>`` for plan), ``Memory:``-style headings
when there are no tags, and actions as ``tool: NAME parameters: {...}``,
``NAME({...})``, ``NAME {...}``, ``[NAME]`` or a JSON object
``{"tool": ..., "parameters": ...}``. An action wins over an answer given in the
same reply (it is what the agent did first). Model text is only ever parsed as
data (JSON), never evaluated.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..lenient_json import braced_spans, loads

SECTIONS = ("memory", "reflection", "plan", "action", "answer")
_ALIASES = {"memory_recall": "memory", "think": "plan", "planning": "plan", "final_answer": "answer"}
_TAG = re.compile(r"<\s*(/?)\s*(memory_recall|memory|reflection|planning|plan|think|action|final_answer|answer)\s*>",
                  re.IGNORECASE)
_HEADING = re.compile(r"^[ \t#*]*(memory|reflection|plan|action|final answer|answer)[ \t*]*[:：][ \t*]*", re.IGNORECASE | re.MULTILINE)


@dataclass
class ModularReply:
    sections: dict[str, str] = field(default_factory=dict)
    tool: str | None = None
    arguments: str = "{}"
    answer: str | None = None
    problem: str | None = None  # why no action and no answer could be read


def _by_tags(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    marks = list(_TAG.finditer(text))
    for i, m in enumerate(marks):
        if m.group(1):  # a closing tag
            continue
        name = m.group(2).lower()
        name = _ALIASES.get(name, name)
        end = len(text)
        for later in marks[i + 1:]:
            end = later.start()
            break
        if name not in out or not out[name]:
            out[name] = text[m.end():end].strip()
    return out


def _by_headings(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    marks = list(_HEADING.finditer(text))
    for i, m in enumerate(marks):
        name = m.group(1).lower()
        name = "answer" if name == "final answer" else name
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out.setdefault(name, text[m.end():end].strip())
    return out


def _json_object(text: str) -> str | None:
    """The first balanced {...} (unbalanced: the rest, passed on as sent; the environment reports it)."""
    spans = braced_spans(text, limit=1)
    return spans[0] if spans else None


def _clean_name(text: str) -> str:
    name = text.strip().splitlines()[0] if text.strip() else ""
    name = re.sub(r"^(?:action|tool)\s*[:：]\s*", "", name.strip(), flags=re.IGNORECASE)
    name = name.split("(")[0].split("{")[0]
    name = re.split(r"\s+parameters?\s*[:：]", name, flags=re.IGNORECASE)[0]
    return name.strip().strip("`'\" *[]<>").strip()


def parse_action(text: str) -> tuple[str | None, str]:
    """(tool name, arguments as sent) from an action section; (None, "") when there is none."""
    body = text.strip()
    fence = re.match(r"^```(?:json)?\s*(.*?)\s*```$", body, re.DOTALL)
    if fence:
        body = fence.group(1).strip()
    if not body or body.lower() in ("none", "n/a"):
        return None, ""
    if body.startswith("{"):
        try:
            obj = loads(body)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and isinstance(obj.get("tool") or obj.get("name"), str):
            params = obj.get("parameters", obj.get("arguments", {}))
            return str(obj.get("tool") or obj.get("name")), params if isinstance(params, str) else json.dumps(params)
    m = re.search(r"tool\s*[:：]\s*(.+?)(?:\s+parameters?\s*[:：]\s*(.*))?$", body, re.IGNORECASE | re.DOTALL)
    if m:
        name = _clean_name(m.group(1))
        args = _json_object(m.group(2) or "") if m.group(2) else None
        return (name or None), (args if args is not None else "{}")
    name = _clean_name(body)
    args = _json_object(body[len(body.split("{")[0]):]) if "{" in body else None
    return (name or None), (args if args is not None else "{}")


def parse_modular(reply: str) -> ModularReply:
    text = reply or ""
    sections = _by_tags(text)
    if not any(sections.get(k) for k in ("action", "answer")):
        for k, v in _by_headings(text).items():
            sections.setdefault(k, v)
            if not sections[k]:
                sections[k] = v
    out = ModularReply(sections={k: sections.get(k, "") for k in SECTIONS})
    if sections.get("action"):
        tool, args = parse_action(sections["action"])
        if tool:
            out.tool, out.arguments = tool, args
            return out
    if "answer" in sections:
        out.answer = sections["answer"]
        return out
    out.problem = ("an <action> section without a tool name" if sections.get("action")
                   else "no <action> and no <answer> section")
    return out
