"""``planprobe study --help`` explains every option it shows, and the text says what the
study decides itself (limits per case, the default agent, the data options, the exit codes)."""

from __future__ import annotations

from planprobe.cli.lazy import load_command


def _study_command():
    return load_command("study")  # the root lists commands lazily; this is the real one


def test_every_shown_option_of_study_has_help():
    command = _study_command()
    shown = [p for p in command.params if not getattr(p, "hidden", False)]
    assert {"--threads", "--ctx", "--cache-path", "--quick", "--workers", "--out"} <= {o for p in shown for o in p.opts}
    missing = [p.opts[0] for p in shown if not (getattr(p, "help", None) or "").strip()]
    assert not missing, missing


def test_study_help_says_what_the_study_decides():
    text = _study_command().help or ""
    for words in ("limits per case", "agentdebug: modular", "--travelplanner", "--apb-data", "Exit 2", "130"):
        assert words in text, words
