"""A python: agent for the agentdebug study's tests: it plays the family's reference plan with its
last action moved first (a mistake at step 1) unless it is resumed with guidance; with guidance it
finishes the reference plan from where the prefix left off (so a re-rollout from a step at or
before the mistake fixes the case, and a restart without feedback never does)."""

from __future__ import annotations

from planprobe.suites.registry import get_family


def agent(case, env, prefix=None):
    plan = get_family(case.family).reference_plan(case)
    guided = prefix is not None and prefix.guidance is not None
    done = 0 if prefix is None else len(prefix.tool_calls)
    if not guided:
        if len(plan) - done >= 2:
            plan = plan[:done] + [plan[-1]] + plan[done:-1]  # the last action first: breaks its order
    elif [(c.name, c.arguments) for c in prefix.tool_calls] != [(c.name, c.arguments) for c in plan[:done]]:
        plan = plan[:done]  # the prefix already went wrong: nothing left to fix it with
    for call in plan[done:]:
        env.step()
        env.call(call.name, call.arguments)
    env.finish("All tasks are done.")
    return "All tasks are done."
