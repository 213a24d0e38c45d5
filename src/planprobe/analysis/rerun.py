"""Re-running a stored run (``dissect``): which agent and model, and with whose consent.

A run directory is untrusted data. Its stored agent may be ``python:<module or file>:<fn>``,
which would import and run code named by the directory: that needs ``--agent`` on the
command line, every time. Its stored model is honoured exactly or the command refuses: a
run made with ``--model-path FILE`` re-runs with that file (recorded as ``model_path`` by
``run``/``sweep``) or with the ``--model-path`` given now — never silently with the embedded
model. Settings the run recorded (limits, temperature, max tokens) are its defaults.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import PlanprobeError

MODEL_PATH_META = "model_path"  # run meta key: the GGUF file a local run used (absolute), if not the embedded one


@dataclass(frozen=True)
class RerunChoice:
    agent: str | None
    model: str | None  # a --model spec: "local" or "openai:<name>"
    model_path: Path | None


def embedded_stem() -> str:
    from ..models.local import DEFAULT_GGUF

    return Path(DEFAULT_GGUF).stem


def choose_rerun(meta: dict[str, str], where: str, agent: str | None, model: str | None,
                 model_path: Path | None) -> RerunChoice:
    """The agent and model to re-run ``where`` (a run or sweep directory) with; PlanprobeError
    (one line) when the stored choice needs consent or cannot be honoured."""
    stored_agent = meta.get("agent") or None
    if agent is None:
        if stored_agent and stored_agent.startswith("python:"):
            raise PlanprobeError(
                f"{where} was run with agent {stored_agent}: planprobe does not import code named in a run "
                f"directory; pass --agent {stored_agent} to run it")
        agent = stored_agent
    recorded = meta.get("model") or None
    if model is None and recorded:
        kind, _, name = recorded.partition(":")
        if kind != "local":
            raise PlanprobeError(f"{where} was run with model {recorded}: pass it with --model "
                                 "(and --base-url if needed)")
        model = "local"
        if model_path is None:
            stored_path = meta.get(MODEL_PATH_META)
            if stored_path:
                if not Path(stored_path).is_file():
                    raise PlanprobeError(f"{where} was run with the model file {stored_path}, which no longer "
                                         "exists: pass --model-path to the same GGUF file")
                model_path = Path(stored_path)
            elif name != embedded_stem():
                raise PlanprobeError(f"{where} was run with the local model {recorded}, not the embedded one, "
                                     "and its file is not recorded: pass --model-path to that GGUF file")
    return RerunChoice(agent, model, model_path)


def stored_limits(meta: dict[str, str]) -> tuple[int | None, float | None]:
    """The run's (max_iterations, timeout_s), or Nones when not recorded."""
    try:
        limits = json.loads(meta.get("limits") or "{}")
        return int(limits["max_iterations"]), float(limits["timeout_s"])
    except (ValueError, KeyError, TypeError):
        return None, None


def stored_params(meta: dict[str, str]) -> tuple[float | None, int | None]:
    """The run's (temperature, max_tokens) from its ``model_params``, or Nones."""
    text = meta.get("model_params") or ""
    t = re.search(r"temperature=([0-9.eE+-]+)", text)
    m = re.search(r"max_tokens=(\d+)", text)
    try:
        return (float(t.group(1)) if t else None), (int(m.group(1)) if m else None)
    except ValueError:
        return None, None
