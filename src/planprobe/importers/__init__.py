"""Readers of outside data sets: ``planprobe import apb | planbench-results | travelplanner | apibank``.

Each reads a data set in its authors' format (APB's records and prompts, PlanBench's recorded
responses and instances, TravelPlanner's HF splits, API-Bank's dialogues and level-3 samples),
checks it with errors that name the file, line and field, and turns it into cases of a family of
``suites/`` (or re-scores it). The families never import this package: what a family needs while
a run is judged (TravelPlanner's sandbox, API-Bank's databases, APB's record format) stays in the
family (docs/ARCHITECTURE.md).
"""
