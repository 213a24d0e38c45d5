"""``python -m planprobe`` — the same as the ``planprobe`` command."""

from .cli import main

main()
