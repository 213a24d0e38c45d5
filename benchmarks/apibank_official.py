"""API-Bank: planprobe's verdicts against API-Bank's own code, call by call.

    git clone https://github.com/AlibabaResearch/DAMO-ConvAI   # API-Bank is its api-bank/ folder
    PYTHONPATH=src python benchmarks/apibank_official.py DAMO-ConvAI/api-bank ../shared/data/api-bank

For every api case of levels 1-2 and every step case of level 3, the gold call and the
tests' mutations of it (``tests/apibank/test_apibank_scoring.py::_mutations``: another
API, an argument left out, an undeclared one, changed, padded, lower-cased, shortened
values …) go through API-Bank's own path: the call written as API-Bank's data writes it
(every value quoted), ``api_call_extraction.parse_api_call``, ``ToolManager.api_call``
(``./apis``, or ``./lv3_apis`` with lv3_evaluator's handling) and the API's own
``check_api_call_correctness``. planprobe judges the same call; the script counts how
often its **official** reading (list arguments as text) and its **corrected** reading
(lists as lists) give API-Bank's verdict, split by calls that pass a list argument.

API-Bank's code is imported from the checkout given (it is the user's clone; this
script is not part of planprobe). Modules only its web- or model-backed APIs need
(sentence_transformers, nltk, googletrans, rank_bm25, torch, selenium) are replaced by
empty stand-ins, and those APIs are left out: ToolSearcher, Dictionary, Translate,
SearchEngine (levels 1-2), ToolSearcher and GetWeatherForCoordinates (level 3).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent / "tests" / "apibank")]

from official_scoring import api_bank_call_text
from test_apibank_scoring import _mutations, trace_of

from planprobe.importers.apibank import import_cases
from planprobe.suites.registry import get_family

WEB_BACKED = {"ToolSearcher", "Dictionary", "Translate", "SearchEngine"}
LEFT_OUT = {1: WEB_BACKED, 2: WEB_BACKED, 3: {"ToolSearcher", "GetWeatherForCoordinates"}}


def stub_modules() -> None:
    """Empty stand-ins for what only API-Bank's web- and model-backed APIs import."""
    for name in ("sentence_transformers", "nltk", "googletrans", "rank_bm25", "torch", "selenium"):
        module = types.ModuleType(name)
        for attr in ("SentenceTransformer", "util", "Translator", "BM25Okapi"):
            setattr(module, attr, mock.MagicMock())
        module.download = lambda *a, **k: None  # type: ignore[attr-defined]
        sys.modules[name] = module
    tokenize = types.ModuleType("nltk.tokenize")
    tokenize.word_tokenize = lambda s: s.split()  # type: ignore[attr-defined]
    sys.modules["nltk.tokenize"] = tokenize
    for sub in ("selenium.webdriver", "selenium.webdriver.common", "selenium.webdriver.common.by",
                "selenium.webdriver.chrome", "selenium.webdriver.chrome.options"):
        sys.modules[sub] = mock.MagicMock()


def api_bank_judge(code: Path, level: int) -> Callable[[str, dict[str, Any]], bool]:
    """API-Bank's verdict on one call written in its syntax (evaluator.py / lv3_evaluator.py)."""
    here = os.getcwd()
    os.chdir(code)
    sys.path.insert(0, str(code))
    try:
        from api_call_extraction import parse_api_call  # type: ignore[import-not-found]
        from tool_manager import ToolManager  # type: ignore[import-not-found]
    finally:
        os.chdir(here)

    def split_by_uppercase(text: str) -> str:
        import re

        return " ".join(re.findall(r"[A-Z][^A-Z]*", text))

    def judge(text: str, gold: dict[str, Any]) -> bool:
        os.chdir(code)
        try:
            manager = ToolManager("./lv3_apis") if level == 3 else ToolManager()  # a new one per sample
            name, params = parse_api_call(text)
            if level != 3 and name != gold["api_name"]:
                return False
            try:
                if level == 3 and name == "ToolSearcher":
                    params["keywords"] = split_by_uppercase(params["keywords"])
                result = manager.api_call(name, **params)
            except Exception:  # noqa: BLE001  (evaluator.py: the error message, incorrect)
                return False
            try:
                return bool(manager.init_tool(gold["api_name"]).check_api_call_correctness(result, gold["result"]))
            except (KeyError, AssertionError):
                return False
        finally:
            os.chdir(here)

    return judge


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("code", type=Path, help="API-Bank's checkout (the api-bank/ folder of DAMO-ConvAI)")
    parser.add_argument("data", type=Path, help="API-Bank's data folder (e.g. ../shared/data/api-bank)")
    args = parser.parse_args()
    stub_modules()
    rows = []
    for level in (1, 2, 3):
        judge = api_bank_judge(args.code.resolve(), level)
        rng = random.Random(level)
        counts = {kind: {"calls": 0, "official": 0, "corrected": 0, "api_bank_correct": 0}
                  for kind in ("no list", "list")}
        for case in import_cases(args.data, level, ("step",) if level == 3 else ("api",)):
            gold = case.spec["gold"]
            if gold["api_name"] in LEFT_OUT[level]:
                continue
            family = get_family(case.family)
            for name, call in _mutations(case, rng):
                if isinstance(call, str) or name in LEFT_OUT[level]:
                    continue
                readings = family.check(case, trace_of(case, [(name, call)])).labels["api_bank"]["readings"]
                theirs = judge(api_bank_call_text(name, json.loads(json.dumps(call))), gold)
                c = counts["list" if any(isinstance(v, (list, dict)) for v in call.values()) else "no list"]
                c["calls"] += 1
                c["official"] += readings["official"]["correct"] == theirs
                c["corrected"] += readings["corrected"]["correct"] == theirs
                c["api_bank_correct"] += theirs
        for kind, c in counts.items():
            rows.append({"level": level, "kind": kind, **c})
    print("| level | calls | n | official reading agrees | corrected reading agrees | API-Bank: correct |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['level']} | {r['kind']} | {r['calls']} | {r['official']} | {r['corrected']} | "
              f"{r['api_bank_correct']} |")
    total = {k: sum(r[k] for r in rows) for k in ("calls", "official", "corrected")}
    print(f"| all | | {total['calls']} | {total['official']} | {total['corrected']} | |")


if __name__ == "__main__":
    main()
