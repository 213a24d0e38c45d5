"""``planprobe generate pddl --transform``: robustness variants of the pddl agent family.

The oracle agent passes every solvable variant and refuses every unsolvable one;
contradictory goals are proven unsolvable by the planner; on ``cost`` variants it
reaches the minimum cost; ``cost`` with ``broken`` is refused with one line.
"""

from __future__ import annotations

import json

import pytest

from helpers import cli_here, run_agent
from planprobe.agents import make_agent
from planprobe.pddl import solve
from planprobe.pddl.errors import UnsolvableError
from planprobe.schema import Case
from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_lines
from planprobe.suites.pddl_agent.prepared import prepare
from planprobe.suites.registry import get_family
from planprobe.suites.robust.spec import base_case, spec_of
from planprobe.suites.robust.transforms import parse_transforms, transform_lines

ROBUST = get_family("robust")
TRANSFORMS = ["extraneous:2", "broken", "unsolvable", "unsolvable:contradiction", "unsolvable:removal",
              "unsolvable:missing-info", "broken+extraneous:1+unsolvable", "cost", "cost+extraneous:1+unsolvable"]
VARIANTS = [("blocksworld", None), ("logistics", None), ("blocksworld", "mystery"), ("logistics", "random")]


def _lines(domain, obfuscate, n=8):
    extra = {"blocks": (3, 4)} if domain == "blocksworld" else {"packages": (1, 2), "cities": (2, 2),
                                                                 "locations": (1, 2)}
    return list(generate_lines(PDDLSuiteOptions(domain=domain, n=n, seed=3, obfuscate=obfuscate, **extra)))


BASE = {v: _lines(*v) for v in VARIANTS}


def variants(transform: str, variant) -> list[Case]:
    names = transform.split("+")
    return [Case.model_validate_json(x) for x in transform_lines(BASE[variant], parse_transforms(names), seed=5)]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}-{v[1]}")
@pytest.mark.parametrize("transform", TRANSFORMS)
def test_oracle_passes_solvable_and_refuses_unsolvable(transform, variant):
    oracle, rand = make_agent("oracle"), make_agent("random")
    cases = variants(transform, variant)
    assert cases and all(c.family == "robust" and base_case(c).family == "pddl" for c in cases)
    unsolvable = 0
    for case in cases:
        ROBUST.validate(case)
        verdict = ROBUST.check(case, run_agent(oracle, case))
        assert verdict.passed, (case.id, verdict.evidence)
        spec = spec_of(case)
        assert verdict.labels.get("refused", False) == (spec.unsolvable is not None)
        if spec.min_cost is not None:
            assert verdict.labels["cost"] == spec.min_cost and verdict.labels["cost_gap"] == 0
        if spec.unsolvable is not None:
            unsolvable += 1
            assert ROBUST.check(case, run_agent(rand, case)).errors == ["missed_refusal"]
    if "unsolvable" in transform:
        assert 0 < unsolvable < len(cases) or len(cases) < 4


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}-{v[1]}")
def test_contradictions_are_proven_by_the_planner(variant):
    cases = [c for c in variants("unsolvable:contradiction", variant) if spec_of(c).unsolvable is not None]
    assert cases
    for case in cases:
        spec = spec_of(case)
        assert spec.unsolvable.kind == "contradiction" and "the goal needs" in spec.unsolvable.proof
        base = base_case(case)
        problem = prepare(base).problem
        with pytest.raises(UnsolvableError):
            solve(problem, time_limit=None)
        parent = next(Case.model_validate_json(x) for x in BASE[variant] if json.loads(x)["id"] == case.meta.parent)
        assert len(problem.goal) == len(prepare(parent).problem.goal) + 1
        assert base.tools == parent.tools  # only the goal changed


def test_cli(tmp_path, capsys, monkeypatch):
    out = tmp_path / "s.jsonl"
    code, _, err = cli_here(capsys, monkeypatch, "generate", "pddl", "--n", "4", "--seed", "2", "--blocks", "3",
                            "--transform", "unsolvable:contradiction", "--transform", "extraneous:1", "-o", str(out))
    assert code == 0, err
    cases = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(cases) == 4 and all(c["family"] == "robust" for c in cases)
    assert all("unsolvable:contradiction" in c["meta"]["transforms"] for c in cases)
    first = out.read_bytes()
    cli_here(capsys, monkeypatch, "generate", "pddl", "--n", "4", "--seed", "2", "--blocks", "3",
             "--transform", "unsolvable:contradiction", "--transform", "extraneous:1", "-o", str(out))
    assert out.read_bytes() == first
    for args, fragment in ((["--transform", "cost", "--transform", "broken"], "does not compose with broken"),
                           (["--transform", "unsolvable:nope"], "unsolvable kinds"),
                           (["--transform", "broken", "--transform", "broken"], "given twice")):
        code, _, err = cli_here(capsys, monkeypatch, "generate", "pddl", *args, "-o", str(tmp_path / "x.jsonl"))
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and fragment in lines[0], err
