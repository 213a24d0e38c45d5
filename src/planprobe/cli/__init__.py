"""The ``planprobe`` command line (entry point ``planprobe.cli:main``).

The root is ``cli/root.py``; every other module here holds a few commands and a
``register`` function, and imports neither the root nor this package's ``main``.
Importing this package loads no command: ``main`` builds the tree when called.
"""

from __future__ import annotations


def main() -> None:
    """Run the ``planprobe`` command (what the console script and ``python -m planprobe`` call)."""
    from .root import main as run_main

    run_main()
