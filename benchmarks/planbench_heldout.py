"""Held-out check of planprobe's PlanBench rules against PlanBench's OWN code.

Generates responses nobody tuned on — plans, resulting states and verification
answers for every PlanBench domain, rendered from the instances and then
perturbed the ways models write (numbering, markdown, tags and trailing talk,
CRLF line ends, two steps on a line, remarks in brackets, glued or plural
object names, merged and negated facts, "both … and …", "being held",
duplicates, capitals, wrong verdicts…) — and reads each one twice: with
PlanBench's functions loaded from a checkout of karthikv792/LLMs-Planning
(``plan-bench/utils/text_to_pddl.py``: ``text_to_plan``, ``text_to_state``;
``plan-bench/response_evaluation.py``: ``ResponseEvaluator.parse_output``;
``plan-bench/configs/*.yaml``) and with ``planprobe.suites.planbench.planbench_rules``.
It compares what they extract (the plan file, the readable plan, an exception;
the fact list in order; the parsed verification answer) and the verdicts that
follow (the plan validated — planprobe's validator stands in for VAL on both
sides —, the sorted fact lists against the reference state, the valid/invalid
answer against the truth).

    python benchmarks/planbench_heldout.py --planbench-src DIR [--per 40] [--seed 0] [--data ../shared/data/planbench]

DIR is a checkout of LLMs-Planning (the folder holding ``plan-bench/``, or
``plan-bench`` itself). It is the user's code, run because the user names it
here; it needs numpy and PyYAML. Neither the checkout nor a script that makes it
belongs in this repository. Only the instances are read from --data, never
the recorded responses.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import io
import platform
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from planprobe.importers.planbench_instances import LAYOUTS, PlanBenchInstances
from planprobe.pddl import PlannerError, Problem, ground, validate
from planprobe.suites.planbench.prompt_blocks import verification_message
from planprobe.pddl.reply_parser import parse_plan, parse_state
from planprobe.pddl.satisficing import greedy_plan
from planprobe.suites.planbench.scoring import score_verification
from planprobe.suites.planbench.planbench_rules import CONFIGS, PlanBenchError, PlanBenchReader, fact_string
from planprobe.pddl.simulator import applicable, apply
from planprobe.pddl.translation import translator

ROOT = Path(__file__).resolve().parents[1]
DOMAINS = ("blocksworld", "blocksworld_3", "mystery_blocksworld", "mystery_blocksworld_3", "logistics", "depots",
           "obfuscated_deceptive_logistics", "obfuscated_randomized_logistics")


# ---------------------------------------------------------------------------
# PlanBench's code, loaded from the checkout
# ---------------------------------------------------------------------------

class PlanBenchCode:
    """PlanBench's readers from a checkout, callable as PlanBench calls them."""

    def __init__(self, src: Path):
        base = src / "plan-bench" if (src / "plan-bench").is_dir() else src
        for need in ("utils/text_to_pddl.py", "response_evaluation.py", "configs"):
            if not (base / need).exists():
                sys.exit(f"--planbench-src {src}: no {need} (expected a checkout of karthikv792/LLMs-Planning)")
        spec = importlib.util.spec_from_file_location("planbench_text_to_pddl", base / "utils/text_to_pddl.py")
        self.t2p = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.t2p)
        tree = ast.parse((base / "response_evaluation.py").read_text(encoding="utf-8"))
        method = next(f for c in tree.body if isinstance(c, ast.ClassDef) and c.name == "ResponseEvaluator"
                      for f in c.body if isinstance(f, ast.FunctionDef) and f.name == "parse_output")
        namespace = {"text_to_state": self.t2p.text_to_state, "text_to_plan": self.t2p.text_to_plan}
        exec(compile(ast.Module(body=[method], type_ignores=[]), "response_evaluation.py", "exec"), namespace)
        self._parse_output = namespace["parse_output"]
        import yaml  # PlanBench's configs are YAML

        self.configs = {d: yaml.safe_load((base / "configs" / f"{d}.yaml").read_text(encoding="utf-8"))
                        for d in DOMAINS}
        self.plan_file = str(Path(tempfile.mkdtemp(prefix="planbench-heldout-")) / "llm_plan")

    def say_plan(self, domain: str, steps: list[str], tr, rng: random.Random) -> list[str]:
        """The steps in words: planprobe's translation, or for Depots (whose planprobe
        phrasing differs) half the time PlanBench's own templates."""
        if domain != "depots" or rng.random() < 0.5:
            return tr.plan(steps)
        out = []
        for step in steps:
            name, *args = step.strip("()").split()
            out.append(self.configs[domain]["actions"][name].format(*args))
        return out

    def say_fact(self, domain: str, atom, tr, rng: random.Random) -> str:
        if domain != "depots" or rng.random() < 0.5:
            return tr.atom(atom)
        return self.configs[domain]["predicates"][atom.predicate].format(*atom.args)

    @staticmethod
    def action_set(problem: Problem) -> dict[str, Any]:
        """tarski's ``problem.actions`` as PlanBench uses it: names in file order, parameter counts."""
        return {a.name: SimpleNamespace(parameters=SimpleNamespace(vars=lambda n=a.arity: [None] * n))
                for a in problem.domain.actions}

    def text_to_plan(self, domain: str, problem: Problem, text: str) -> tuple[str, str] | str:
        """(plan, readable plan), or the exception's type name."""
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                return self.t2p.text_to_plan(text, self.action_set(problem), self.plan_file, self.configs[domain])
        except Exception as exc:  # PlanBench's evaluate_plan catches everything: the reply is incorrect
            return type(exc).__name__

    def text_to_state(self, domain: str, text: str, and_split: bool = True) -> list[str] | str:
        data = self.configs[domain]
        try:
            if and_split:
                return self.t2p.text_to_state(text, data)
            # the revision that scored PlanBench's t7 results: the same per-domain reader, clauses at commas only
            reader = {"mystery": self.t2p.text_to_state_mystery, "logistics": self.t2p.text_to_state_logistics,
                      "blocksworld": self.t2p.text_to_state_blocksworld, "depots": self.t2p.text_to_state_depots}
            key = next(k for k in reader if k in data["domain_name"])
            return reader[key](text.split(","), data)
        except Exception as exc:
            return type(exc).__name__

    def parse_output(self, domain: str, problem: Problem, text: str) -> dict | str:
        me = SimpleNamespace(data=self.configs[domain], llm_plan_file=self.plan_file)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                return self._parse_output(me, self.action_set(problem), text)
        except Exception as exc:
            return type(exc).__name__


# ---------------------------------------------------------------------------
# responses nobody tuned on
# ---------------------------------------------------------------------------

def random_walk(problem: Problem, rng: random.Random, length: int) -> list[str]:
    gp = ground(problem)
    actions = gp.actions()
    state, steps = gp.init, []
    for _ in range(length):
        options = [a for a in actions if applicable(state, a)]
        if not options:
            break
        a = rng.choice(options)
        steps.append(f"({' '.join((a.name, *a.args))})")
        state = apply(state, a)
    return steps


def a_plan(problem: Problem, rng: random.Random) -> list[str] | None:
    """Half the time a plan that solves the problem (so that valid plans are read too)."""
    if rng.random() < 0.5:
        return None
    try:
        return [str(s) if not isinstance(s, str) else s for s in greedy_plan(problem, time_limit=10).steps]
    except PlannerError:
        return None


def _numbered(lines: list[str], rng: random.Random) -> list[str]:
    style = rng.choice(["{}. ", "{}) ", "Step {}: ", "{}.", "**{}.** ", "- ", "* ", "{} - "])
    return [style.format(i) + line if "{}" in style else style + line for i, line in enumerate(lines, 1)]


def perturb_plan(lines: list[str], names: list[str], rng: random.Random) -> str:
    """A plan text in one of the ways models write plans."""
    lines = list(lines)
    if lines and rng.random() < 0.25:  # drop, swap or repeat a step
        i = rng.randrange(len(lines))
        op = rng.choice(["drop", "swap", "repeat"])
        if op == "drop":
            del lines[i]
        elif op == "swap" and len(lines) > 1:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines.insert(i, lines[i])
    if len(lines) > 1 and rng.random() < 0.15:  # two steps on one line
        i = rng.randrange(len(lines) - 1)
        lines[i:i + 2] = [f"{lines[i]}{rng.choice([', then ', ' and ', '; '])}{lines[i + 1]}"]
    if lines and rng.random() < 0.2:  # a remark in brackets
        i = rng.randrange(len(lines))
        lines[i] += rng.choice([" (now the hand is empty)", f" (with the {rng.choice(names)} on top)",
                                " (this frees the block below)", f" ({rng.choice(names)} is clear)"])
    if lines and rng.random() < 0.15:  # glued or plural object names
        i = rng.randrange(len(lines))
        name = rng.choice(names)
        lines[i] = lines[i].replace(f"the {name}", rng.choice([f"the{name}", f"the {name}s", name.upper()]), 1)
    if rng.random() < 0.5:
        lines = _numbered(lines, rng)
    if rng.random() < 0.2:
        lines = [f"**{ln}**" for ln in lines]
    if rng.random() < 0.2:
        lines = [ln[:1].upper() + ln[1:] for ln in lines]
    if rng.random() < 0.15:
        lines = [ln + "." for ln in lines]
    if rng.random() < 0.3:
        lines = [rng.choice(["Here is the plan:", "[PLAN]", "My plan is as follows:", "Sure! The plan:"]), ""] + lines
    if rng.random() < 0.5:
        lines.append("[PLAN END]")
        if rng.random() < 0.5 and lines[:-1]:
            tail = rng.choice(lines[:-1])
            lines.append(rng.choice([f"This works because I first {tail.lower()}.",
                                     "The total time to execute the plan is 6 minutes.", f"[COST]\n{tail}",
                                     f"Note: do not {tail.lower()} twice."]))
    if rng.random() < 0.1:
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(["1", "12", "1.", "", "  "]))
    return ("\r\n" if rng.random() < 0.15 else "\n").join(lines)


def perturb_state(facts: list[str], false: list[str], subjects: dict[str, list[int]], rng: random.Random) -> str:
    """A resulting-state answer: the facts (plus some false or negated ones), joined
    and rephrased the ways models state states."""
    facts = list(facts)
    rng.shuffle(facts)
    if facts and rng.random() < 0.2:
        facts.pop(rng.randrange(len(facts)))
    if false and rng.random() < 0.25:
        facts.insert(rng.randrange(len(facts) + 1), rng.choice(false))
    if facts and rng.random() < 0.1:
        facts.append(rng.choice(facts))  # stated twice
    if false and rng.random() < 0.3:
        neg = rng.choice(false)
        for verb, repl in ((" is ", rng.choice([" is not ", " is no longer ", " isn't ", " is not longer "])),):
            facts.append(neg.replace(verb, repl, 1))
    facts = [_rephrase(f, rng) for f in facts]
    if len(facts) > 2 and rng.random() < 0.3:  # merge two facts: "both A and B are …", "A is clear and on the table"
        i, j = rng.sample(range(len(facts)), 2)
        a, b = facts[i], facts[j]
        merged = _merge(a, b, rng)
        if merged:
            facts = [f for k, f in enumerate(facts) if k not in (i, j)]
            facts.insert(min(i, j), merged)
    if rng.random() < 0.2:
        facts = [f[:1].upper() + f[1:] for f in facts]
    join = rng.choice(["plan", "commas", "sentences", "lines", "semicolons", "and"])
    if join == "plan" and len(facts) > 1:
        text = ", ".join(facts[:-1]) + rng.choice([" and ", ", and "]) + facts[-1]
    elif join == "commas":
        text = ", ".join(facts)
    elif join == "sentences":
        text = ". ".join(facts) + "."
    elif join == "lines":
        text = "\n".join(rng.choice(["- ", "", "* "]) + f for f in facts)
    elif join == "semicolons":
        text = "; ".join(facts)
    else:
        text = " and ".join(facts)
    if rng.random() < 0.2:
        text = rng.choice(["[RESULTING STATE]\n", "The resulting state is: ", "After the actions, "]) + text
    return text


def _rephrase(fact: str, rng: random.Random) -> str:
    if "the hand is currently holding" in fact and rng.random() < 0.4:
        block = fact.split("holding ", 1)[1]
        return rng.choice([f"the {block} is being held", f"I am holding the {block}", f"the hand is holding {block}"])
    if rng.random() < 0.05:
        return fact.replace("clear", "unclear")
    return fact


def _merge(a: str, b: str, rng: random.Random) -> str | None:
    for tail in (" is on the table", " is clear"):
        if a.endswith(tail) and b.endswith(tail):
            x, y = a[: -len(tail)], b[: -len(tail)]
            style = rng.choice(["both {} and {} are{}", "{} and {} are{}", "the {} and {} are{}"])
            if style.startswith("the "):
                x, y = x.replace("the ", "").replace(" block", ""), y.replace("the ", "")
            return style.format(x, y, tail.replace(" is", ""))
    if a.endswith(" is clear") and b.endswith(" is on the table") and a[:-9] == b[:-16]:
        return f"{a} and on the table"
    return None


def perturb_verdict(message: str, names: list[str], rng: random.Random) -> str:
    """A verification answer: the right message, or a wrong or reworded one."""
    text = message
    r = rng.random()
    if r < 0.15:
        text = text.replace("is valid", "is invalid") if "is valid" in text else "The above plan is valid."
    elif r < 0.25:
        text = text.replace("The above plan is", rng.choice(["Plan is", "The plan is not", "This plan is",
                                                             "the plan is"]))
    elif r < 0.35:
        text = text.replace("unmet goal condition", "unmet goal conditions").replace("\n", rng.choice(["\n", " "]), 1)
    elif r < 0.45 and names:
        a, b = rng.sample(names, 2) if len(names) > 1 else (names[0], names[0])
        text = text.replace(a, "@@").replace(b, a).replace("@@", b)
    elif r < 0.5:
        text = text.replace("\n", "\n\n")
    if rng.random() < 0.1:
        text += "\n[STATEMENT]\nAs initial conditions I have that the plan is valid."
    if rng.random() < 0.1:
        text = "Let me check the plan step by step.\n" + text
    return text


# ---------------------------------------------------------------------------
# the comparison
# ---------------------------------------------------------------------------

class Tally:
    """Per (domain, kind): responses, same extraction, same verdict, PlanBench's verdict
    "correct", PlanBench's code raising, planprobe's own rules giving another verdict."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
        self.examples: list[str] = []

    def add(self, domain: str, kind: str, same_extraction: bool, same_verdict: bool, detail: Callable[[], str],
            correct: bool = False, raised: bool = False, own_differs: bool = False):
        row = self.rows[(domain, kind)]
        for k, value in enumerate((True, same_extraction, same_verdict, correct, raised, own_differs)):
            row[k] += bool(value)
        if not (same_extraction and same_verdict) and len(self.examples) < 20:
            self.examples.append(f"{domain} {kind}: {detail()}")


def check_plans(code: PlanBenchCode, domain: str, problem: Problem, tr, rng: random.Random, tally: Tally,
                reader: PlanBenchReader, steps: list[str]) -> None:
    names = sorted({tr.object_name(o.name) for o in problem.all_objects})
    text = perturb_plan(code.say_plan(domain, steps, tr, rng), names, rng)
    theirs = code.text_to_plan(domain, problem, text)
    mine = reader.text_to_plan(text)
    gp = ground(problem)
    if isinstance(theirs, str):
        same = mine.error is not None and mine.error.startswith(theirs)
        their_ok = False
    else:
        same = mine.error is None and mine.text == theirs[0] and "".join(f"{s}\n" for s in mine.readable) == theirs[1]
        their_ok = validate(gp, [ln for ln in theirs[0].split("\n") if ln]).valid
    my_ok = mine.error is None and validate(gp, list(mine.steps)).valid
    own_ok = validate(gp, parse_plan(text, tr).pddl).valid
    tally.add(domain, "plan", same, their_ok == my_ok, lambda: f"{text!r}: PlanBench {theirs!r}, planprobe {mine!r}",
              their_ok, isinstance(theirs, str), own_ok != their_ok)


def check_state(code: PlanBenchCode, domain: str, problem: Problem, tr, rng: random.Random, tally: Tally,
                reader: PlanBenchReader, steps: list[str]) -> None:
    gp = ground(problem)
    result = validate(gp, steps)
    static = problem.domain.static_predicates
    state = set(result.state_atoms) | {a for a in problem.init if a.predicate in static}
    reference = sorted(fact_string(a) for a in state)
    said = [code.say_fact(domain, a, tr, rng) for a in sorted(state) if tr.visible(a)]
    others = [tr.atom(a) for a in sorted(gp.atoms) if a not in state and tr.visible(a)]
    false = rng.sample(others, min(3, len(others)))
    text = perturb_state(said, false, {}, rng)
    truth = frozenset(a for a in state if tr.visible(a))
    own_ok = parse_state(text, tr).atoms == truth
    for and_split, kind in ((True, "state (code)"), (False, "state (results)")):
        theirs = code.text_to_state(domain, text, and_split)
        try:
            mine: list[str] | str = reader.text_to_state(text, and_split)
        except PlanBenchError as exc:
            mine = str(exc)
        their_ok = not isinstance(theirs, str) and sorted(theirs) == reference
        if isinstance(theirs, str):
            same = verdict_same = isinstance(mine, str) and mine.startswith(theirs)
        else:
            same = mine == theirs
            verdict_same = (not isinstance(mine, str)) and (sorted(mine) == reference) == their_ok
        tally.add(domain, kind, same, verdict_same, lambda: f"{text!r}: PlanBench {theirs!r}, planprobe {mine!r}",
                  their_ok, isinstance(theirs, str), own_ok != their_ok)


def check_verification(code: PlanBenchCode, domain: str, problem: Problem, tr, rng: random.Random, tally: Tally,
                       reader: PlanBenchReader, steps: list[str]) -> None:
    truth = validate(ground(problem), steps)
    names = sorted({tr.object_name(o.name) for o in problem.all_objects})
    text = perturb_verdict(verification_message(tr, truth), names, rng)
    theirs = code.parse_output(domain, problem, text)
    try:
        mine: dict | str = reader.parse_output(text)
    except PlanBenchError as exc:
        mine = str(exc)
    if isinstance(theirs, str):
        same = verdict_same = isinstance(mine, str) and mine.startswith(theirs)
    else:
        same = mine == theirs
        verdict_same = isinstance(mine, dict) and mine.get("valid") == theirs.get("valid")
    their_ok = isinstance(theirs, dict) and theirs.get("valid") == truth.valid
    own_ok = score_verification(truth, tr, text).binary
    tally.add(domain, "verification", same, verdict_same, lambda: f"{text!r}: PlanBench {theirs!r}, planprobe {mine!r}",
              their_ok, isinstance(theirs, str) or "valid" not in theirs, own_ok != their_ok)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--planbench-src", type=Path, required=True, help="a checkout of karthikv792/LLMs-Planning")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "planbench")
    ap.add_argument("--per", type=int, default=40, help="instances per domain (each gives a plan, a state and "
                                                        "a verification answer)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    code = PlanBenchCode(args.planbench_src)
    for d in DOMAINS:  # planprobe's table of PlanBench's configs against the checkout's YAML
        cfg, theirs = CONFIGS[d], code.configs[d]
        if cfg.objects and (list(dict(cfg.objects).items()) != list(theirs["encoded_objects"].items())
                            or list(dict(cfg.predicates).items()) != list(theirs["predicates"].items())
                            or list(dict(cfg.actions).items()) != list(theirs["actions"].items())
                            or list(dict(cfg.predicate_mapping).items())
                            != list((theirs.get("predicate_mapping") or {}).items())):
            sys.exit(f"planbench_rules.CONFIGS[{d!r}] differs from the checkout's configs/{d}.yaml")
    pb = PlanBenchInstances(args.data / "instances")
    rng = random.Random(args.seed)
    tally = Tally()
    start = time.perf_counter()
    for domain in DOMAINS:
        folder = args.data / "instances" / LAYOUTS[domain].instances
        ids = sorted(int(p.stem.split("-")[1]) for p in folder.glob("instance-*.pddl"))
        for iid in rng.sample(ids, min(args.per, len(ids))):
            problem = pb.problem(domain, iid)
            tr = translator(problem, pb.translation(domain))
            reader = PlanBenchReader.for_config(domain, problem.domain)
            walk = random_walk(problem, rng, rng.randint(1, 8))
            check_plans(code, domain, problem, tr, rng, tally, reader, a_plan(problem, rng) or walk)
            check_state(code, domain, problem, tr, rng, tally, reader, walk)
            other = random_walk(problem, rng, rng.randint(1, 6))
            check_verification(code, domain, problem, tr, rng, tally, reader, other)
    secs = time.perf_counter() - start
    print(f"# {platform.python_implementation()} {platform.python_version()}, seed {args.seed}, "
          f"{args.per} instances per domain, {secs:.1f} s")
    print("\n| domain | kind | responses | same extraction | same verdict | PlanBench: correct | PlanBench raises "
          "| planprobe's own rules differ |")
    print("|---|---|---|---|---|---|---|---|")
    total = [0] * 6
    for (domain, kind), row in sorted(tally.rows.items()):
        total = [a + b for a, b in zip(total, row)]
        rows, ext, ver, ok, raised, own = row
        print(f"| {domain} | {kind} | {rows} | {ext} ({100 * ext / rows:.1f}%) | {ver} ({100 * ver / rows:.1f}%) "
              f"| {ok} | {raised} | {own} |")
    rows, ext, ver, ok, raised, own = total
    print(f"| **all** | | {rows} | {ext} ({100 * ext / rows:.2f}%) | {ver} ({100 * ver / rows:.2f}%) | {ok} "
          f"| {raised} | {own} |")
    for example in tally.examples:
        print("DIFFERS:", example)


if __name__ == "__main__":
    main()
