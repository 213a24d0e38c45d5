"""The AgentDebug study (seed 003: "Where LLM Agents Fail and How They Can Learn from Failures"):
critical-error detection (§4.1, Table 1; Fig. 7b) and downstream debugging by re-rollouts
(§4.2, Fig. 5; Fig. 7a/7c) on one agent and model, with planprobe's formal labels as the truth.

The paper's environments (ALFWorld, WebShop, GAIA) are not planprobe's; three families with
formal labels stand in, one per environment, in Table 1's column order (``FAMILIES``). Steps,
each the library code of a planprobe command, in ``DIR``:

1. ``run FAMILY``: the agent on the family's cases (``planprobe generate`` + ``run``);
2. ``label FAMILY``: every failure labelled formally, the error bench written in AgentDebug's
   trajectory format (``planprobe errorbench``) to ``bench/FAMILY.jsonl``;
3. ``detect``: each detector's picks on each family (a file per family and detector) (``planprobe detect -o``), scored against
   the formal labels: Step, Step+Module, All correct (Table 1), and planprobe's within [E, PNR];
4. ``repair FAMILY CONDITION``: re-rollouts from the detected step with feedback (AgentDebug),
   restarts without feedback (Best-of-N) and with the failure as feedback (Self-Refine), and
   planprobe's from the formal E and from a random step (``planprobe debug``).

Every step writes its file when it is done; a re-run reads finished files back.

This module holds the settings and the order of the steps; ``agentdebug_setup`` what the study is
made of, ``agentdebug_steps`` the steps, ``agentdebug_tables`` the tables read from their files.
"""

from __future__ import annotations

import functools
from typing import Any

from ..debug.restarts import RESTART_TEMPERATURE
from . import agentdebug_steps as steps
from . import agentdebug_tables as tables
from .agentdebug_setup import (
    CONDITIONS,
    DETECTORS,
    FAMILIES,
    PAPER,
    SIZES,
    FamilyResult,
    span,
)
from .base import Setting, StudyContext, StudyOutcome


class AgentDebugStudy:
    name = "agentdebug"
    paper = PAPER
    description = ("AgentDebug §4: critical-error detection (Table 1, Fig. 7b) scored against planprobe's formal "
                   "labels, and repair by re-rollouts from the detected step (Fig. 5, 7a) against Best-of-N and "
                   "Self-Refine")
    needs = "nothing to download: planprobe generates the cases and labels every failure formally"
    model_agent = "modular"  # §3, Fig. 7c: AgentDebug's agents roll out modularly

    def limits(self, size: str) -> tuple[int, float]:
        s = SIZES[size]
        return s.iterations, s.timeout

    def settings(self, size: str) -> list[Setting]:
        s = SIZES[size]
        fams = ", ".join(f"{title} for {env}" for _, title, env in FAMILIES)
        return [
            Setting("environments", fams,
                    "§4.1: ALFWorld, WebShop, GAIA (not in planprobe). planprobe's families with formal labels stand in, "
                    "one per environment in Table 1's order: Blocksworld (an embodied world acted on one action at a "
                    "time, as ALFWorld's PDDL-based household tasks), Constraints (a goal under stated constraints "
                    "reached by tool calls, as WebShop's structured constraints), Logistics (longer multi-tool plans; "
                    "no analogue of GAIA's open-domain questions)", chosen=True),
            Setting("cases per family", "/".join(str(n) for n in s.cases),
                    "§2.2: AgentErrorBench holds 100 ALFWorld, 50 WebShop and 50 GAIA failed trajectories; planprobe "
                    "runs that many cases per family and benches every failure (so at most that many)", chosen=True),
            Setting("worlds", f"Blocksworld: blocks {span(s.blocks)}; Constraints: actions {span(s.actions)}; "
                              f"Logistics: cities {span(s.cities)}, locations per city {span(s.locations)}, "
                              f"packages {span(s.packages)}",
                    "not in the paper: planprobe's generator defaults" if size == "full" else
                    "small worlds that a perfect agent finishes within the iteration cap", chosen=True),
            Setting("agent", "--agent given; with --model and no --agent: modular (memory, reflection, plan, action)",
                    "§3 and Figs. 17-19: the modular rollout; Fig. 7c: it beats ReAct, Reflection, Act-only"),
            Setting("iterations per case", s.iterations,
                    "not in the paper (its Step Limit Exhaustion type implies a cap)" if size == "full" else
                    "a small cap so the stage-1 prompts (4 per step) stay few at this size", chosen=True),
            Setting("time per case", f"{s.timeout:g} s", "not in the paper", chosen=True),
            Setting("truth", "the formal earliest error E (step, module, type; planprobe label)",
                    "§2.2: human annotators' root cause (Cohen's κ 0.55). planprobe's truth is formal: the earliest "
                    "formally detectable error (docs/debugging.md)", chosen=True),
            Setting("detector model", "the --model given (the agent's), temperature 0",
                    "§4.1: GPT-4.1 at temperature 0; Fig. 7b: other base models"),
            Setting("detector reply", f"at most {s.detector_tokens} tokens", "not in the paper", chosen=True),
            Setting("detectors", "Direct Prompting, Brute Force, Binary Search, AgentDebug (two-stage); planprobe's "
                                 "random and oracle",
                    "§4.1 Baselines; Brute Force and Binary Search ask the model whether the run is still "
                    "recoverable instead of re-rolling out (deviation: docs/debugging.md)"),
            Setting("metrics", "Step (S), Step+Module (S+M), All correct (ALL); Fig. 7b's Error: the type alone",
                    "§4.1 Evaluation Metric; Average: pooled over the trajectories (the paper's average of the three "
                    "environments' rates)"),
            Setting("re-rollouts", f"up to {s.rounds} per failed case, from the detected step",
                    "§4.2 Implementation: up to N = 5 re-rollouts, each beginning at the identified critical step"
                    if size == "full" else "§4.2: N = 5; fewer at this size", chosen=size != "full"),
            Setting("repair baselines", "Best-of-N (fresh restarts, no feedback, each a sample of its own), "
                                        "Self-Refine (restart with the failure as feedback), at the same number "
                                        "of attempts"
                    + ("; planprobe's: from the formal E and from a random step" if "oracle" in s.repairs else "")
                    + ("" if set(s.repairs) == set(CONDITIONS) else
                       f"; at this size only {', '.join(s.repairs)} (the model's calls being most of its time)"),
                    "§4.2 Baselines (also Vanilla Debugger and ToT, not built); the paper matches token budgets, "
                    "planprobe matches attempts and reports tokens"),
            Setting("Best-of-N restarts", f"temperature {RESTART_TEMPERATURE:g}, restart k its own seed and "
                                          "cache entry; AgentDebug and Self-Refine keep the run's settings",
                    "not in the paper: planprobe's choice. §4.2 names Best-of-N (§5: best-of-N sampling) without "
                    "its temperature; §4.1's temperature 0 is the detector's. At the run's temperature 0 every "
                    "restart would repeat the first attempt. 0.7: planprobe's setting for several samples (the "
                    "LLM judge's; debug --restart-temperature)", chosen=True),
            Setting("success", "cases passed at the first attempt, and passed or fixed within the re-rollouts",
                    "§4.2 and Fig. 5: first attempt against AgentDebug"),
        ]

    def steps(self, size: str) -> list[str]:
        out = [f"run {f}" for f, _, _ in FAMILIES] + [f"label {f}" for f, _, _ in FAMILIES]
        out += ["detect"]
        out += [f"repair {f} {c}" for f, _, _ in FAMILIES for c in CONDITIONS]
        return out

    # -- the steps ------------------------------------------------------------------------

    def run(self, ctx: StudyContext) -> StudyOutcome:
        from ..agents.prefix import can_resume

        s = SIZES[ctx.size]
        model = steps.detector_model(ctx)
        resumable = can_resume(ctx.agent)
        results = {f: FamilyResult(f) for f, _, _ in FAMILIES}
        out = StudyOutcome()
        for (fam, _, _), n in zip(FAMILIES, s.cases):
            ctx.step(f"run {fam}", functools.partial(steps.run_family, ctx, fam, n))
            out.runs.append(f"runs/{fam}")
        for fam, _, _ in FAMILIES:
            steps.count(ctx, results[fam])
        for fam, _, _ in FAMILIES:
            results[fam].bench = ctx.step(f"label {fam}", functools.partial(steps.bench, ctx, fam))
        detectors = [d for d in DETECTORS if model is not None or d not in ("agentdebug", "direct", "brute-force",
                                                                            "binary-search")]
        picks = ctx.step("detect", functools.partial(steps.detect, ctx, results, detectors, model, s.detector_tokens))
        for fam, _, _ in FAMILIES:
            results[fam].picks = picks[fam]
        for fam, _, _ in FAMILIES:
            repairs: dict[str, list[dict[str, Any]]] = {}
            results[fam].repairs = repairs
            if not resumable:
                continue
            for cond in s.repairs:
                if cond not in ("none", "self-refine") and cond not in picks[fam]:
                    continue
                if not results[fam].bench:
                    repairs[cond] = []  # no failure: nothing to re-roll out
                    continue
                repairs[cond] = ctx.step(f"repair {fam} {cond}", functools.partial(
                    steps.repair, ctx, fam, cond, results[fam], s.rounds))
        why_no_model = "the model detectors need a model: run with --model"
        why_no_repair = (f"agent {ctx.config.agent} cannot continue from a step: repair needs --agent modular, react, "
                         "tools or a python: agent taking 'prefix'")
        out.tables += [tables.bench_table(ctx, results), tables.table1(ctx, results, why_no_model),
                       tables.formal(ctx, results), tables.figure7b(ctx, results, why_no_model),
                       tables.figure5(ctx, results, why_no_model, why_no_repair, s.rounds),
                       tables.repair_table(ctx, results, why_no_model, why_no_repair, s.rounds),
                       tables.figure7c(ctx, results)]
        out.plots.append(tables.plot(ctx, results, s.rounds))
        return out


__all__ = ["SIZES", "STUDY", "AgentDebugStudy"]  # SIZES: the study's sizes (the tests read them here)
STUDY = AgentDebugStudy()
