"""The suite reader names the line of a byte that is not UTF-8 in every command that reads a
suite (Python's text reader decodes in chunks of kilobytes, so it used to name a line before)."""

from __future__ import annotations

import subprocess

import pytest

from helpers import cases as make_cases
from helpers import planprobe_cmd, subprocess_env
from planprobe.suites.io import write_suite


@pytest.fixture(scope="module")
def bad_suite(tmp_path_factory):
    """12 cases whose line 11 holds a Latin-1 byte, with lines 9 and 10 in the same 8 KiB chunk."""
    folder = tmp_path_factory.mktemp("suite")
    good = folder / "good.jsonl"
    write_suite(make_cases(n=12, seed=5, actions=(3, 3)), good)
    lines = good.read_bytes().splitlines(keepends=True)
    assert sum(map(len, lines[8:11])) < 8192  # the bad line shares its decoding chunk with those before it
    assert b'"task":"' in lines[10]
    lines[10] = lines[10].replace(b'"task":"', b'"task":"\xe9', 1)
    path = folder / "bad.jsonl"
    path.write_bytes(b"".join(lines))
    return path


@pytest.mark.parametrize("command", [
    ["run", "--agent", "oracle", "--out", "{tmp}/run"],
    ["serve", "--out", "{tmp}/serve"],
    ["export", "inspect", "-o", "{tmp}/inspect"],
    ["check", "{tmp}/traces.jsonl", "--out", "{tmp}/check"],
])
def test_a_byte_that_is_not_utf8_is_named_on_its_own_line(bad_suite, tmp_path, command):
    (tmp_path / "traces.jsonl").write_text('{"case_id": "x", "messages": []}\n')
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    at = 2 if command[0] == "export" else 1
    done = subprocess.run(planprobe_cmd() + [*args[:at], str(bad_suite), *args[at:]], capture_output=True,
                          text=True, env=subprocess_env(), timeout=600)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert f"{bad_suite}:11: not UTF-8" in lines[0], lines


def test_lines_end_as_in_text_mode_and_the_bad_line_is_counted_across_them():
    import io

    from planprobe.errors import PlanprobeError
    from planprobe.suites.io import numbered_lines

    data = b"a\r\nb\rc\n\nd"
    assert list(numbered_lines(io.BytesIO(data), "f")) == \
        list(enumerate(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read().split("\n"), 1))
    with pytest.raises(PlanprobeError, match=r"^f:4: not UTF-8 text \(byte 0xff\)$"):
        list(numbered_lines(io.BytesIO(b"a\nb\rc\r\xff\n"), "f"))
