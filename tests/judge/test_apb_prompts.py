"""APB's prompt texts are read from the user's checkout, as data, never shipped.

planprobe carries none of APB's prose (APB's code states no licence). These
tests pin down how the texts are found (``--apb-code`` / ``PLANPROBE_APB_CODE``),
that prompts.py is parsed and never executed, that every bad file is refused
with one line naming the file and the variable, that the hash of the file
used is recorded, and — when APB's repository is mirrored here — that no line
of APB's prompts is in planprobe's tracked files.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from apb_fixture import STANDIN_APB_CODE, records, write_split_files

from helpers import planprobe_here
from planprobe.errors import PlanprobeError
from planprobe.importers.apb_prompts import (
    APB_REPO,
    ENV_VAR,
    NAMES,
    PROMPTS_FILE,
    load,
    locate,
    parse_prompts,
    read_prompts,
)

STANDIN = STANDIN_APB_CODE
REPO = Path(__file__).resolve().parents[2]
MIRROR = Path("/work/.mirror/Mikivishy+AgentPlanningBenchmark/repo")


def _checkout(tmp_path: Path, source: str) -> Path:
    """A directory laid out like APB's checkout whose prompts.py is ``source``."""
    root = tmp_path / "apb-code"
    (root / PROMPTS_FILE).parent.mkdir(parents=True, exist_ok=True)
    (root / PROMPTS_FILE).write_text(source, encoding="utf-8")
    return root


def _standin_source() -> str:
    return (STANDIN / PROMPTS_FILE).read_text(encoding="utf-8")


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    """The command line in this process (helpers.planprobe_here): output, files and exit codes are checked."""
    return planprobe_here(*args, env={"OPENAI_API_KEY": "test-key", **env})


# ---------------------------------------------------------------------------
# Reading prompts.py as data
# ---------------------------------------------------------------------------


def test_the_standin_gives_every_name_and_the_hash_of_its_bytes():
    prompts = load(STANDIN)
    assert set(prompts.texts) == set(NAMES) and all(t.startswith("[stand-in]") for t in prompts.texts.values())
    assert prompts.sha256 == hashlib.sha256((STANDIN / PROMPTS_FILE).read_bytes()).hexdigest()
    # f-strings and + over names assigned earlier are joined as Python would join them
    assert prompts["HOLISTIC_INSTRUCTION"].endswith('"reason": "..."}\n  ]\n}\n')
    assert prompts["STEP_WISE_INSTRUCTION"].startswith("[stand-in] Say which step(s)")
    assert '"predicted_steps"' in prompts["STEP_WISE_INSTRUCTION"]


def test_the_file_is_never_executed(tmp_path):
    canary = tmp_path / "executed"
    source = _standin_source() + f"\n__import__('pathlib').Path({str(canary)!r}).touch()\n"
    source = source.replace("import json\n", f"import json\nopen({str(canary)!r}, 'w').close()\n")
    prompts = load(_checkout(tmp_path, source))
    assert len(prompts.texts) == len(NAMES) and not canary.exists()


@pytest.mark.parametrize(("replacement", "why"), [
    ('HOLISTIC_INSTRUCTION = open("/etc/hostname").read()\n', "not a string constant (an expression of kind Call)"),
    ('HOLISTIC_INSTRUCTION = f"{_PLAN_SHAPE!r}"\n', "an f-string field other than the name"),
    ('HOLISTIC_INSTRUCTION = f"{1 + 1}"\n', "an f-string field other than the name"),
    ('HOLISTIC_INSTRUCTION = f"{_PLAN_SHAPE:>10}"\n', "an f-string field other than the name"),
    ('HOLISTIC_INSTRUCTION = "a" + UNDEFINED\n', "refers to UNDEFINED, which is not a string assigned above"),
    ('HOLISTIC_INSTRUCTION = "a" * 3\n', "not a string constant (an expression of kind BinOp)"),
    ('HOLISTIC_INSTRUCTION, X = "a", "b"\n', "bound by a statement of kind Assign, not a plain assignment"),
])
def test_a_needed_name_bound_to_anything_but_a_string_is_refused(tmp_path, replacement, why):
    source = _standin_source()
    start = source.index("HOLISTIC_INSTRUCTION = ")
    end = source.index("HOLISTIC_TOOL_EXTRANEOUS_INSTRUCTION = ")
    root = _checkout(tmp_path, source[:start] + replacement + "\n" + source[end:])
    path = root / PROMPTS_FILE
    line = source[:start].count("\n") + 1
    with pytest.raises(PlanprobeError) as err:
        load(root)
    message = str(err.value)
    assert message.startswith(f"{path.resolve()}:{line}: variable HOLISTIC_INSTRUCTION: {why}")
    assert "\n" not in message


@pytest.mark.parametrize("later", [
    'if True:\n    UNSOLVABLE_JUDGE_PROMPT = "changed"\n',
    'UNSOLVABLE_JUDGE_PROMPT += "more"\n',
    'def f():\n    global UNSOLVABLE_JUDGE_PROMPT\n    UNSOLVABLE_JUDGE_PROMPT = "x"\n',
    'for UNSOLVABLE_JUDGE_PROMPT in ["a"]:\n    pass\n',
    'del UNSOLVABLE_JUDGE_PROMPT\n',
    'from os import sep as UNSOLVABLE_JUDGE_PROMPT\n',
])
def test_a_needed_name_changed_later_by_other_code_is_refused(tmp_path, later):
    root = _checkout(tmp_path, _standin_source() + "\n" + later)
    with pytest.raises(PlanprobeError,
                       match=r":\d+: variable UNSOLVABLE_JUDGE_PROMPT: bound by a statement of kind \w+"):
        load(root)


def test_a_later_plain_reassignment_wins_as_in_python(tmp_path):
    root = _checkout(tmp_path, _standin_source() + '\nUNSOLVABLE_JUDGE_PROMPT = "last " + _VERDICT_SHAPE\n')
    assert load(root)["UNSOLVABLE_JUDGE_PROMPT"].startswith("last Reply with JSON only:")


def test_a_missing_variable_and_a_broken_file_are_named(tmp_path):
    source = _standin_source()
    start = source.index("TOOL_BROKEN_JUDGE_PROMPT = ")
    root = _checkout(tmp_path, source[:start] + "\n\ndef dumps(value):\n    return value\n")
    with pytest.raises(PlanprobeError, match=r"prompts\.py: variable TOOL_BROKEN_JUDGE_PROMPT: not assigned at "
                                             "module level"):
        load(root)
    broken = _checkout(tmp_path, "PREDICT_SYSTEM = '''unterminated\n")
    with pytest.raises(PlanprobeError, match=r"prompts\.py:1: not valid Python"):
        load(broken)
    with pytest.raises(PlanprobeError, match="not valid Python"):
        parse_prompts(b"A = 'x'\x00", Path("p.py"))


def test_a_changed_file_is_read_again_with_its_new_hash(tmp_path):
    root = _checkout(tmp_path, _standin_source())
    first = load(root)
    (root / PROMPTS_FILE).write_text(_standin_source().replace("[stand-in] You are", "[stand-in] You are now"),
                                     encoding="utf-8")
    second = load(root)
    assert second.sha256 != first.sha256 and second["PREDICT_SYSTEM"].startswith("[stand-in] You are now")
    assert read_prompts(root / PROMPTS_FILE) == second


# ---------------------------------------------------------------------------
# Finding the checkout
# ---------------------------------------------------------------------------


def test_locate_prefers_the_option_then_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    with pytest.raises(PlanprobeError) as err:
        locate(None)
    assert f"git clone {APB_REPO}" in str(err.value) and "--apb-code" in str(err.value)
    monkeypatch.setenv(ENV_VAR, str(STANDIN))
    assert locate(None) == STANDIN / PROMPTS_FILE
    with pytest.raises(PlanprobeError, match=f"--apb-code {tmp_path}: no {PROMPTS_FILE} in it"):
        locate(tmp_path)
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(PlanprobeError, match=f"{ENV_VAR}={tmp_path / 'nowhere'}: not a directory"):
        locate(None)


def test_cli_without_apb_code_says_how_to_get_it(tmp_path):
    root, files = write_split_files(tmp_path / "apb")
    out = tmp_path / "suite.jsonl"
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({**records()[0], "tested_model": "m", "model_response": "{}"}) + "\n")
    for args in (["import", "apb", str(files[0]), "-o", str(out)],
                 ["judge", str(preds), "--style", "apb", "--judge-model", "openai:j", "--base-url",
                  "http://127.0.0.1:9/v1"]):
        r = _cli(*args, **{ENV_VAR: ""})
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
        assert f"git clone {APB_REPO}" in r.stderr and "--apb-code" in r.stderr
        r = _cli(*args, "--apb-code", str(tmp_path / "nowhere"))
        assert r.returncode == 2 and f"--apb-code {tmp_path / 'nowhere'}: not a directory" in " ".join(
            r.stderr.split())
        r = _cli(*args, "--apb-code", str(root))  # a directory, but not APB's checkout
        assert r.returncode == 2 and f"no {PROMPTS_FILE} in it" in " ".join(r.stderr.split())
    assert not out.exists() and not preds.with_name("preds.judgements.jsonl").exists()
    r = _cli("judge", str(tmp_path), "--apb-code", str(STANDIN))
    assert r.returncode == 2 and "--apb-code are for --style apb" in " ".join(r.stderr.split())


def test_cli_reads_the_option_or_the_environment_and_names_the_hash(tmp_path):
    _, files = write_split_files(tmp_path / "apb")
    sha = load(STANDIN).sha256
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    r = _cli("import", "apb", str(files[0]), "-o", str(a), "--apb-code", str(STANDIN), **{ENV_VAR: "/nowhere"})
    assert r.returncode == 0 and f"(sha256 {sha[:12]})" in " ".join(r.stderr.split()), r.stderr
    r = _cli("import", "apb", str(files[0]), "-o", str(b), **{ENV_VAR: str(STANDIN)})
    assert r.returncode == 0 and a.read_bytes() == b.read_bytes()
    assert all(json.loads(x)["meta"]["generator"]["apb_prompts_sha256"] == sha for x in a.read_text().splitlines())
    # execute mode renders planprobe's own task: it needs no APB prompts
    r = _cli("import", "apb", str(files[0]), "-o", str(tmp_path / "e.jsonl"), "--protocol", "execute",
             **{ENV_VAR: ""})
    assert r.returncode == 0, r.stderr


# ---------------------------------------------------------------------------
# Judgements say which prompts produced them
# ---------------------------------------------------------------------------


class _AlwaysRight:
    name = "always-right"

    async def chat(self, messages, tools, params):
        from planprobe.models.base import ChatResult
        from planprobe.schema import Message

        return ChatResult(message=Message(role="assistant", content='{"is_correct": true, "grade": 1.0}'))

    async def aclose(self) -> None:
        pass


def test_judgements_carry_the_prompts_hash_and_resuming_with_other_prompts_is_refused(tmp_path):
    from planprobe.llm_judge.apb_run import check_judge_prompts, judge_all

    standin = load(STANDIN)
    other = load(_checkout(tmp_path, _standin_source().replace("You grade plans", "You mark plans")))
    rows = [{**r, "tested_model": "m", "model_response": "{}"} for r in records()[:3]]
    out = tmp_path / "j.jsonl"
    assert asyncio.run(judge_all(_AlwaysRight(), rows, out, tmp_path / "u.jsonl", prompts=standin)) == (3, 0)
    judged = [json.loads(x) for x in out.read_text().splitlines()]
    assert [j["planprobe"] for j in judged] == [{"judge_prompts_sha256": standin.sha256}] * 3
    check_judge_prompts(out, "always-right", standin)  # same prompts: resuming is fine
    check_judge_prompts(out, "another-judge", other)  # another judge's rows are its own
    with pytest.raises(PlanprobeError, match=f"another APB prompts file \\(sha256 {standin.sha256[:12]}; this one "
                                             f"is {other.sha256[:12]}\\)"):
        check_judge_prompts(out, "always-right", other)


# ---------------------------------------------------------------------------
# No APB prose in planprobe
# ---------------------------------------------------------------------------


def test_no_line_of_apbs_prompts_is_in_planprobe():
    """Every prose line of APB's prompts.py (mirrored here) is absent from planprobe's tracked files."""
    if not MIRROR.is_dir() or shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs APB's mirrored repository and planprobe's git checkout")
    shown = subprocess.run(["git", "--git-dir", str(MIRROR), "show", f"HEAD:{PROMPTS_FILE}"], capture_output=True)
    if shown.returncode != 0:
        pytest.skip(f"the mirror has no {PROMPTS_FILE}")
    texts = parse_prompts(shown.stdout, Path(PROMPTS_FILE))
    # prose lines only: the JSON answer skeletons (quotes, braces) are a format both files must share
    prose = {line.strip() for text in texts.values() for line in text.splitlines()
             if len(line.strip()) >= 30 and not set(line) & set('{}"')}
    assert len(prose) >= 20
    tracked = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True)
    found = []
    for name in tracked.stdout.decode().split("\0"):
        path = REPO / name
        if not name or not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        found += [f"{name}: {line}" for line in prose if line in text]
    assert not found, found[:5]


def _word_runs(text: str, n: int = 8) -> set[tuple[str, ...]]:
    """Every run of n words (lower case, punctuation dropped); runs holding a bare number
    are left out (a grade grid like 0.0 … 1.0 is a format, not prose)."""
    import re

    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)
            if not any(w.isdigit() for w in words[i:i + n])}


def test_no_run_of_eight_words_of_apbs_prompts_is_in_src():
    """No eight-word run of any text literal in APB's Python files (prompts.py, the legacy
    judge and evaluation prompts) appears in planprobe's source."""
    import ast

    if not MIRROR.is_dir() or shutil.which("git") is None:
        pytest.skip("needs APB's repository mirrored on this machine")
    listed = subprocess.run(["git", "--git-dir", str(MIRROR), "ls-tree", "-r", "-z", "--name-only", "HEAD"],
                            capture_output=True, check=True)
    theirs: set[tuple[str, ...]] = set()
    for name in listed.stdout.decode().split("\0"):
        if not name.endswith(".py"):
            continue
        source = subprocess.run(["git", "--git-dir", str(MIRROR), "show", f"HEAD:{name}"], capture_output=True,
                                check=True).stdout.decode("utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            theirs |= _word_runs(source)
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                theirs |= _word_runs(node.value)
    assert len(theirs) > 1000  # the prompts were read
    found = []
    for path in sorted((REPO / "src").rglob("*")):
        if path.is_file() and path.suffix in (".py", ".md", ".json", ".txt", ".html", ".css", ".js"):
            shared = _word_runs(path.read_text(encoding="utf-8", errors="replace")) & theirs
            found += [f"{path.relative_to(REPO)}: {' '.join(run)}" for run in sorted(shared)]
    assert not found, found[:10]
