"""Realistic APB records for all six splits, in the format APB's Hugging Face files use.

Built from what APB's evaluation code reads (``evaluation/apb_eval``: every
``*_json`` field is JSON text, ``files`` a list of ``{"path", "type"}`` relative
to the data directory, ``planning_regime`` "Holistic" or "Step-wise") and from
the source datasets' trajectory shapes its legacy step-wise code handles: GAIA /
GTA / ToolBench dialogs with ``tool_calls`` and ``role: tool`` outputs, OpenCUA
steps whose ``action`` is a natural-language sentence and whose tools are
plain strings, FrameThinker turns with ``<think>``/``<action>`` text. It also
carries the rows the old importer mishandled: a tool listed twice,
``optional: false`` parameters, a family named like a category, images and an
over-long text file. The dataset itself is not reachable here; these rows are
written for the tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# A stand-in for the user's checkout of APB's code: only evaluation/apb_eval/prompts.py, in
# words written for these tests (planprobe ships none of APB's prompt texts).
STANDIN_APB_CODE = Path(__file__).resolve().parent / "apb_code"

PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _fn(name: str, description: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": props, "required": required}}}


GTA_TOOLS = [
    _fn("OCR", "Recognise the text in an image.", {"image": {"type": "string"}}, ["image"]),
    _fn("ImageDescription", "Describe an image.", {"image": {"type": "string"}}, ["image"]),
    _fn("Calculator", "Evaluate an arithmetic expression.", {"expression": {"type": "string"}}, ["expression"]),
    _fn("GoogleSearch", "Search the web.", {"query": {"type": "string"}, "k": {"type": "integer"}}, ["query"]),
]
TOOLBENCH_TOOLS = [
    {"name": "weather_forecast", "description": "Five-day forecast for a city.",
     "parameters": [{"name": "city", "type": "string", "optional": False},
                    {"name": "units", "type": "string", "optional": True}],
     "example": "weather_forecast(city='Lisbon')"},
    {"name": "event_search", "description": "Events in a city on a date.",
     "parameters": [{"name": "city", "type": "string", "optional": False},
                    {"name": "date", "type": "string", "optional": False}],
     "example": "event_search(city='Lisbon', date='2024-06-01')"},
    {"name": "weather_forecast", "description": "Five-day forecast for a city.",  # listed twice, as in the data
     "parameters": [{"name": "city", "type": "string", "optional": False}], "example": ""},
]
DISTRACTORS = [
    _fn("StockTicker", "Latest price of a stock symbol.", {"symbol": {"type": "string"}}, ["symbol"]),
    _fn("TranslateText", "Translate text between languages.", {"text": {"type": "string"}}, ["text"]),
]
OPENCUA_TOOLS = ["click(x, y)", "type(text)", "scroll(direction)", "hotkey(keys)"]


def _gaia_trajectory() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "How many more papers did Nature publish in 2020 than Science?"},
        {"role": "assistant", "content": "I will search for Nature's 2020 count first.",
         "tool_calls": [{"type": "function", "function": {"name": "GoogleSearch",
                                                          "arguments": _j({"query": "Nature 2020 articles"})}}]},
        {"role": "tool", "name": "GoogleSearch", "content": "Nature published 1,002 research articles in 2020."},
        {"role": "assistant", "content": "Now Science's count.",
         "tool_calls": [{"type": "function", "function": {"name": "GoogleSearch",
                                                          "arguments": _j({"query": "Science 2020 articles"})}}]},
        {"role": "tool", "name": "GoogleSearch", "content": "Science published 747 research articles in 2020."},
    ]


def _opencua_steps() -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": "Observation: Chrome shows the Google Account page.\n\nThought: open "
                                         "personal info.",
         "action": "Click on the 'Personal info' link in the left navigation pane."},
        {"role": "assistant", "content": "Observation: The Personal info page is open.\n\nThought: addresses are "
                                         "further down.",
         "action": "Scroll down on the Personal info page to reveal the Addresses section."},
    ]


def _framethinker_turns() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Which setting appears in most frames: indoor, outdoor or underground?"},
        {"role": "assistant", "content": "<think>I should classify a sample of frames.</think>"
                                         "<action>classify_environment(frames=[0, 620, 1240])</action>"},
        {"role": "tool", "content": "frame 0: indoor; frame 620: indoor; frame 1240: outdoor"},
    ]


def records() -> list[dict[str, Any]]:
    """18 rows: three per split, several sources, categories and families."""
    rows: list[dict[str, Any]] = []
    names = [t["function"]["name"] for t in GTA_TOOLS]
    for i, (cat, fam, src) in enumerate([("finance", "Visual Reasoning", "GTA"),
                                         ("travel", "Tool Use", "ToolBench"),
                                         ("research", "research", "GAIA")]):  # family == category: APB counts twice
        tools = TOOLBENCH_TOOLS if src == "ToolBench" else GTA_TOOLS
        rows.append({
            "id": f"hol-{i}", "split": "holistic_planning", "planning_regime": "Holistic", "task_family": fam,
            "task_category": cat, "source": src, "source_subset": "val",
            "query": "I want to buy a PS5 for each child in the photo; what is the total with 8.5% sales tax?",
            "tools_json": _j(tools), "tool_names_json": _j([t.get("name") or t["function"]["name"] for t in tools]),
            "files": [{"path": f"assets/Holistic/gta/image_{i}.png", "type": "image"}] if src == "GTA" else [],
            "plan": "Count the children with ImageDescription, search the price, compute the total.",
            "tool_chain_json": _j([
                {"name": "ImageDescription", "parameter_description": {"image": "image_0.png"}, "reason": "count"},
                {"name": "GoogleSearch", "parameter_description": {"query": "PS5 price"}, "reason": "price"},
                {"name": "Calculator", "parameter_description": {"expression": "n*price*1.085"}, "reason": "total"},
            ]),
        })
        rows.append({
            "id": f"hext-{i}", "split": "holistic_tool_extraneous", "planning_regime": "Holistic",
            "task_family": fam, "task_category": cat, "source": src,
            "query": "Find the sunset time in Lisbon tomorrow and check it will be dry.",
            "tools_json": _j(GTA_TOOLS + DISTRACTORS), "tool_names_json": _j(names + ["StockTicker", "TranslateText"]),
            "extraneous_tool_names_json": _j(["StockTicker", "TranslateText"]),
            "files": [{"path": "assets/Holistic/notes/long_notes.txt", "type": "text"}] if i == 0 else [],
            "plan": "Search the sunset time, then the forecast.",
            "tool_chain_json": _j([{"name": "GoogleSearch", "parameter_description": {"query": "sunset Lisbon"},
                                    "reason": "time"}]),
        })
        rows.append({
            "id": f"unsolv-{i}", "split": "holistic_unsolvable", "planning_regime": "Holistic", "task_family": fam,
            "task_category": cat, "source": src,
            "query": "Read the total on the receipt in the attached photo and add a 15% tip.",
            "tools_json": _j(GTA_TOOLS), "tool_names_json": _j(names),
            "unsolvable_type": ["visual_information_inaccessible", "missing_capability", "constraint_conflict"][i],
            "files": [], "plan": "", "tool_chain_json": "[]",
        })
        traj = _gaia_trajectory()
        rows.append({
            "id": f"sw-{i}", "split": "step_wise_planning", "planning_regime": "Step-wise", "task_family": fam,
            "task_category": cat, "source": ["GAIA", "OpenCUA", "FrameThinker"][i], "prediction_horizon": i + 1,
            "query": traj[0]["content"] if i == 0 else "Set my work address in my Google Account.",
            "tools_json": _j(GTA_TOOLS if i == 0 else OPENCUA_TOOLS if i == 1 else []),
            "tool_names_json": _j(names if i == 0 else OPENCUA_TOOLS if i == 1 else []),
            "trajectory_prefix_json": _j(traj[:3] if i == 0 else _opencua_steps()[:1] if i == 1
                                         else _framethinker_turns()),
            "ground_truth_steps_json": _j(traj[3:5] if i == 0 else _opencua_steps()[1:] if i == 1 else [
                {"role": "assistant", "content": "<think>Most sampled frames are indoor.</think>"
                                                 "<action>answer(choice='indoor')</action>"}]),
            "reference_remaining_steps_json": _j([{"role": "assistant", "content": "1002 - 747 = 255."}]
                                                 if i == 0 else []),
            "files": ([{"path": f"assets/Step-wise/opencua/s_{k}.png", "type": "image"} for k in range(2)]
                      if i == 1 else []),
        })
        rows.append({
            "id": f"swext-{i}", "split": "step_wise_tool_extraneous", "planning_regime": "Step-wise",
            "task_family": fam, "task_category": cat, "source": "GAIA", "prediction_horizon": 1,
            "query": traj[0]["content"], "tools_json": _j(GTA_TOOLS + DISTRACTORS),
            "tool_names_json": _j(names + ["StockTicker", "TranslateText"]),
            "extraneous_tool_names_json": _j(["StockTicker", "TranslateText"]),
            "trajectory_prefix_json": _j(traj[:3]), "ground_truth_steps_json": _j(traj[3:4]),
            "reference_remaining_steps_json": _j(traj[4:]),
        })
        replacement = _fn("MathematicalExpressionEvaluator", "Evaluates a mathematical expression exactly.",
                          {"expr": {"type": "string"}}, ["expr"])
        rows.append({
            "id": f"swbrk-{i}", "split": "step_wise_tool_broken", "planning_regime": "Step-wise",
            "task_family": fam, "task_category": cat, "source": "GTA", "prediction_horizon": 1,
            "query": "I want to buy a PS5 for each child in the photo; what is the total with 8.5% sales tax?",
            "tools_json": _j(GTA_TOOLS + [replacement]), "tool_names_json": _j(names + [
                "MathematicalExpressionEvaluator"]),
            "trajectory_prefix_json": _j([
                {"role": "user", "content": "I want to buy a PS5 for each child in the photo ..."},
                {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
                    "name": "Calculator", "arguments": _j({"expression": "3*499*1.085"})}}]},
                {"role": "tool", "name": "Calculator", "content": "Error: Calculator is unavailable (503)."}]),
            "ground_truth_steps_json": _j([{"role": "assistant", "content": "Use the replacement.", "tool_calls": [
                {"type": "function", "function": {"name": "MathematicalExpressionEvaluator",
                                                  "arguments": _j({"expr": "3*499*1.085"})}}]}]),
            "reference_remaining_steps_json": "[]", "broken_tool_name": "Calculator",
            "replacement_tool_json": _j(replacement),
        })
    return rows


def write_split_files(root: Path) -> tuple[Path, list[Path]]:
    """APB's layout: ``root/data/<split>.jsonl`` plus the referenced assets; returns (root, files)."""
    data = root / "data"
    data.mkdir(parents=True, exist_ok=True)
    by_split: dict[str, list[dict[str, Any]]] = {}
    for r in records():
        by_split.setdefault(r["split"], []).append(r)
    paths = []
    for split, rows in by_split.items():
        p = data / f"{split}.jsonl"
        p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        paths.append(p)
    for r in records():
        for f in r.get("files") or []:
            target = root / f["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            if f["type"] == "image":
                target.write_bytes(PNG_1PX)
            else:
                target.write_text("note " * 3000, encoding="utf-8")  # 15,000 chars: APB cuts at 12,000
    return root, paths
