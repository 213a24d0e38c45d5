"""The package version, in a module of its own so that modules needing it (the run
store, the report, the CLI) import it without importing the whole package (no cycle
through ``planprobe/__init__``)."""

__version__ = "0.1.0"
