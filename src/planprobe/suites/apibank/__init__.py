"""API-Bank (Li et al., EMNLP 2023) as planprobe cases: import, APIs, scoring.

See docs/api-bank.md. ``build.import_cases`` turns API-Bank's data into cases;
``apis`` implements its level-1/2 APIs over its initial databases; ``checks`` holds
its per-API correctness rules; ``rouge`` its ROUGE-L; ``family`` judges runs,
including PMC's whole-run metrics on level 3.
"""
