"""A run's totals kept by its writer (runner/tally.py): what ``planprobe view`` lists without a scan."""

from __future__ import annotations

import json

from helpers import cases
from planprobe.api import run_suite
from planprobe.runner.store import RunStore
from planprobe.runner.tally import TALLY_KEY, compute, read_tally


def test_the_writer_stores_the_totals_and_readers_use_them_only_while_current(tmp_path):
    suite = cases(8, seed=3)
    run_suite(suite, "random", tmp_path / "run", concurrency=1)
    with RunStore(tmp_path / "run") as store:
        stored = json.loads(store.meta()[TALLY_KEY])
        assert stored == compute(store.db)  # the totals of every result, as the aggregate query sums them
        assert stored["cases"] == 8 and stored["results"] == 8
        assert stored["passed"] == sum(r.passed for r in store.rows())
        results = list(store.results())
    with RunStore(tmp_path / "other", create=True) as writer:
        writer.initialize(suite, {"trials": "1"})
        writer.add_result(*results[0])
        forged = {**compute(writer.db), "passed": 99}
        writer.set_meta({TALLY_KEY: json.dumps(forged)})
        # the writer is still open (its WAL is there): the stored totals are not trusted
        assert read_tally(writer.db, settled=False)["passed"] == int(results[0][1].passed)
        assert read_tally(writer.db, settled=True)["passed"] == 99  # (what a settled run would say)
        writer.add_result(*results[1])
        assert read_tally(writer.db, settled=True)["results"] == 2  # a result after them: recomputed
    with RunStore(tmp_path / "other") as reader:
        assert not (tmp_path / "other" / "run.sqlite-wal").exists()
        tally = read_tally(reader.db, settled=True)
        assert tally == json.loads(reader.meta()[TALLY_KEY])  # rewritten as the writer closed
        assert tally["results"] == 2 and tally["passed"] == sum(int(v.passed) for _, v in results[:2])
