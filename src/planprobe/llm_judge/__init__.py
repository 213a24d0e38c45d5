"""The LLM judge for cases without a formal oracle (APB's rubric), and its
calibration against the exact oracles on formal cases."""

from .judge import JudgeConfig, Judgement, judge_trace, judge_trace_detailed
from .parse import ParsedJudgement, parse_judgement
from .rubric import ERROR_CODES, GRADES, PROMPT_VERSION, JudgeContext, render_prompt

__all__ = [
    "ERROR_CODES", "GRADES", "PROMPT_VERSION", "JudgeConfig", "JudgeContext", "Judgement", "ParsedJudgement",
    "judge_trace", "judge_trace_detailed", "parse_judgement", "render_prompt",
]
