"""API-Bank (Li et al., EMNLP 2023) as a planprobe family: APIs, scoring.

See docs/api-bank.md. ``planprobe import apibank`` (``importers/apibank``) turns API-Bank's
data into cases of this family, whose shape ``spec`` holds; ``apis`` implements its level-1/2
APIs over its initial databases (``databases``); ``checks`` holds its per-API correctness rules;
``rouge`` its ROUGE-L; ``family`` judges runs, including PMC's whole-run metrics on level 3.
"""
