"""AgentDebug in planprobe: the error taxonomy, formal labels, AgentDebug-format benchmarks."""
