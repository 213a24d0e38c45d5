"""Best-of-N restarts (``debug --detector none``) are samples: each restart sends its own request
(its own draw and seed, a sampling temperature), so neither the record/replay cache nor a
deterministic model can hand every restart the first attempt's reply; a re-run with the cache
replays each attempt's own reply. The model double reads only its request: the tools offered,
the temperature and the seed."""

from __future__ import annotations

import itertools
import json
import random
import shutil
from pathlib import Path

import pytest

from helpers import planprobe_here
from http_faults import ScriptedServer, chat_reply
from planprobe.debug.restarts import RESTART_TEMPERATURE


def _double(i, body, headers):
    """Calls every offered tool once. At temperature 0 in the order offered (the same wrong plan
    wherever that order breaks the requirement); above 0 in an order its seed draws; after the
    tools' results, it says it is done."""
    if body["messages"][-1]["role"] == "tool":
        return chat_reply("All tasks are done.")
    names = [t["function"]["name"] for t in body.get("tools", [])]
    orders = list(itertools.permutations(names))
    order = orders[0] if body["temperature"] == 0 else orders[random.Random(body.get("seed")).randrange(len(orders))]
    calls = [{"id": f"c{j}", "type": "function", "function": {"name": n, "arguments": "{}"}}
             for j, n in enumerate(order)]
    return chat_reply(None, tool_calls=calls)


def pp(*args, cache: Path):
    return planprobe_here(*args, env={"OPENAI_API_KEY": "sk-test-not-used", "XDG_CACHE_HOME": str(cache)})


def _debug(run, srv, cache, *extra):
    r = pp("debug", run, "--detector", "none", "--max-rounds", "3", "--model", "openai:m", "--base-url", srv.url,
           "--json", "-q", *extra, cache=cache)
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in (run / "debug-none.jsonl").read_text().splitlines()]
    return json.loads(r.stdout), rows


def _outcomes(rows):
    return [(r["case_id"], r["fixed_at"], [(x["round"], x["passed"], x["errors"], x["steps"]) for x in r["rounds"]])
            for r in rows]


@pytest.fixture(scope="module")
def failed_run(tmp_path_factory):
    """Constraint cases run by the double at temperature 0: it fails wherever the offered order is wrong."""
    root = tmp_path_factory.mktemp("bestofn")
    r = pp("generate", "constraints", "--actions", "3", "--n", "8", "--seed", "5", "-o", root / "s.jsonl",
           cache=root / "cache")
    assert r.returncode == 0, r.stderr
    with ScriptedServer(_double) as srv:
        r = pp("run", root / "s.jsonl", "--agent", "tools", "--model", "openai:m", "--base-url", srv.url,
               "--no-cache", "--out", root / "r", "-q", cache=root / "cache")
    assert r.returncode in (0, 1), r.stderr
    return root


def _first_calls(requests):
    return [b for b in requests if b["messages"][-1]["role"] != "tool"]


def test_restarts_sample_and_a_later_attempt_can_succeed(failed_run, tmp_path):
    run, cache = Path(shutil.copytree(failed_run / "r", tmp_path / "r")), tmp_path / "cache"
    shutil.copytree(failed_run / "r", tmp_path / "again")
    with ScriptedServer(_double) as srv:
        summary, rows = _debug(run, srv, cache)
        firsts = _first_calls(srv.requests)
        # the run's failures: every restart was asked of the model (none answered by another's cache entry)
        assert summary["failed"] >= 3
        attempts = sum(len(r["rounds"]) for r in rows)
        assert len(firsts) == attempts and all(x["replayed_calls"] == 0 for r in rows for x in r["rounds"])
        assert all(b["temperature"] == RESTART_TEMPERATURE for b in firsts)
        per_case: dict[str, list] = {}
        for b in firsts:
            per_case.setdefault(b["messages"][-1]["content"], []).append(b["seed"])
        assert any(len(s) > 1 for s in per_case.values())  # some case needed several restarts
        assert all(len(set(s)) == len(s) for s in per_case.values())  # ... each its own request
        # a sampled restart finds the order the temperature-0 attempt missed
        assert 0 < summary["fixed"] and any(r["fixed_at"] is not None for r in rows)
        # the same debug again with the cache: each attempt's own reply replayed, nothing asked
        asked = len(srv.requests)
        again, again_rows = _debug(tmp_path / "again", srv, cache)
        assert len(srv.requests) == asked
    assert _outcomes(again_rows) == _outcomes(rows) and again["fixed"] == summary["fixed"]
    assert summary["restart_temperature"] == RESTART_TEMPERATURE  # the default, stated in the summary
    assert all(x["replayed_calls"] > 0 and x["tokens"] == 0 for r in again_rows for x in r["rounds"])


def test_the_restart_temperature_option_reaches_every_worker(failed_run, tmp_path):
    """--restart-temperature 0: the double repeats its wrong plan, but each restart is still its own
    request (own draw and seed, own cache entry); --workers 2 sends the same requests, replayed."""
    cache = tmp_path / "cache"
    one = Path(shutil.copytree(failed_run / "r", tmp_path / "one"))
    two = Path(shutil.copytree(failed_run / "r", tmp_path / "two"))
    with ScriptedServer(_double) as srv:
        summary, rows = _debug(one, srv, cache, "--restart-temperature", "0")
        firsts = _first_calls(srv.requests)
        assert summary["fixed"] == 0 and all(b["temperature"] == 0 for b in firsts)
        assert len({(b["messages"][-1]["content"], b["seed"]) for b in firsts}) == len(firsts) == 3 * len(rows)
        asked = len(srv.requests)
        workers, worker_rows = _debug(two, srv, cache, "--restart-temperature", "0", "--workers", "2")
        assert len(srv.requests) == asked  # the workers sent the same requests: all from the cache
    assert _outcomes(worker_rows) == _outcomes(rows) and workers["restart_temperature"] == 0


def test_a_negative_restart_temperature_is_one_line(failed_run, tmp_path):
    r = pp("debug", failed_run / "r", "--detector", "none", "--restart-temperature", "-1", cache=tmp_path)
    assert r.returncode == 2 and "--restart-temperature" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("detector, pick, draws", [
    ("none", None, [1, 2]),  # Best-of-N: restart k is draw k
    ("agentdebug", "no step", [1, 2]),  # a pick without a step restarts without feedback: sampled too
    ("self-refine", None, [0]),  # feedback: the run's settings (the guided repair agent finishes at once)
    ("oracle", "step 1", [0]),
])
def test_which_attempts_sample(failed_run, tmp_path, detector, pick, draws):
    """Only attempts with neither prefix nor feedback sample: the others' prompts differ already."""
    from planprobe.agents import make_agent
    from planprobe.debug.detectors import Pick
    from planprobe.debug.repair import repair_case
    from planprobe.debug.run_labels import LabelCounts, failed_results

    run = Path(shutil.copytree(failed_run / "r", tmp_path / "r"))
    case, trace, verdict, _ = next(iter(failed_results(run, LabelCounts())))
    asked: list[int] = []

    def new_agent(draw: int):
        asked.append(draw)
        return make_agent(f"python:{Path(__file__).resolve().parent / 'repair_agent.py'}:agent")

    chosen = {None: None, "no step": Pick(), "step 1": Pick(step=1, module="planning", type="impossible_action")}
    repair_case(run, case.id, trace.trial, verdict, detector, chosen[pick], new_agent, 2)
    assert asked == draws
