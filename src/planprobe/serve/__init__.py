"""Testing agents that planprobe does not run itself: the case's tools served over MCP
(``planprobe serve``), a recording OpenAI-compatible proxy for the agent's model calls
(``--proxy-upstream`` / ``planprobe proxy``), and grading traces recorded elsewhere
(``planprobe check``). The environment's own tool log stays the ground truth throughout."""
