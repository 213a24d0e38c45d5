"""The case page's timeline (view/case.py): calls attached to the messages that made them, calls no
message names placed by their iteration, the formal labels on the steps they name, the modular
agent's four sections, PMC's graph, and the task cut at the evidence spans."""

from __future__ import annotations

from planprobe.view.case import task_pieces, timeline


def call(index: int, name: str, step: int, call_id: str | None = None, **extra) -> dict:
    return {"index": index, "name": name, "arguments": "{}", "result": f"ok {name}", "step": step,
            "call_id": call_id, **extra}


def test_calls_sit_with_their_messages_and_labels_on_their_steps():
    trace = {
        "case_id": "c1", "agent": "modular",
        "messages": [
            {"role": "user", "content": "do it", "step": 0},
            {"role": "assistant", "content": "<memory>m1</memory><reflection>r1</reflection><plan>p1</plan>"
                                             "<action>a</action>", "step": 1,
             "tool_calls": [{"id": "c0", "type": "function", "function": {"name": "a", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c0", "content": "ok a", "step": 1},
            {"role": "assistant", "content": "<memory>m2</memory><plan>p2</plan><action>b</action>", "step": 3},
        ],
        "tool_calls": [call(0, "a", 1, "c0"), call(1, "b", 2, error="unknown_tool")],
        "final_answer": "done", "status": "completed",
    }
    labels = {"critical": {"step": 2}, "pnr": {"step": 2}, "budget_pnr": {"step": 3}}
    items = timeline(trace, labels)
    kinds = [(i["kind"], i["role"] if i["kind"] == "message" else None) for i in items]
    # the tool message's result is shown on its call; call 1 (no message names it) sits after iteration 1
    assert kinds == [("message", "user"), ("message", "assistant"), ("call", None), ("message", "assistant"),
                     ("stop", None)]
    first = items[1]
    assert first["calls"][0]["name"] == "a" and first["calls"][0]["result"] == "ok a"
    assert first["sections"] == {"memory": "m1", "reflection": "r1", "plan": "p1", "action": "a"}
    assert items[3]["sections"]["memory"] == "m2"
    assert items[2]["name"] == "b" and items[2]["error"] == "unknown_tool" and items[2]["marks"] == ["E", "PNR"]
    assert items[-1]["step_label"] == 3 and items[-1]["marks"] == ["budget PNR"]  # T+1: the stop


def test_task_pieces_merge_overlapping_spans():
    assert task_pieces("abcdefgh", [[5, 7], [1, 3], [2, 4]]) == [("a", False), ("bcd", True), ("e", False),
                                                                ("fg", True), ("h", False)]
    assert task_pieces("abc", []) == [("abc", False)]
