# ruff: noqa: UP045  (Optional kept as these commands were written)
"""``planprobe judge`` and ``planprobe import apb``: the LLM judge and APB's data
on the command line. A thin layer over planprobe.llm_judge and importers.apb;
cli/root.py registers its commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.progress import TextColumn
from rich.table import Table

from ..errors import PlanprobeError
from ..option_checks import check
from .common import (
    _progress,
    err_console,
    labelled,
    out_console,
    stop_exit_code,
    stopped_by,
)
from .options import (
    ApiKeyEnv,
    BaseUrl,
    CachePath,
    Ctx,
    ModelPath,
    Quiet,
    RequestTimeout,
    Threads,
)

APB_CODE_HELP = ("Your checkout of APB's official code (git clone "
                 "https://github.com/Mikivishy/AgentPlanningBenchmark): APB's prompt texts are read from its "
                 "evaluation/apb_eval/prompts.py, as data (planprobe ships none). Default: $PLANPROBE_APB_CODE.")



def import_apb_cmd(
    files: list[Path] = typer.Argument(..., help="APB split files (JSONL), e.g. data/holistic_planning.jsonl."),
    output: Path = typer.Option(..., "-o", "--output", help="Suite file to write (JSONL)."),
    split: Optional[list[str]] = typer.Option(None, "--split", help="Keep only this split (repeatable)."),
    protocol: str = typer.Option("apb", help="apb: APB's own prompt, one JSON reply, nothing executed (as APB "
                                             "runs it); execute: the agent acts on mock tools replaying the "
                                             "recorded outputs."),
    data_dir: Optional[Path] = typer.Option(None, help="--protocol apb: the APB data directory the records' "
                                                       "'files' paths are relative to (images, text files)."),
    images: bool = typer.Option(True, help="--protocol apb: attach images as image content parts (APB's way); "
                                           "--no-images for a text-only model names each image instead."),
    skip_invalid: bool = typer.Option(False, help="Leave out bad rows (each named on stderr) instead of stopping."),
    apb_code: Optional[Path] = typer.Option(None, "--apb-code", help=APB_CODE_HELP),
) -> None:
    """Agent Planning Benchmark rows -> judged cases (holistic, step-wise, extraneous, broken, unsolvable)."""
    skipped: list[str] = []

    def on_skip(message: str) -> None:
        skipped.append(message)
        labelled("skipped:", message)

    if protocol not in ("apb", "execute"):
        raise PlanprobeError(f"--protocol must be apb or execute, not {protocol!r}")
    if data_dir is not None and not data_dir.is_dir():
        raise PlanprobeError(f"--data-dir {data_dir}: not a directory")
    if protocol == "execute":
        from ..importers.apb import import_apb

        if data_dir is not None:
            raise PlanprobeError("--data-dir is for --protocol apb (execute mode does not load files)")
        count = sum(import_apb(f, output if len(files) == 1 else output.with_suffix(f".{i}.jsonl"), split or None,
                               skip_invalid, on_skip) for i, f in enumerate(files))
        err_console.print(f"wrote {count} judged cases to {output}" + (f" ({len(skipped)} rows skipped)" if skipped
                                                                       else ""))
        return
    from ..importers.apb_cases import ImportTally, iter_apb_protocol
    from ..importers.apb_prompts import load
    from ..suites.io import write_suite

    prompts = load(apb_code)
    tally = ImportTally()
    count = write_suite(iter_apb_protocol(files, data_dir, split or None, skip_invalid, on_skip, tally, images,
                                          prompts), output)
    if count == 0:
        output.unlink(missing_ok=True)
        raise PlanprobeError("no cases to import" + (" in the chosen splits" if split else ""))
    for note in tally.notes(data_dir):
        labelled("note:", note)
    labelled("note:", prompts.describe())
    per_split = ", ".join(f"{k} {v}" for k, v in tally.by_split.items())
    err_console.print(f"wrote {count} APB cases ({per_split}) to {output}"
                      + (f"; {tally.skipped} row(s) skipped" if tally.skipped else ""))


def judge_cmd(
    run_dir: Path = typer.Argument(..., help="A run directory written by 'planprobe run' (--style apb: or an APB "
                                             "prediction file)."),
    style: str = typer.Option("planprobe", help="planprobe: planprobe's rubric, several samples, median grade; "
                                                "apb: APB's judge prompt, one reply at temperature 0, APB's scores."),
    judge_model: str = typer.Option("local", help="local (the embedded model) or openai:<model>."),
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = "OPENAI_API_KEY",
    request_timeout: RequestTimeout = 60.0,
    samples: int = typer.Option(3, help="Judge samples per trace; the verdict is their median grade."),
    threshold: float = typer.Option(1.0, help="Pass when the median grade reaches this (1.0 = no error at all, "
                                              "APB's is_correct)."),
    temperature: Optional[float] = typer.Option(None, help="Judge temperature (default 0 for one sample, 0.7 "
                                                           "for several)."),
    max_tokens: Optional[int] = typer.Option(None, help="Max tokens per judge reply (default 256; apb: 2048)."),
    reply_format: Optional[str] = typer.Option(
        None, "--format", help="json (APB's JSON reply, parsed leniently) or tool (a submit_judgement function "
                               "call). Default: tool for the embedded model (its calls are grammar-constrained), "
                               "json otherwise."),
    tool_choice: str = typer.Option("required", help="--format tool: required, or auto for servers that refuse "
                                                      "required (llama.cpp's server)."),
    reference: bool = typer.Option(True, help="Show the judge the reference solution (APB does)."),
    calibrate: bool = typer.Option(False, help="Also judge the formal cases and measure the judge against the "
                                               "exact oracle (agreement, Cohen's kappa)."),
    limit: Optional[int] = typer.Option(None, help="Judge only the first N selected traces."),
    concurrency: int = typer.Option(1, help="Traces judged at the same time (the local model serves one)."),
    cache: bool = typer.Option(True, help="Record/replay judge calls (a re-run costs nothing)."),
    cache_path: CachePath = None,
    model_path: ModelPath = None,
    threads: Threads = None,
    ctx: Ctx = 4096,
    seed: int = typer.Option(0, help="Seed of the first judge sample (sample i uses seed + i)."),
    out: Optional[Path] = typer.Option(None, "--out", help="apb: the APB judgement file (default "
                                                            "RUN_DIR/apb_judgements.jsonl, or PRED.judgements.jsonl)."),
    scores: Optional[Path] = typer.Option(None, "--scores", help="apb: also write APB's scores JSON here."),
    splits: str = typer.Option("all", help="apb: all, holistic, step_wise, or a comma-separated list of splits."),
    response_format: bool = typer.Option(True, help="apb: ask the judge for JSON mode (APB's "
                                                    "--no-response-format is --no-response-format)."),
    skip_invalid: bool = typer.Option(False, help="apb: leave out bad rows of a prediction file (each named)."),
    apb_code: Optional[Path] = typer.Option(None, "--apb-code", help="apb: " + APB_CODE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable result."),
    quiet: Quiet = False,
) -> None:
    """Judge the traces of cases without a formal oracle with an LLM judge (APB's E1-E6 rubric);
    verdicts go to RUN_DIR/judge.jsonl as each trace is judged (resumable). --style apb judges
    exactly as APB does and writes APB's judgement file and scores."""
    import asyncio

    from ..llm_judge.judge import JudgeConfig
    from ..llm_judge.run import judge_run_async, select
    from ..models import ModelOptions, make_model
    from ..runner.store import RunStore

    if style not in ("planprobe", "apb"):
        raise PlanprobeError(f"--style must be planprobe or apb, not {style!r}")
    check("--request-timeout", request_timeout, above=0)
    if style == "apb":
        from .apb import judge_apb

        if samples != 3 or threshold != 1.0 or calibrate or reply_format not in (None, "json") or temperature:
            raise PlanprobeError("--style apb judges once at temperature 0 with APB's JSON reply: --samples, "
                                 "--threshold, --temperature, --format and --calibrate are for --style planprobe")
        options = ModelOptions(base_url=base_url, api_key_env=api_key_env, cache=cache, cache_path=cache_path,
                               model_path=model_path, threads=threads, n_ctx=ctx, request_timeout=request_timeout)
        judge_apb(run_dir, judge_model=judge_model, model_options=options, out=out, scores=scores, splits=splits,
                  max_tokens=max_tokens, json_mode=response_format, concurrency=concurrency, limit=limit,
                  skip_invalid=skip_invalid, as_json=as_json, quiet=quiet, apb_code=apb_code)
        return
    if out is not None or scores is not None or splits != "all" or skip_invalid or apb_code is not None:
        raise PlanprobeError("--out, --scores, --splits, --skip-invalid and --apb-code are for --style apb")
    max_tokens = 256 if max_tokens is None else max_tokens

    if reply_format is None:
        reply_format = "tool" if judge_model == "local" else "json"
    config = JudgeConfig(samples=samples, threshold=threshold, temperature=temperature, max_tokens=max_tokens,
                         seed=seed, reference=reference, reply_format=reply_format,
                         tool_choice=tool_choice)
    config.check()
    if limit is not None and limit < 1:
        raise PlanprobeError("--limit must be at least 1")
    store = RunStore(run_dir)  # checks the directory before a model is loaded
    try:
        if not select(store, calibrate):
            hint = "" if calibrate else "; add --calibrate to measure the judge on the formal cases"
            raise PlanprobeError(f"{run_dir}: no finished results to judge{hint}")
    finally:
        store.close()
    model = make_model(judge_model, ModelOptions(base_url=base_url, api_key_env=api_key_env, cache=cache,
                                                 cache_path=cache_path, model_path=model_path, threads=threads,
                                                 n_ctx=ctx, request_timeout=request_timeout))
    tally = {"judged": 0, "passed": 0}
    with _progress(quiet, TextColumn("judged pass {task.fields[rate]}")) as progress:
        task = progress.add_task("judging", total=None, rate="-")

        def on_start(total: int, done: int) -> None:
            progress.update(task, total=total, completed=done)

        def on_row(row: dict[str, Any]) -> None:
            tally["judged"] += 1
            tally["passed"] += bool(row["verdict"]["passed"])
            progress.update(task, advance=1, rate=f"{100 * tally['passed'] / tally['judged']:.0f}%")

        async def go() -> list[dict[str, Any]]:
            try:
                return await judge_run_async(run_dir, model, config, calibrate=calibrate, limit=limit,
                                             concurrency=concurrency, on_row=on_row, on_start=on_start)
            finally:
                await model.aclose()  # in the loop its HTTP client belongs to

        try:
            rows = asyncio.run(go())
        except KeyboardInterrupt:
            progress.stop()
            err_console.print(f"{stopped_by()}: the traces judged so far are saved in {run_dir}/judge.jsonl; "
                              "run the same command again to resume")
            raise typer.Exit(stop_exit_code()) from None
    _report(rows, config.identity(model.name), as_json)


def _report(rows: list[dict[str, Any]], identity: dict[str, Any], as_json: bool) -> None:
    from ..llm_judge.report import calibration, summarize_rows

    summary = summarize_rows(rows)
    calib = calibration(rows)
    if as_json:
        print(json.dumps({"identity": identity, "summary": summary, "calibration": calib}, indent=2, sort_keys=True))
        return
    s = summary
    lo, hi = s["pass_rate_ci95"]
    out_console.print(f"judged {s['judged']} traces with {identity['judge_model']} "
                      f"({identity['samples']} samples, threshold {identity['threshold']:g}, {identity['format']})")
    mean = f"{s['mean_score']:.2f}" if s["mean_score"] is not None else "-"
    out_console.print(f"judged pass rate {100 * (s['pass_rate'] or 0):.1f}% [{100 * lo:.1f}-{100 * hi:.1f}], "
                      f"mean score {mean}, unparseable traces {s['unparseable_traces']}")
    st = s["samples"]
    parts = ", ".join(f"{k} {v}" for k, v in st.items() if k != "total")
    ag = s["sample_agreement"]
    agree = (f"agreement among samples: mean {_fmt(ag['mean'])}, unanimous {_pct(ag['unanimous'])}, "
             f"Fleiss kappa {_fmt(ag['fleiss_kappa'])}") if ag["traces_with_2plus_samples"] else ""
    out_console.print(f"judge samples {st['total']} ({parts})" + (f"; {agree}" if agree else ""))
    if s["errors"]:
        out_console.print("verdict errors: " + ", ".join(f"{k} {v}" for k, v in s["errors"].items()))
    if calib is None:
        return
    c = calib["confusion"]
    t = Table(title=f"judge vs exact oracle on {calib['cases']} formal cases", title_justify="left")
    t.add_column("")
    t.add_column("oracle pass", justify="right")
    t.add_column("oracle fail", justify="right")
    t.add_row("judge pass", str(c["judge_pass_oracle_pass"]), str(c["judge_pass_oracle_fail"]))
    t.add_row("judge fail", str(c["judge_fail_oracle_pass"]), str(c["judge_fail_oracle_fail"]))
    out_console.print(t)
    out_console.print(f"agreement {_pct(calib['agreement'])}, Cohen's kappa {_fmt(calib['cohen_kappa'])} "
                      f"(judge passes {_pct(calib['judge_pass_rate'])}, oracle passes {_pct(calib['oracle_pass_rate'])})")
    ex = calib["excluding_unparseable"]
    if ex is not None and ex["cases"] != calib["cases"]:
        out_console.print(f"without the {calib['cases'] - ex['cases']} unparseable: agreement {_pct(ex['agreement'])}, "
                          f"Cohen's kappa {_fmt(ex['cohen_kappa'])}")


def _fmt(value: Optional[float]) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _pct(value: Optional[float]) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def register(app: typer.Typer) -> None:
    app.command("judge")(judge_cmd)


def register_import(import_app: typer.Typer) -> None:
    import_app.command("apb")(import_apb_cmd)
