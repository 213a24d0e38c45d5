"""planprobe: test, benchmark and diagnose the planning of LLM agents."""

__version__ = "0.1.0"
