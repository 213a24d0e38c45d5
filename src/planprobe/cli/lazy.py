"""The root's commands, loaded only when one runs (issue #30: start-up).

Importing every command module to list them cost ~0.3 s on each start (the modules import
their library halves: models, families, analysis). The root group instead knows each
command by name from the table below — the module that registers it and the one line
``--help`` lists — and imports that module only when the command is run or its own help is
asked for. ``tests/test_cli_lazy_startup.py`` checks the table against the commands themselves
(name, module, help) and that ``run --help`` loads no other command's module.
"""

from __future__ import annotations

import importlib
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

# (command, module under planprobe.cli whose register() adds it — "" for the ``import`` group,
# filled by several modules' register_import — the first paragraph of its help, as --help lists it)
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ('run', 'run',
     'Run a suite against an agent; results are stored in RUN_DIR as each case finishes (resumable).'),
    ('show', 'show',
     'Summarize a run: pass rate with 95% CI, failures by class, by action count.'),
    ('trials', 'stats',
     'pass@k and pass^k over repeated trials, with 95% bootstrap CIs, and the flaky cases.'),
    ('compare', 'stats',
     'Paired comparison of two runs: pass rates, exact McNemar test, bootstrap CI of the difference.'),
    ('gate', 'stats',
     'Exit 1 when the pass rate dropped by more than --max-drop and the drop is significant.'),
    ('anatomy', 'stats',
     'Error anatomy: error classes per run, failures per topic and difficulty, and the constraint phrasings and connective words agents violate most.'),
    ('sweep', 'sweep',
     "Capability sweep (PDoctor §6.2): raise the number of actions until success falls below the threshold. The planning limit is the first n below it (both it and the last n at or above are printed); OUT/sweep.json keeps the figures for 'planprobe dissect OUT'."),
    ('dissect', 'sweep',
     "Error dissection (PDoctor Alg. 2, §6.2): root causes — Probability, Phrasing (a connective word), Terminal, Topic, Structure or Constraint — of a random sample of failures within the planning limit, each next to its chance baseline with a significance test. Each settled case goes to its run's dissect.jsonl at once (resumable)."),
    ('study', 'study',
     "Run a paper's study on your model: the paper's settings (each with its place in the paper), every run under --out (resumable), the paper's tables with the published figures beside yours and 95% intervals, and OUT/study.json. 'study compare DIR1 DIR2 …' sets studies side by side."),
    ('report', 'report',
     "A self-contained HTML report (of a study directory: its study section — the paper's tables and plots): summary, pass rate by difficulty with 95% CIs, error and root-cause distributions, a filterable case table with drill-down; paired comparisons for several runs. Opens offline; all suite and model text is escaped."),
    ('view', 'view',
     'Browse runs, sweeps and studies in a browser: the run list (following runs still being written), a run\'s plots and case table, a case\'s trace as a timeline, comparisons and studies. Listens on 127.0.0.1 only; the printed URL carries a token every request needs. Read-only.'),
    ('grammar', 'demo',
     'How many ways the task grammar can expand a sub-sentence.'),
    ('demo', 'demo',
     'The main job: generate a small suite, run it against the embedded local model and the reference agents, print the results. Offline; model answers are cached, so a re-run is instant.'),
    ('judge', 'judge',
     "Judge the traces of cases without a formal oracle with an LLM judge (APB's E1-E6 rubric); verdicts go to RUN_DIR/judge.jsonl as each trace is judged (resumable). --style apb judges exactly as APB does and writes APB's judgement file and scores."),
    ('label', 'debug',
     'Formal labels for every failed trace: the earliest error E (step, module, type), the point of no return, the budget point of no return, a minimum correction and module-level labels.'),
    ('errorbench', 'debug',
     "Failed trajectories with their formal labels, in AgentDebug's trajectory format (metadata + messages, one assistant message per step) plus planprobe's labels."),
    ('detect', 'detect',
     'Score a critical-error detector against formal labels: Step, Step+Module, All-correct (95% CIs), within [E, PNR] and the distance in steps from E.'),
    ('debug', 'detect',
     'Repair failed runs: re-roll out from the detected critical step with feedback naming the error type and what to do instead, refined after each failed attempt (AgentDebug Alg. 1, stage 3).'),
    ('serve', 'serve',
     "Serve each case's tools over MCP to an external agent; each case is judged and stored as it finishes."),
    ('proxy', 'serve',
     "Record an agent's model calls (standalone). Point the agent at the printed URL; /case/ID/v1 tags calls with a case id. To record into served cases' traces, use `serve --proxy-upstream` instead."),
    ('check', 'serve',
     "Grade traces recorded elsewhere: every tool call is replayed into its case's environment and judged."),
    ('serve-model', 'serve_model',
     'Serve a model as an OpenAI-compatible chat endpoint (…/v1/chat/completions), until Ctrl-C.'),
    ('generate', 'generate',
     'Generate a suite of cases (JSONL).'),
    ('pddl', 'pddl',
     "PDDL problems: validate plans (VAL-style, with PlanBench's relaxations) and plan optimally."),
    ('import', '',
     'Import an existing dataset as a planprobe suite (JSONL).'),
    ('export', 'inspect_io',
     'Export a suite for another evaluation tool.'),
    ('apb', 'apb',
     "The Agent Planning Benchmark's own files: predictions, judgements, scores."),
    ('travelplanner', 'travelplanner',
     "TravelPlanner: score submission files, write a run's plans as a submission."),
)
IMPORT_MODULES = ("judge", "planbench", "travelplanner", "debug", "apibank", "inspect_io")
IMPORT_HELP = "Import an existing dataset as a planprobe suite (JSONL)."


def _module(name: str) -> Any:
    return importlib.import_module(f"{__package__}.{name}")


def load_command(name: str) -> Any:
    """The real command ``name``: its module imported and registered on a throwaway app."""
    entry = next((e for e in COMMANDS if e[0] == name), None)
    if entry is None:
        return None
    holder = typer.Typer()
    if entry[1]:
        _module(entry[1]).register(holder)
    else:
        import_app = typer.Typer(help=IMPORT_HELP, no_args_is_help=True)
        for module in IMPORT_MODULES:
            _module(module).register_import(import_app)
        holder.add_typer(import_app, name="import")
    return typer.main.get_group(holder).commands.get(name)


class LazyRoot(TyperGroup):
    """The root group: lists every command from ``COMMANDS`` and loads one when it is used."""

    _listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *(e[0] for e in COMMANDS if e[0] not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        entry = next((e for e in COMMANDS if e[0] == cmd_name), None)
        if entry is None:
            return None
        if self._listing:  # the root's --help: the name and its line, nothing imported
            return TyperCommand(cmd_name, help=entry[2])
        command = load_command(cmd_name)
        if command is not None:
            self.add_command(command, cmd_name)
        return command

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False
