"""The solver (issue #27): a model backend that plans perfectly from what a model is shown.

It sees each chat call's messages and tool list, never the ``Case``; its readers are written
against the texts the families produce and import nothing from the families (``suites``), the
agents or the runner (tested in ``tests/test_import_graph.py``). See ``base.py`` for the seam
between the scaffold layer (how each agent scaffold talks) and the task readers (what each
family's text says).
"""
