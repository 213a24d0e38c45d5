"""The LLM judge: APB's rubric applied by any configured model, several samples,
one verdict marked ``judged``.

Each sample is one chat call with the rubric prompt; its reply is parsed
leniently (parse.py). The verdict's ``score`` is the **median** of the usable
samples' grades and ``passed`` is ``score >= threshold``. With an odd number of
samples that is exactly a majority vote on "grade >= threshold", so one
outlying sample can neither pass nor fail a trace on its own; with an even
number a tie fails. The default threshold is 1.0, APB's ``is_correct``: a
trace passes only when the judges find no error at all.

Error codes flagged by more than half of the usable samples become the
verdict's errors (``E4_LOGICAL_DEFECT`` …), each with an Evidence entry; one
more Evidence entry (kind ``judge_agreement``) records the grades, the pass
votes and the agreement — the share of samples on the majority side.

Samples are independent draws: sample ``i`` shifts the seed and is its own
record/replay cache entry. With one sample the default temperature is 0 (APB's
setting); with several it is 0.7, since identical draws would agree trivially.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import PlanprobeError
from ..models.base import ChatParams, Model
from ..schema import (
    Case,
    ErrorClass,
    Evidence,
    Message,
    OracleKind,
    ToolSpec,
    Trace,
    TraceStatus,
    Verdict,
)
from ..suites.judged.render import clip
from .context import build_context
from .parse import ParsedJudgement, parse_judgement, unparseable
from .rubric import BY_CODE, CODES, PROMPT_VERSION, judgement_tool_schema, render_prompt

UNPARSEABLE_ERROR = "judge_unparseable"
JUDGE_TOOL = ToolSpec(name="submit_judgement", description="Record the judgement of the agent's plan.",
                      parameters=judgement_tool_schema())
FORMATS = ("json", "tool")
EPS = 1e-9


@dataclass(frozen=True)
class JudgeConfig:
    samples: int = 3
    threshold: float = 1.0  # pass when the median grade reaches it (1.0 = APB's is_correct)
    temperature: float | None = None  # None: 0 for one sample, 0.7 for several
    max_tokens: int = 256
    seed: int = 0
    reference: bool = True  # show the judge the reference solution, as APB does
    reply_format: str = "json"  # "json": APB's JSON reply; "tool": a submit_judgement function call
    tool_choice: str = "required"  # tool format: "auto" for servers that refuse "required" (llama.cpp's)
    max_trace_chars: int = 4000

    def check(self) -> None:
        if self.samples < 1:
            raise PlanprobeError("--samples must be at least 1")
        if not 0.0 <= self.threshold <= 1.0:
            raise PlanprobeError("--threshold must be between 0 and 1")
        if self.reply_format not in FORMATS:
            raise PlanprobeError(f"--format must be one of {', '.join(FORMATS)}")
        if self.tool_choice not in ("required", "auto"):
            raise PlanprobeError("--tool-choice must be required or auto")
        if self.temperature is not None and self.temperature < 0:
            raise PlanprobeError("--temperature must not be negative")
        if self.max_tokens < 16:
            raise PlanprobeError("--max-tokens must be at least 16")

    @property
    def effective_temperature(self) -> float:
        if self.temperature is not None:
            return self.temperature
        return 0.0 if self.samples == 1 else 0.7

    def identity(self, model_name: str) -> dict[str, Any]:
        """What must match for a stored judgement to be reused."""
        return {"judge_model": model_name, "samples": self.samples, "threshold": self.threshold,
                "temperature": self.effective_temperature, "max_tokens": self.max_tokens, "seed": self.seed,
                "reference": self.reference, "format": self.reply_format, "prompt": PROMPT_VERSION,
                **({"tool_choice": self.tool_choice} if self.reply_format == "tool" else {})}


@dataclass
class SampleRecord:
    index: int
    parsed: ParsedJudgement
    raw: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, **self.parsed.to_json(), "raw": clip(self.raw, 2000)}


@dataclass
class Judgement:
    verdict: Verdict
    samples: list[SampleRecord] = field(default_factory=list)
    pass_votes: int = 0
    usable: int = 0

    @property
    def agreement(self) -> float | None:
        """Share of usable samples on the majority side of pass/fail."""
        if not self.usable:
            return None
        return max(self.pass_votes, self.usable - self.pass_votes) / self.usable

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict.model_dump(mode="json"), "samples": [s.to_json() for s in self.samples],
                "pass_votes": self.pass_votes, "usable": self.usable, "agreement": self.agreement}


def judge_messages(case: Case, trace: Trace, config: JudgeConfig) -> list[Message]:
    system, user = render_prompt(build_context(case, trace, config.reference, config.max_trace_chars),
                                 config.reply_format)
    return [Message(role="system", content=system), Message(role="user", content=user)]


async def sample_once(model: Model, messages: list[Message], config: JudgeConfig, index: int) -> SampleRecord:
    params = ChatParams(temperature=config.effective_temperature, seed=config.seed + index,
                        max_tokens=config.max_tokens, sample=index,
                        tool_choice=config.tool_choice if config.reply_format == "tool" else "auto")
    tools = [JUDGE_TOOL] if config.reply_format == "tool" else None
    result = await model.chat(messages, tools, params)
    reply = result.message
    if reply.tool_calls:
        fn = reply.tool_calls[0].get("function", {})
        raw = fn.get("arguments") or ""
        if fn.get("name") != JUDGE_TOOL.name:
            return SampleRecord(index, unparseable(f"called {fn.get('name')!r}, not {JUDGE_TOOL.name}"), raw)
        return SampleRecord(index, parse_judgement(raw), raw)
    raw = reply.content or ""
    return SampleRecord(index, parse_judgement(raw), raw)


async def judge_trace_detailed(model: Model, case: Case, trace: Trace, config: JudgeConfig = JudgeConfig()) -> Judgement:
    """Judge one trace: ``config.samples`` calls, aggregated into one judged verdict."""
    config.check()
    checker = f"judge:{model.name}:{PROMPT_VERSION}"
    if trace.status == TraceStatus.INFRA_ERROR:
        return Judgement(Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=[ErrorClass.INFRA.value],
                                 oracle=OracleKind.JUDGED, checker=checker,
                                 evidence=[Evidence(error=ErrorClass.INFRA.value, kind="infra", symbolic="infra",
                                                    text="The model service failed; there is nothing to judge.")]))
    messages = judge_messages(case, trace, config)
    samples = [await sample_once(model, messages, config, i) for i in range(config.samples)]
    return aggregate(case, trace, samples, config.threshold, checker)


async def judge_trace(model: Model, case: Case, trace: Trace, samples: int = 3, params: ChatParams | None = None,
                      *, threshold: float = 1.0, reference: bool = True, reply_format: str = "json") -> Verdict:
    """The judged verdict of one trace. ``params`` supplies temperature, seed and max
    tokens (default: see JudgeConfig)."""
    config = JudgeConfig(samples=samples, threshold=threshold, reference=reference, reply_format=reply_format)
    if params is not None:
        config = replace(config, temperature=params.temperature, seed=params.seed or 0, max_tokens=params.max_tokens)
    return (await judge_trace_detailed(model, case, trace, config)).verdict


def aggregate(case: Case, trace: Trace, samples: list[SampleRecord], threshold: float, checker: str) -> Judgement:
    """Median grade, majority error codes, agreement; see the module docstring."""
    usable = [s.parsed for s in samples if s.parsed.usable]
    n = len(samples)
    bad = [s.parsed for s in samples if not s.parsed.usable]
    evidence: list[Evidence] = []
    if bad:
        evidence.append(Evidence(error=UNPARSEABLE_ERROR if not usable else "", kind="judge_unparseable",
                                 symbolic=f"{len(bad)}/{n} judge samples unparseable",
                                 text=bad[0].problems[-1] if bad[0].problems else "unparseable"))
    if not usable:
        verdict = Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=[UNPARSEABLE_ERROR],
                          evidence=evidence, oracle=OracleKind.JUDGED, checker=checker, score=None)
        return Judgement(verdict, samples, 0, 0)
    grades = [p.grade for p in usable if p.grade is not None]  # usable means graded
    score = float(statistics.median(grades))
    passed = score >= threshold - EPS
    votes = sum(g >= threshold - EPS for g in grades)
    counts = Counter(c for p in usable for c in p.errors)
    majority = [c for c in CODES if counts[c] * 2 > len(usable)]
    for c in majority:
        evidence.append(Evidence(error=BY_CODE[c].label, kind="judge_error",
                                 symbolic=f"{c} flagged by {counts[c]}/{len(usable)} judge samples",
                                 text=BY_CODE[c].definition))
    reason = next((p.reasoning for p in usable if p.grade == score and p.reasoning), "")
    agreement = max(votes, len(usable) - votes) / len(usable)
    evidence.append(Evidence(
        error="", kind="judge_agreement",
        symbolic=f"grades {[round(g, 3) for g in grades]}; median {score:.2f}; pass votes {votes}/{len(usable)}; "
                 f"agreement {agreement:.2f}",
        text=clip(reason, 600) or "(no reasoning given)",
    ))
    verdict = Verdict(case_id=case.id, trial=trace.trial, passed=passed, errors=[BY_CODE[c].label for c in majority],
                      evidence=evidence, oracle=OracleKind.JUDGED, checker=checker, score=round(score, 6))
    return Judgement(verdict, samples, votes, len(usable))
