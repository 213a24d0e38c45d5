"""APB mode end to end: APB's records -> import -> run -> judge --style apb -> APB's scores.

The tested model and the judge are real HTTP servers on loopback (scripted), so
the requests planprobe sends are checked as APB sends them: APB's system and
user messages, JSON mode, images as image content parts. The scores are checked
against an independent re-implementation of APB's ``score()`` written here, and
— when the official repository is mirrored on this machine — against APB's own
code (prompts, messages and scores).

planprobe ships none of APB's prompt texts; these tests point it at a stand-in
prompts.py written for them (``apb_code/``, same names and answer skeletons,
other words), and at APB's own file when the mirror is present.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from apb_fixture import STANDIN_APB_CODE, records, write_split_files

from helpers import planprobe_here
from http_faults import ScriptedServer, chat_reply
from planprobe.errors import PlanprobeError
from planprobe.importers.apb_cases import ImportTally, iter_apb_protocol
from planprobe.importers.apb_prompts import PROMPTS_FILE, load
from planprobe.llm_judge.apb import parse_json_object
from planprobe.llm_judge.apb_score import collisions, score, scores_json
from planprobe.models.local import render_chatml
from planprobe.models.openai_backend import OpenAIModel
from planprobe.schema import Message
from planprobe.suites.io import load_suite
from planprobe.suites.judged.apb_format import (
    SPLITS,
    dumps,
    judge_payload,
    judge_system_prompt,
)

MIRROR = Path("/work/.mirror/Mikivishy+AgentPlanningBenchmark/repo")
STANDIN = STANDIN_APB_CODE  # a stand-in for APB's checkout (its prompts.py only)
PROMPTS = load(STANDIN)
INSTRUCTION_NAMES = {"holistic_planning": "HOLISTIC_INSTRUCTION",
                     "holistic_tool_extraneous": "HOLISTIC_TOOL_EXTRANEOUS_INSTRUCTION",
                     "holistic_unsolvable": "UNSOLVABLE_INSTRUCTION", "step_wise_planning": "STEP_WISE_INSTRUCTION",
                     "step_wise_tool_extraneous": "STEP_WISE_TOOL_EXTRANEOUS_INSTRUCTION",
                     "step_wise_tool_broken": "STEP_WISE_TOOL_BROKEN_INSTRUCTION"}


# ---------------------------------------------------------------------------
# An independent APB score(): plain loops and exact fractions
# ---------------------------------------------------------------------------


def independent_score(rows: list[dict[str, Any]]) -> dict[str, tuple[int, Any, Any]]:
    members: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row.get("split") not in SPLITS:
            continue
        members["overall"].append(row)
        for dim in ("split", "planning_regime", "task_family", "task_category"):
            value = row.get(dim)
            if value:  # the same record joins a group once per key that names it
                members[str(value)].append(row)
    out = {}
    for name, group in members.items():
        correct, grades = [], []
        for row in group:
            j = row.get("judgement")
            if type(j) is not dict:
                continue
            if "is_correct" in j:
                correct.append(1 if j["is_correct"] else 0)
            if type(j.get("grade")) in (int, float, bool):
                grades.append(Fraction(j["grade"]))
        out[name] = (len(group), Fraction(sum(correct), len(correct)) if correct else None,
                     sum(grades) / len(grades) if grades else None)
    return out


def assert_same(summary: dict[str, Any], expected: dict[str, tuple[int, Any, Any]]) -> None:
    assert set(summary["groups"]) == set(expected)
    for name, (n, acc, grade) in expected.items():
        g = summary["groups"][name]
        assert g["records"] == n, name
        for got, want in ((g["accuracy"], acc), (g["average_grade"], grade)):
            assert (got is None) == (want is None), name
            if want is not None:
                assert got == pytest.approx(float(want), abs=1e-12), name


# ---------------------------------------------------------------------------
# Scripted tested model and judge
# ---------------------------------------------------------------------------

GOOD = {"holistic": '{"plan": "count, search, compute", "tool_chain": [{"name": "GoogleSearch", '
                    '"parameter_description": {"query": "PS5 price"}, "reason": "price"}]}',
        "unsolvable": '{"status": "REJECT", "reason": "the photo is not available"}',
        "step": '{"predicted_steps": [{"thought": "next", "action": "search Science", "tool": "GoogleSearch", '
                '"arguments": {"query": "Science 2020 articles"}}]}'}


def _user_text(body: dict) -> str:
    content = body["messages"][1]["content"]
    return content if isinstance(content, str) else content[0]["text"]


def scripted_tested(index: int, body: dict, headers: dict):
    """Answers APB's prompt well for ids ending in 0 or 2, badly for those ending in 1."""
    payload = json.loads(_user_text(body))
    rid = payload["id"]
    kind = "unsolvable" if rid.startswith("unsolv") else "holistic" if rid.startswith("h") else "step"
    return chat_reply(GOOD[kind] if not rid.endswith("1") else "I am not sure.")


def judge_reply(payload: dict) -> str:
    """APB-shaped judgements in the shapes judges really send: fenced, with prose, missing fields."""
    rid, answer = payload["id"], payload["model_response"]
    good = answer.startswith("{")
    body = {"is_correct": good, "grade": 1.0 if good else 0.2, "error_list": [0, 0, 0, 0, 0, int(not good)],
            "reasoning": "ok" if good else "no plan"}
    if rid == "hol-2":
        return "```json\n" + json.dumps(body) + "\n```"
    if rid == "sw-0":
        return "Here is my verdict: " + json.dumps(body) + " Thanks."
    if rid == "swext-2":
        return json.dumps({"grade": 0.6, "reasoning": "no is_correct key"})  # counted in grade only
    if rid == "swbrk-2":
        return json.dumps({"is_correct": True, "grade": True})  # a JSON true grade counts as 1, as in Python
    if rid == "hext-2":
        return "I cannot decide."  # APB's reader fails: kept out, counted
    return json.dumps(body)


def scripted_judge(index: int, body: dict, headers: dict):
    return chat_reply(judge_reply(json.loads(body["messages"][1]["content"])))


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    """The command line in this process (helpers.planprobe_here): output, files and exit codes are checked."""
    return planprobe_here(*args, env={"PLANPROBE_APB_CODE": str(STANDIN), "OPENAI_API_KEY": "test-key", **env})


@pytest.fixture()
def apb_data(tmp_path):
    return write_split_files(tmp_path / "apb")


# ---------------------------------------------------------------------------
# End to end
# ---------------------------------------------------------------------------


def test_import_run_judge_score_end_to_end(tmp_path, apb_data):
    root, files = apb_data
    suite = tmp_path / "suite.jsonl"
    r = _cli("import", "apb", *map(str, files), "-o", str(suite), "--data-dir", str(root))
    assert r.returncode == 0, r.stderr
    err = " ".join(r.stderr.split())
    assert "wrote 18 APB cases" in err and "3 image(s) attached" in err
    assert "1 text file(s) cut at 12000 characters as APB does (3000 characters left out in all)" in err
    cases = load_suite(suite)
    assert len(cases) == 18 and all(c.tools == [] and c.system == PROMPTS["PREDICT_SYSTEM"] for c in cases)
    assert all(c.meta.generator["apb_prompts_sha256"] == PROMPTS.sha256 for c in cases)
    assert f"(sha256 {PROMPTS.sha256[:12]})" in err

    cache = tmp_path / "cache.sqlite"
    by_id = {r["id"]: r for r in records()}
    with ScriptedServer(scripted_tested) as tested:
        r = _cli("run", str(suite), "--model", "openai:tested", "--base-url", tested.url, "--out",
                 str(tmp_path / "run"), "-q", "--cache-path", str(cache), "--max-tokens", "4096")
        assert r.returncode in (0, 1), r.stderr
        requests = list(tested.requests)
    assert len(requests) == 18  # one call per record: nothing executed, no second turn
    for body in requests:  # APB's request: no tools and no seed (APB sends none)
        assert body["response_format"] == {"type": "json_object"} and "tools" not in body and "seed" not in body
        assert body["messages"][0] == {"role": "system", "content": PROMPTS["PREDICT_SYSTEM"]}
        payload = json.loads(_user_text(body))
        assert payload["instruction"] == PROMPTS[INSTRUCTION_NAMES[by_id[payload["id"]]["split"]]]
    with_images = [b for b in requests if isinstance(b["messages"][1]["content"], list)]
    assert sorted(len(b["messages"][1]["content"]) - 1 for b in with_images) == [1, 2]
    assert all(p["image_url"]["url"].startswith("data:image/png;base64,")
               for b in with_images for p in b["messages"][1]["content"][1:])

    with ScriptedServer(scripted_judge) as judge:
        r = _cli("judge", str(tmp_path / "run"), "--style", "apb", "--judge-model", "openai:judge", "--base-url",
                 judge.url, "--cache-path", str(cache), "--scores", str(tmp_path / "scores.json"))
        assert r.returncode == 0, r.stderr
        judge_requests = list(judge.requests)
    assert len(judge_requests) == 18
    for body in judge_requests:  # the stand-in's judge prompt for the record's split
        record = by_id[json.loads(body["messages"][1]["content"])["id"]]
        assert body["messages"][0]["content"] == judge_system_prompt(record, PROMPTS.texts)
        assert body["messages"][0]["content"].startswith("[stand-in]")
    assert all(b["temperature"] == 0.0 and b["max_tokens"] == 2048 and b["response_format"] ==
               {"type": "json_object"} for b in judge_requests)
    err = " ".join(r.stderr.split())
    assert "1 judge repl(ies) APB's runner cannot read or write" in err and "judged 17 new record(s)" in err
    # the progress bar shows the accuracy APB scores: swext-2 (no is_correct) is left out, not counted wrong
    assert "accuracy 62.5%" in err

    rows = [json.loads(x) for x in (tmp_path / "run" / "apb_judgements.jsonl").read_text().splitlines()]
    assert len(rows) == 17 and set(records()[0]) <= set(rows[0])  # every APB field kept
    assert all({"tested_model", "model_response", "judge_model", "judgement"} <= set(row) for row in rows)
    # model ids as APB writes them (the id sent to the endpoint), so APB's resume skips these rows
    assert {(row["tested_model"], row["judge_model"]) for row in rows} == {("tested", "judge")}
    assert all(row["planprobe"]["judge_prompts_sha256"] == row["planprobe"]["prompts_sha256"] == PROMPTS.sha256
               for row in rows)
    summary = json.loads((tmp_path / "scores.json").read_text())
    assert_same(summary, independent_score(rows))
    assert summary["groups"]["research"]["records"] == 2 * sum(r["task_category"] == "research" for r in rows)
    # 17 judged (hext-2's reply was unreadable); swext-2's judgement has no is_correct; of the other
    # 16, the six ids ending in 1 answered badly
    assert summary["groups"]["overall"]["accuracy"] == pytest.approx(10 / 16)

    show = _cli("show", str(tmp_path / "run"))
    shown_text = " ".join(show.stdout.split())
    assert show.returncode in (0, 1) and "APB judged by judge: accuracy overall 62.5% (n=17)" in shown_text
    assert f"APB prompts sha256 {PROMPTS.sha256[:12]};" in shown_text
    shown = json.loads(_cli("show", str(tmp_path / "run"), "--json").stdout)
    assert shown["apb_scores"] == {"judge": summary}
    r = _cli("report", str(tmp_path / "run"), "-o", str(tmp_path / "report.html"))
    assert r.returncode == 0 and "APB judged by judge: accuracy overall 62.5% (n=17)" in (
        tmp_path / "report.html").read_text()
    again = _cli("apb", "score", str(tmp_path / "run" / "apb_judgements.jsonl"), "--json")
    assert again.returncode == 0 and again.stdout == scores_json(summary)

    # Re-judging the prediction file calls no tested model; the same judge replies from the cache
    preds = tmp_path / "run" / "apb_predictions.jsonl"
    assert len(preds.read_text().splitlines()) == 18
    with ScriptedServer(scripted_judge) as judge:
        r = _cli("judge", str(preds), "--style", "apb", "--judge-model", "openai:judge", "--base-url", judge.url,
                 "--no-cache", "--out", str(tmp_path / "j2.jsonl"), "--json", "-q")
        assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == summary


def test_scores_match_apb_on_hand_made_judgements():
    rows = []
    for i, r in enumerate(records()):
        j: Any = {"is_correct": i % 3 == 0, "grade": [1.0, 0.4, 0.0][i % 3]}
        if i == 4:
            j = "not an object"  # counted in records, in neither mean
        if i == 5:
            j = {"grade": 0.8}
        rows.append({**r, "judgement": j})
    rows.append({**records()[0], "split": "holistic_guessing", "judgement": {"is_correct": True}})  # never scored
    summary = score(rows)
    assert summary["total_records"] == 18
    assert_same(summary, independent_score(rows))
    assert any("research" in note and "twice" in note for note in collisions(rows))


def test_apb_reader_reads_what_apb_reads():
    assert parse_json_object('```json\n{"grade": 1.0}\n```') == {"grade": 1.0}
    assert parse_json_object('verdict: {"a": {"b": 1}} done') == {"a": {"b": 1}}
    assert parse_json_object("[1, 2]") == {"value": [1, 2]}
    with pytest.raises(ValueError):
        parse_json_object("no json here")


def test_the_task_is_apbs_user_message_unclipped(tmp_path, apb_data):
    root, files = apb_data
    cases = {c.id: c for c in iter_apb_protocol(files, root, prompts=PROMPTS)}
    by_id = {r["id"]: r for r in records()}
    for case in cases.values():
        payload = json.loads(case.task)
        record = by_id[payload["id"]]
        assert payload["available_tools"] == json.loads(record["tools_json"])  # every tool, both copies
        if record["planning_regime"] == "Step-wise":
            assert payload["trajectory_prefix"] == json.loads(record["trajectory_prefix_json"])
    opencua = json.loads(cases["apb-sw-1"].task)
    assert opencua["trajectory_prefix"][0]["action"].startswith("Click on the 'Personal info' link")
    frames = json.loads(cases["apb-sw-2"].task)
    assert "<action>classify_environment(frames=[0, 620, 1240])</action>" in frames["trajectory_prefix"][1]["content"]
    tb = json.loads(cases["apb-hol-1"].task)["available_tools"]
    assert [t["name"] for t in tb] == ["weather_forecast", "event_search", "weather_forecast"]
    assert tb[1]["parameters"][1] == {"name": "date", "type": "string", "optional": False}
    gaia = json.loads(cases["apb-sw-0"].task)["trajectory_prefix"]
    assert gaia[2] == {"role": "tool", "name": "GoogleSearch",
                       "content": "Nature published 1,002 research articles in 2020."}


def test_images_are_content_parts_or_a_visible_note(tmp_path, apb_data):
    root, files = apb_data
    from planprobe.suites.judged.environment import JudgedEnvironment

    case = next(c for c in iter_apb_protocol(files, root, prompts=PROMPTS) if c.id == "apb-sw-1")
    env = JudgedEnvironment(case)
    message = env.user_message()
    assert len(message.parts or []) == 2
    sent = OpenAIModel.request_messages(_openai(), [message])[0]
    assert sent["content"][0] == {"type": "text", "text": case.task} and len(sent["content"]) == 3
    assert "[2 attached image(s) not shown: this model reads text only]" in render_chatml([message], None)
    env.log(message)
    assert "base64" not in env.trace.messages[0].model_dump_json()  # the trace keeps path and hash only
    (root / "assets/Step-wise/opencua/s_1.png").write_bytes(b"changed")
    message = JudgedEnvironment(case).user_message()
    assert len(message.parts or []) == 1 and "[Missing referenced file: assets/Step-wise/opencua/s_1.png]" in (
        message.content or "")


def _openai() -> OpenAIModel:
    model = OpenAIModel.__new__(OpenAIModel)
    model.tool_result_role = "tool"
    return model


def test_without_data_dir_files_are_named_missing_as_apb_does(apb_data):
    _, files = apb_data
    tally = ImportTally()
    cases = list(iter_apb_protocol(files, None, tally=tally, prompts=PROMPTS))
    assert tally.missing_files == 4 and tally.images == 0
    ctx = json.loads(next(c for c in cases if c.id == "apb-hol-0").task)["file_context"]
    assert ctx == "[Missing referenced file: assets/Holistic/gta/image_0.png]"
    assert any("4 of 4 referenced file(s) not available (no --data-dir)" in n for n in tally.notes(None))


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_bad_rows_name_file_line_field_and_skipping_counts(tmp_path):
    rows = records()[:4]
    lines = [json.dumps(r) for r in rows]
    lines[1] = json.dumps({**rows[1], "split": "holistic_guessing"})
    lines[2] = "{not json"
    lines[3] = json.dumps({**rows[3], "tools_json": "[{broken"})
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    r = _cli("import", "apb", str(bad), "-o", str(tmp_path / "x.jsonl"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{bad}:2: field 'split': unknown split 'holistic_guessing'" in " ".join(r.stderr.split())
    r = _cli("import", "apb", str(bad), "-o", str(tmp_path / "y.jsonl"), "--skip-invalid")
    err = " ".join(r.stderr.split())
    assert r.returncode == 0 and "wrote 1 APB cases" in err and "3 row(s) skipped" in err
    for where in (f"{bad}:2: field 'split'", f"{bad}:3: field '(row)': not valid JSON",
                  f"{bad}:4: field 'tools_json': not valid JSON text"):
        assert where in err
    r = _cli("judge", str(bad), "--style", "apb", "--judge-model", "openai:j", "--base-url", "http://127.0.0.1:9/v1")
    assert r.returncode == 2 and f"{bad}:1: field 'model_response'" in " ".join(r.stderr.split())
    r = _cli("judge", str(tmp_path), "--style", "apb", "--samples", "5")
    assert r.returncode == 2 and "--samples" in r.stderr
    r = _cli("apb", "score", str(bad), "--splits", "holistic_planning,nonsense")
    assert r.returncode == 2 and "--splits: unknown split 'nonsense'" in r.stderr


def test_a_path_leaving_the_data_directory_is_refused(tmp_path, apb_data):
    root, _ = apb_data
    row = {**records()[0], "files": [{"path": "../../etc/passwd", "type": "image"}]}
    f = tmp_path / "evil.jsonl"
    f.write_text(json.dumps(row) + "\n")
    r = _cli("import", "apb", str(f), "-o", str(tmp_path / "e.jsonl"), "--data-dir", str(root))
    assert r.returncode == 2 and f"{f}:1: field 'files[0].path'" in " ".join(r.stderr.split())


# ---------------------------------------------------------------------------
# Against APB's own code, when the official repository is mirrored here
# ---------------------------------------------------------------------------


def _official(tmp_path: Path):
    """APB's evaluation package, checked out of the mirrored repository into
    tmp_path/official/evaluation/apb_eval (a checkout's layout, for --apb-code tmp_path/official)."""
    if not MIRROR.is_dir() or shutil.which("git") is None:
        pytest.skip("APB's official repository is not mirrored on this machine")
    pkg = tmp_path / "official" / "evaluation" / "apb_eval"
    pkg.mkdir(parents=True)
    for name in ("__init__.py", "io.py", "prompts.py", "runner.py"):
        shown = subprocess.run(["git", "--git-dir", str(MIRROR), "show", f"HEAD:evaluation/apb_eval/{name}"],
                               capture_output=True)
        if shown.returncode != 0:
            pytest.skip(f"the mirror has no evaluation/apb_eval/{name}")
        (pkg / name).write_bytes(shown.stdout)
    if importlib.util.find_spec("openai") is None:
        pytest.skip("APB's runner needs the openai package")
    sys.path.insert(0, str(pkg.parent))
    try:
        for mod in [m for m in sys.modules if m == "apb_eval" or m.startswith("apb_eval.")]:
            del sys.modules[mod]
        import apb_eval.prompts as official_prompts  # type: ignore[import-not-found]
        import apb_eval.runner as official_runner  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(pkg.parent))
    return official_prompts, official_runner


def test_messages_and_scores_equal_apbs_own_code(tmp_path, apb_data):
    official_prompts, official_runner = _official(tmp_path)
    root, files = apb_data
    from planprobe.importers.apb_prompts import NAMES
    from planprobe.llm_judge.apb import judge_messages
    from planprobe.suites.judged.environment import JudgedEnvironment

    theirs_prompts = load(tmp_path / "official")  # APB's own prompts.py, read as data
    assert theirs_prompts.path.read_bytes() == (tmp_path / "official" / PROMPTS_FILE).read_bytes()
    assert {n: theirs_prompts[n] for n in NAMES} == {n: getattr(official_prompts, n) for n in NAMES}
    cases = {json.loads(c.task)["id"]: c for c in iter_apb_protocol(files, root, prompts=theirs_prompts)}
    for record in records():
        theirs = official_runner.prediction_messages(record, root, 12000)
        env = JudgedEnvironment(cases[record["id"]])
        ours = OpenAIModel.request_messages(_openai(), [Message(role="system", content=cases[record["id"]].system),
                                                        env.user_message()])
        theirs_user = theirs[1]["content"]
        ours_user = ours[1]["content"] if isinstance(ours[1]["content"], list) else [
            {"type": "text", "text": ours[1]["content"]}]
        assert ours[0] == theirs[0] and ours_user == theirs_user, record["id"]
        judged = {**record, "model_response": "{}", "tested_model": "m"}
        system, user = judge_messages(judged, theirs_prompts)
        assert system.content == official_prompts.judge_system_prompt(judged)
        assert user.content == official_prompts.dumps(official_prompts.judge_payload(judged))
        assert dumps(judge_payload(judged)) == user.content
    rows = [{**r, "judgement": {"is_correct": i % 2 == 0, "grade": (i % 6) / 5}} for i, r in enumerate(records())]

    class Args:
        judgements = tmp_path / "j.jsonl"
        scores = tmp_path / "official.json"

    Args.judgements.write_text("".join(json.dumps(r) + "\n" for r in rows))
    official_runner.score(Args, list(SPLITS))
    assert Args.scores.read_text() == scores_json(score(rows))


def test_no_images_names_each_image_and_the_import_is_deterministic(tmp_path, apb_data):
    root, files = apb_data
    tally = ImportTally()
    cases = list(iter_apb_protocol(files, root, tally=tally, attach_images=False, prompts=PROMPTS))
    assert tally.images == 0 and tally.images_withheld == 3
    sw1 = json.loads(next(c for c in cases if c.id == "apb-sw-1").task)["file_context"]
    assert sw1.count("[Image not shown to this text-only model: assets/Step-wise/opencua/s_") == 2
    assert any("3 image(s) not attached (--no-images)" in n for n in tally.notes(root))
    one, two = tmp_path / "1.jsonl", tmp_path / "2.jsonl"
    for out in (one, two):
        assert _cli("import", "apb", *map(str, files), "-o", str(out), "--data-dir", str(root)).returncode == 0
    assert one.read_bytes() == two.read_bytes()


class _ReferenceJudge:
    """Correct exactly when the reply states the reference: APB's judge payload carries both."""

    name = "reference-judge"

    def __init__(self) -> None:
        self.calls = 0

    async def chat(self, messages, tools, params):
        from planprobe.models.base import ChatResult

        self.calls += 1
        payload = json.loads(messages[1].content)
        ref, reply = payload["reference"], payload["model_response"]
        try:
            answer = json.loads(reply)
        except ValueError:
            answer = None
        if "ground_truth_steps" in ref:
            ok = isinstance(answer, dict) and answer.get("predicted_steps") == ref["ground_truth_steps"]
        elif messages[0].content == PROMPTS["UNSOLVABLE_JUDGE_PROMPT"]:
            ok = isinstance(answer, dict) and answer.get("status") == "REJECT"
        else:
            ok = isinstance(answer, dict) and answer.get("tool_chain") == ref["tool_chain"]
        text = json.dumps({"is_correct": ok, "grade": 1.0 if ok else 0.0, "error_list": [0] * 6, "reasoning": ""})
        return ChatResult(message=Message(role="assistant", content=text))

    async def aclose(self) -> None:
        pass


def test_oracle_answers_with_the_reference_and_random_does_not(tmp_path, apb_data):
    import asyncio

    import planprobe as pp
    from planprobe.llm_judge.apb_run import from_run, judge_all

    root, files = apb_data
    cases = list(iter_apb_protocol(files, root, prompts=PROMPTS))
    accuracy = {}
    for agent in ("oracle", "random"):
        pp.run_suite(cases, agent, tmp_path / agent, concurrency=2)
        src = from_run(tmp_path / agent)
        assert len(src.records) == 18 and not src.notes()
        out = tmp_path / f"{agent}.jsonl"
        judged, unreadable = asyncio.run(judge_all(_ReferenceJudge(), src.records, out, tmp_path / "bad.jsonl",
                                                   prompts=PROMPTS))
        assert (judged, unreadable) == (18, 0)
        rows = [json.loads(x) for x in out.read_text().splitlines()]
        accuracy[agent] = score(rows)["groups"]["overall"]["accuracy"]
    assert accuracy == {"oracle": 1, "random": 0}


def test_repeated_ids_and_trials_are_kept_apart_and_said(tmp_path):
    import asyncio

    import planprobe as pp
    from planprobe.llm_judge.apb_run import from_run, judge_all, judged_keys

    row = records()[0]
    f = tmp_path / "dup.jsonl"
    f.write_text(json.dumps(row) + "\n" + json.dumps({**row, "query": "another task, same id"}) + "\n")
    tally = ImportTally()
    cases = list(iter_apb_protocol([f], None, tally=tally, prompts=PROMPTS))
    assert [c.id for c in cases] == ["apb-hol-0", "apb-hol-0~2"] and tally.duplicate_ids == 1
    pp.run_suite(cases, "oracle", tmp_path / "run", trials=2, concurrency=1)
    src = from_run(tmp_path / "run")
    assert len(src.records) == 4 and any("2 trials per record" in n for n in src.notes())
    out = tmp_path / "j.jsonl"
    assert asyncio.run(judge_all(_ReferenceJudge(), src.records, out, tmp_path / "u.jsonl", prompts=PROMPTS)) == (4, 0)
    assert len(judged_keys(out, "reference-judge")) == 4  # resuming skips all four, none twice


def test_a_directory_in_files_exists_as_apb_says(tmp_path, apb_data):
    """APB asks ``exists()``: a directory is named like any other file, not told as missing;
    where APB would crash reading it (as an image or text) the row is refused."""
    root, _ = apb_data
    (root / "assets" / "folder").mkdir(parents=True)
    (root / "assets" / "pics.png").mkdir()
    row = {**records()[0], "files": [{"path": "assets/folder", "type": "file"}]}
    tally = ImportTally()
    f = tmp_path / "dir.jsonl"
    f.write_text(json.dumps(row) + "\n")
    (case,) = iter_apb_protocol([f], root, tally=tally, prompts=PROMPTS)
    context = json.loads(case.task)["file_context"]
    assert context == "[Referenced file available at: assets/folder]" and tally.missing_files == 0
    for path, kind in (("assets/folder", "image"), ("assets/pics.png", "file")):
        f.write_text(json.dumps({**row, "files": [{"path": path, "type": kind}]}) + "\n")
        with pytest.raises(PlanprobeError, match=f"{f}:1: field 'files\\[0\\].path': '{path}' is not a file"):
            list(iter_apb_protocol([f], root, prompts=PROMPTS))


def test_rows_written_with_backend_prefixes_resume_as_apbs_bare_ids(tmp_path):
    from planprobe.llm_judge.apb_run import apb_model_id, judged_keys

    assert apb_model_id("openai:gpt-4o") == "gpt-4o" and apb_model_id("llama3:8b") == "llama3:8b"
    out = tmp_path / "j.jsonl"
    rows = [{**records()[0], "tested_model": "openai:t", "model_response": "{}", "judge_model": "openai:judge",
             "judgement": {}},
            {**records()[1], "tested_model": "t", "model_response": "{}", "judge_model": "judge", "judgement": {}}]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert judged_keys(out, "openai:judge") == {(records()[0]["id"], "t", 0, ""), (records()[1]["id"], "t", 0, "")}


def test_a_judge_reply_with_a_lone_surrogate_is_kept_out_and_counted(tmp_path):
    import asyncio

    from judge_fakes import ScriptedJudge

    from planprobe.llm_judge.apb_run import judge_all

    preds = [{**r, "tested_model": "t", "model_response": "{}"} for r in records()[:3]]
    replies = iter(['{"is_correct": true, "reasoning": "bad \\ud800 text"}', '{"is_correct": false}',
                    '{"is_correct": true, "reasoning": "\ud83d"}'])
    judge = ScriptedJudge(lambda prompt, sample: next(replies), name="openai:j")
    out, failures = tmp_path / "j.jsonl", tmp_path / "u.jsonl"
    assert asyncio.run(judge_all(judge, preds, out, failures, prompts=PROMPTS)) == (1, 2)
    assert [json.loads(x)["judgement"] for x in out.read_text(encoding="utf-8").splitlines()] == [
        {"is_correct": False}]
    kept = [json.loads(x) for x in failures.read_text(encoding="ascii").splitlines()]
    assert [k["id"] for k in kept] == [preds[0]["id"], preds[2]["id"]]
    assert all("lone surrogate" in k["problem"] for k in kept) and "\\ud800" in kept[0]["problem"]


def test_apb_score_skip_invalid_scores_what_apbs_score_reads(tmp_path):
    """Rows APB's score() reads are scored as it scores them (named on stderr); a line that is
    not a JSON object, where APB's score() stops, is left out. Without the option: FILE:LINE."""
    good = [{**r, "tested_model": "t", "model_response": "{}", "judge_model": "j",
             "judgement": {"is_correct": i % 2 == 0, "grade": 0.2 * (i % 6)}} for i, r in enumerate(records()[:6])]
    odd = [{k: v for k, v in good[0].items() if k != "model_response"},  # APB counts it
           {**good[1], "split": "holistic_guessing"},  # APB filters it out
           {**good[2], "tools_json": "[{broken"},  # APB's score() never reads the field
           {k: v for k, v in good[3].items() if k != "judgement"}]  # counted in records only
    readable = [json.dumps(r) for r in good + odd]
    f = tmp_path / "j.jsonl"
    f.write_text("\n".join(readable[:3] + ["{not json", "[1, 2]"] + readable[3:]) + "\n")
    r = _cli("apb", "score", str(f), "--json")
    assert r.returncode == 2 and f"{f}:4: field '(row)': not valid JSON" in " ".join(r.stderr.split())
    r = _cli("apb", "score", str(f), "--json", "--skip-invalid")
    err = " ".join(r.stderr.split())
    assert r.returncode == 0, r.stderr
    assert f"{f}:4: field '(row)'" in err and f"{f}:5: field '(row)'" in err
    assert f"{f}:9: field 'model_response'" in err and f"{f}:10: field 'split'" in err
    assert f"{f}:12: field 'judgement'" in err
    assert "6 bad row(s) named above: 2 left out, 4 read as APB's score() reads them" in err
    rows = [json.loads(x) for x in readable]
    assert r.stdout == scores_json(score(rows))
    assert_same(json.loads(r.stdout), independent_score(rows))
    if MIRROR.is_dir() and shutil.which("git") is not None and importlib.util.find_spec("openai") is not None:
        _, official_runner = _official(tmp_path)

        class Args:
            judgements = tmp_path / "readable.jsonl"
            scores = tmp_path / "official.json"

        Args.judgements.write_text("\n".join(readable) + "\n")
        official_runner.score(Args, list(SPLITS))
        assert Args.scores.read_text() == r.stdout


def test_judge_cli_keeps_a_lone_surrogate_reply_out_and_says_so(tmp_path):
    """A judge whose reply decodes to a lone surrogate (JSON's "\\ud800"): the command ends
    normally, the row is kept out of the judgement file and counted."""
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({**r, "tested_model": "t", "model_response": "{}"}) + "\n"
                             for r in records()[:2]))

    def surrogate_judge(index: int, body: dict, headers: dict):
        rid = json.loads(body["messages"][1]["content"])["id"]
        text = "\ud800" if rid == records()[0]["id"] else "fine"
        return chat_reply(json.dumps({"is_correct": True, "reasoning": text}, ensure_ascii=False))

    out = tmp_path / "j.jsonl"
    with ScriptedServer(surrogate_judge) as judge:
        r = _cli("judge", str(preds), "--style", "apb", "--judge-model", "openai:judge", "--base-url", judge.url,
                 "--no-cache", "--out", str(out), "-q")
    err = " ".join(r.stderr.split())
    assert r.returncode == 0, r.stderr
    assert "1 judge repl(ies) APB's runner cannot read or write (not JSON, or a lone surrogate)" in err
    assert [json.loads(x)["id"] for x in out.read_text(encoding="utf-8").splitlines()] == [records()[1]["id"]]
