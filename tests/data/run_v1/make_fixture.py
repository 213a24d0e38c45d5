"""How tests/data/run_v1 was made: run directories written by planprobe before trace
version 2 and run format 2 (commit a1afb3c), kept so tests prove they still read
(show, report, resume, re-rollout). Not a test; run it with that commit's sources:

    git worktree add --detach /tmp/pp-v1 a1afb3c
    PYTHONPATH=/tmp/pp-v1/src python tests/data/run_v1/make_fixture.py tests/data/run_v1

The tools and react runs use a scripted model (calls each tool once, in the order
the tools are listed, then answers), so no model file is needed.
"""

import asyncio
import re
import sys
from pathlib import Path

from planprobe.agents import make_agent
from planprobe.models.base import ChatParams, ChatResult, tool_call
from planprobe.runner.engine import RunConfig, open_run, run_pending
from planprobe.schema import Message, Usage
from planprobe.suites.io import load_suite


class ListedOrder:
    name = "scripted:listed-order"

    async def chat(self, messages, tools, params):
        done = sum(1 for m in messages if m.role == "assistant")
        if tools is not None:  # function calling
            names = [t.name for t in tools]
            if done < len(names):
                return ChatResult(Message(role="assistant", content="",
                                          tool_calls=[tool_call(f"call_{done}", names[done], "{}")]), Usage(model_calls=1))
            return ChatResult(Message(role="assistant", content="All done."), Usage(model_calls=1))
        names = re.search(r"exactly one of \[(.*?)\]", messages[-1 - 2 * done].content or "")
        names = [n.strip() for n in names.group(1).split(",")] if names else []
        if done < len(names):
            text = f"Thought: next.\nAction: {names[done]}\nAction Input: {{}}\n"
        else:
            text = "Thought: I have completed every task\nFinal Answer: done"
        return ChatResult(Message(role="assistant", content=text), Usage(model_calls=1))

    async def aclose(self):
        pass


def main(out: Path) -> None:
    suite = load_suite(out / "suite.jsonl")
    for name in ("tools", "react"):
        config = RunConfig(agent=name, model=ListedOrder.name, model_params="temperature=0.0,max_tokens=512")
        store = open_run(out / f"{name}_scripted", suite, config, suite_name="suite.jsonl")
        try:
            asyncio.run(run_pending(store, make_agent(name, 0, model=ListedOrder(), params=ChatParams(seed=0)), config))
        finally:
            store.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
