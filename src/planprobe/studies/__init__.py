"""Studies: each paper's experiments in one command (issue #28)."""
