"""Constraint-family cases: topic, actions, skeleton, text, tools and spec.

Each case has its own random stream seeded from (suite seed, case index), so a
suite is byte-identical for the same seed, any case can be regenerated alone,
and cases can be produced in any order or in parallel.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields
from functools import lru_cache, partial
from typing import Final, NamedTuple

from pydantic_core import to_json

from ...errors import PlanprobeError
from ...schema import SCHEMA_VERSION, Case, CaseMeta, OracleKind, ToolSpec
from ..parallel import auto_workers, ordered_chunks
from . import draws
from .grammar import (
    Sentence,
    derive_part,
    sentence_json_text,
    sentence_to_json,
    untangle,
)
from .lexicon import Lexicon, default_lexicon, tool_name
from .mentions import arrange
from .reader_fast import FastReader
from .reading import requirement_of
from .render import capitalise, render_counted
from .solver import HORIZON
from .spec import FAMILY, RESTART_TOOL, SPEC_VERSION, STYLES
from .synthesis import (
    MAX_ITERATIONS_LIMIT,
    MAX_SENTENCES_LIMIT,
    SynthesisOptions,
    synthesize,
)

# planprobe's templates: the seed's (Fig. 5a, 7a) plus the task list, how tasks are run, and
# what the requirement's relations mean, so the text has one reading.
BASIC_TEMPLATE = (
    "You need to execute all the tasks one by one in the correct order that meets the requirement. "
    "Each task can only be executed once. Each task is carried out by calling the tool of the same name.\n"
    "The tasks are: {tasks}.\n"
    "Here is the requirement:\n{requirement}"
)

EXTENDED_TEMPLATE = (
    "You need to execute all tasks one by one in the correct order and within the time range set by the "
    "requirement. Note that all tasks should only be executed once. Each task is carried out by calling the "
    "tool of the same name with its start time. Start all tasks within the range of [0, 23]; every task must "
    "end by 24:00, and a task may only start once the previous task has ended. Each task will take one or more "
    "hours to finish. The consumption of time will be revealed after the task is done. A task that comes "
    "before another must have ended by the time the other starts. A requirement such as \"must be completed "
    "by 15:00\" means the task must have ended at 15:00 or earlier; \"begins no earlier than 10:00\" means "
    "it must start at 10:00 or later. If you realize that the requirement has already been unsatisfied after "
    "completing several tasks, you must ask for a restart by calling {restart}. After permission is granted, "
    "you will have to start over, then adjust your strategy to correct the discovered mistake.\n"
    "The tasks are: {tasks}.\n"
    "Here is the requirement:\n{requirement}"
)

# The seed's own templates, word for word (Fig. 5a and Fig. 7a): no task list, no definitions.
PAPER_BASIC_TEMPLATE = (
    "You need to execute all the tasks one by one in the correct order that meets the requirement. "
    "Each task can only be executed once.\n"
    "Here is the requirement:\n{requirement}"
)

PAPER_EXTENDED_TEMPLATE = (
    "You need to execute all tasks one by one in the correct order and within the time range set by the "
    "requirement. Note that all tasks should only be executed once. Start all tasks within the range of "
    "[0, 23]. Each task will take one or more hours to finish. The consumption of time will be revealed after "
    "the task is done. If you realize that the requirement has already been unsatisfied after completing "
    "several tasks, you must ask for a restart. After permission is granted, you will have to start over, "
    "then adjust your strategy to correct the discovered mistake.\n"
    "Here is the requirement:\n{requirement}"
)

TEMPLATES = {
    ("planprobe", False): BASIC_TEMPLATE, ("planprobe", True): EXTENDED_TEMPLATE,
    ("paper", False): PAPER_BASIC_TEMPLATE, ("paper", True): PAPER_EXTENDED_TEMPLATE,
}

REQUIREMENT_MARKER = "Here is the requirement:\n"
MAX_DRAWS = 200  # skeletons tried per case before giving up with a message naming the option to change


def _split_head(template: str) -> tuple[str, str | None]:
    """The template's text before and after the task list (None: the template lists no tasks),
    restart tool filled in and the requirement empty: the task head is before + task list +
    after, as ``template.format`` makes it, without parsing the template for every case."""
    assert "\0" not in template
    before, mark, after = template.format(tasks="\0", requirement="", restart=RESTART_TOOL).partition("\0")
    return before, (after if mark else None)


_HEADS: Final = {key: _split_head(template) for key, template in TEMPLATES.items()}
_IDS: Final = tuple(f"a{i + 1}" for i in range(64))  # action ids (more actions: made on the spot)
_CIDS: Final = tuple(f"c{i + 1}" for i in range(256))  # constraint ids


@dataclass(frozen=True)
class ConstraintSuiteOptions:
    actions: tuple[int, int] = (3, 5)
    n: int = 100
    seed: int = 0
    extended: bool = False
    max_duration: int = 3
    topic: str | None = None
    style: str = "planprobe"
    allow_unconstrained: bool = False  # keep paragraphs that leave some action unconstrained
    check_text: bool = True  # read every text back and re-draw any with more than one reading
    synthesis: SynthesisOptions = field(default_factory=SynthesisOptions)
    lexicon: Lexicon = field(default_factory=default_lexicon)

    def check(self) -> None:
        lo, hi = self.actions
        if lo < 2:
            raise PlanprobeError(f"--actions {lo}: a planning task needs at least 2 actions")
        if hi < lo:
            raise PlanprobeError(f"--actions {lo}-{hi}: the range is empty (the upper bound is below the lower)")
        jobs = [self.lexicon.job(self.topic)] if self.topic else list(self.lexicon.jobs)
        most = min(len(j.activities) for j in jobs)
        if hi > most:
            where = f"topic {self.topic!r} has" if self.topic else "the smallest topic of the lexicon has"
            raise PlanprobeError(f"--actions {hi}: more actions than {where} ({most})")
        if self.extended and hi > 12:
            raise PlanprobeError(f"--actions {hi}: the extended mode supports at most 12 actions (one day of hours)")
        if self.n < 0:
            raise PlanprobeError(f"--n {self.n}: the number of cases cannot be negative")
        if not 1 <= self.max_duration <= 12:
            raise PlanprobeError(f"--max-duration {self.max_duration}: must be between 1 and 12 hours")
        if self.style not in STYLES:
            raise PlanprobeError(f"--style {self.style!r}: unknown style; choose one of {', '.join(STYLES)}")
        s = self.synthesis
        if s.max_sentences is not None and not 1 <= s.max_sentences <= MAX_SENTENCES_LIMIT:
            raise PlanprobeError(f"--max-sentences {s.max_sentences}: must be between 1 and {MAX_SENTENCES_LIMIT}")
        if not 1 <= s.max_iterations <= MAX_ITERATIONS_LIMIT:
            raise PlanprobeError(f"--max-iterations {s.max_iterations}: must be between 1 and {MAX_ITERATIONS_LIMIT}")

    def __reduce__(self) -> tuple[type[ConstraintSuiteOptions], tuple[object, ...]]:
        # pickled (to worker processes) through __init__, as SynthesisOptions
        return type(self), tuple(getattr(self, f.name) for f in fields(self))


def _task_list(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@lru_cache(maxsize=8192)
def _action_tool(name: str, extended: bool, style: str = "planprobe") -> ToolSpec:
    if style == "paper":  # the seed's tools (Fig. 5b, 7b): the docstring is the task's name
        if not extended:
            return ToolSpec(name=tool_name(name), description=f"{capitalise(name)}.")
        desc = (f"{capitalise(name)}. Receive one argument: start_time, which is a integer in the range of "
                "[0,23], representing the start time of this task.")
        params = {"type": "object", "properties": {"start_time": {"type": "integer"}},
                  "required": ["start_time"], "additionalProperties": False}
        return ToolSpec(name=tool_name(name), description=desc, parameters=params)
    if not extended:
        desc = f"{capitalise(name)}. Call this tool to carry out the task \"{name}\". It takes no arguments."
        return ToolSpec(name=tool_name(name), description=desc)
    desc = (
        f"{capitalise(name)}. Receives one argument: start_time, an integer in the range [0, 23], "
        "the hour at which this task starts. Returns how many hours the task took."
    )
    params = {
        "type": "object",
        "properties": {
            "start_time": {
                "type": "integer", "minimum": 0, "maximum": 23,
                "description": "The hour (0-23) at which this task starts.",
            }
        },
        "required": ["start_time"],
        "additionalProperties": False,
    }
    return ToolSpec(name=tool_name(name), description=desc, parameters=params)


RESTART_TOOL_SPEC = ToolSpec(
    name=RESTART_TOOL,
    description=(
        "Ask for a restart when the requirement can no longer be met by the tasks executed so far. "
        "Every executed task is discarded and you start over from the beginning; each task keeps "
        "the duration it had."
    ),
)
PAPER_RESTART_TOOL_SPEC = ToolSpec(name=RESTART_TOOL, description="Ask for a restart.")


_tool_names: dict[str, str] = {}  # lexicon.tool_name of each action name met (a few hundred)


def _tool_name(name: str) -> str:
    """``tool_name``, remembered: the same names recur in every case."""
    tool = _tool_names.get(name)
    if tool is None:
        tool = tool_name(name)
        if len(_tool_names) < 1 << 16:
            _tool_names[name] = tool
    return tool


def _tools(names: list[str], extended: bool, style: str = "planprobe") -> list[ToolSpec]:
    tools = [_action_tool(name, extended, style) for name in names]
    if extended:
        tools.append(PAPER_RESTART_TOOL_SPEC if style == "paper" else RESTART_TOOL_SPEC)
    return tools


class CaseDraft(NamedTuple):
    """A rendered case before it becomes a model or a suite line (``_case_model``,
    ``_case_json``): the suite writer turns drafts straight into JSON."""

    id: str
    task: str
    spec: dict  # the spec's fields up to "clauses": ``_case_spec`` adds the skeleton and horizon
    meta: dict  # CaseMeta's fields in its order, difficulty counts as floats
    names: list[str]
    extended: bool
    style: str
    sentences: Sequence[Sentence]  # the skeleton, written into the spec as the line or model is made


def generate_case(index: int, opts: ConstraintSuiteOptions) -> Case:
    return _case_model(_draft(index, opts))


@lru_cache(maxsize=256)
def _fits(k: int, budget: int, most: int) -> int:
    """How many ways ``k`` tasks of 1..``most`` hours each fit in ``budget`` hours."""
    if k == 0:
        return 1 if budget >= 0 else 0
    return sum(_fits(k - 1, budget - d, most) for d in range(1, min(most, budget - k + 1) + 1))


def _draw_durations(rng: random.Random, n: int, most: int) -> list[int]:
    """Each task's hours, uniform over 1..``most`` conditioned on the day holding them all.

    One task runs at a time and every task ends by 24:00, so durations adding up to more than
    a day admit no schedule. The first draw is kept when it fits (the draws as before); otherwise
    a fitting tuple is drawn uniformly, task by task in proportion to the completions each hour
    count leaves (``_fits``). Together this is exactly the uniform draw conditioned on fitting."""
    durations = [draws.randint(rng, 1, most) for _ in range(n)]
    if sum(durations) <= HORIZON:
        return durations
    budget, out = HORIZON, []
    for k in range(n - 1, -1, -1):  # k tasks left after this one
        r = draws.randrange(rng, _fits(k + 1, budget, most))
        d = 1
        while r >= _fits(k, budget - d, most):
            r -= _fits(k, budget - d, most)
            d += 1
        out.append(d)
        budget -= d
    return out


def _draft(index: int, opts: ConstraintSuiteOptions) -> CaseDraft:
    # draws.py: random.Random's seeding and draws, the same values without its interpreted frames
    rng = draws.seeded(f"planprobe/constraints/{opts.seed}/{index}")
    lo, hi = opts.actions
    n = draws.randint(rng, lo, hi)
    job = opts.lexicon.job(opts.topic) if opts.topic else draws.choice(rng, opts.lexicon.jobs)
    names = draws.sample(rng, job.activities, n)
    durations = _draw_durations(rng, n, opts.max_duration) if opts.extended else None
    mention_rng = draws.seeded(f"planprobe/constraints/{opts.seed}/{index}/mentions")  # mentions.py
    sat_checks = 0
    unread = 0  # drafts whose text did not read back as exactly their constraints
    for draw in range(MAX_DRAWS):
        skeleton = synthesize(rng, n, opts.synthesis, durations)
        sat_checks += skeleton.sat_checks
        if not skeleton.sentences or not (skeleton.connected or opts.allow_unconstrained):
            continue
        sentences, atoms = arrange(skeleton.sentences, skeleton.atoms, names, mention_rng)
        sentences = [untangle(s, mention_rng) for s in sentences]  # no ", and" before a fronted phrase
        draft = render_case(index, opts, job.name, names, durations, sentences, sat_checks,
                            atoms, draws=draw + 1, unread=unread)
        if not opts.check_text or reads_as_spec(draft.task, draft.spec):
            return draft
        unread += 1
    if unread:  # pragma: no cover - the grammar is unambiguous by construction; a safety net
        raise PlanprobeError(f"case {index}: {unread} drafts read other than their constraints; please report this")
    raise PlanprobeError(
        f"case {index}: no paragraph of at most {opts.synthesis.sentences_for(n)} sentences constrains all {n} "
        "actions; raise --max-sentences or --max-iterations, or pass --allow-unconstrained"
    )


def text_reads_as_spec(case: Case) -> bool:
    """Whether the independent reader finds exactly one reading of every sentence and
    their union is exactly the case's constraints."""
    return reads_as_spec(case.task, case.spec)


def reads_as_spec(task: str, spec: dict) -> bool:
    """``text_reads_as_spec`` on a case's task text and spec."""
    names = {a["id"]: a["name"] for a in spec["actions"]}
    want = set()
    for c in spec["constraints"]:
        second = names[c["b"]] if c["kind"] == "order" else c["hour"]
        want.add((c["kind"], names[c["a"]], second))
    # reader_fast: reader.Reader's readings with less interpreter work (test_reader_fast)
    reading = FastReader(sorted(names.values())).read(requirement_of(task))  # a new name set per case: no cache
    return reading.ok and reading.atoms == want


def build_case(index, opts: ConstraintSuiteOptions, topic, names, durations, sentences, sat_checks=0,
               atoms=None, draws: int = 1, unread: int = 0) -> Case:
    """Render a skeleton into a case; shared with mutations that re-word or re-topic it.
    ``atoms`` (per sentence, per part) saves deriving them again when synthesis has them."""
    return _case_model(render_case(index, opts, topic, names, durations, sentences, sat_checks, atoms,
                                   draws, unread))


def render_case(index: int, opts: ConstraintSuiteOptions, topic: str | None, names: Sequence[str],
                durations: Sequence[int] | None, sentences: Sequence[Sentence], sat_checks: int = 0,
                atoms: list[list[list[tuple]]] | None = None, draws: int = 1, unread: int = 0) -> CaseDraft:
    """``build_case`` up to the models: the case's text, spec and metadata.

    Built once in their final shape (the meta ends with the fields ``_case_json`` writes), with
    the words counted while rendering and the unconstrained actions from the atoms met here."""
    extended = durations is not None
    n = len(names)
    ids = [_IDS[i] if i < len(_IDS) else f"a{i + 1}" for i in range(n)]
    before_tasks, after_tasks = _HEADS[(opts.style, extended)]
    head = before_tasks if after_tasks is None else before_tasks + _task_list(names) + after_tasks
    texts: list[str] = []
    clauses: list[list[int]] = []
    constraints: list[dict] = []
    offset = len(head)  # where the next sentence starts in the task text
    seen: dict[tuple, list[int]] = {}  # atom -> the clauses stating it (the list in its constraint)
    statements = 0
    words = 0
    mentioned = 0  # bit a: some constraint names action a
    for k, sentence in enumerate(sentences):
        text, spans, count = render_counted(sentence, names)
        texts.append(text)
        words += count  # sentences are joined by a space, which is no word
        sentence_atoms = atoms[k] if atoms is not None else None
        for j, part in enumerate(sentence.parts):
            start, end = spans[j]
            clause = len(clauses)
            clauses.append([offset + start, offset + end])
            for atom in (sentence_atoms[j] if sentence_atoms is not None else derive_part(part)):
                stated = seen.get(atom)
                if stated is None:
                    kind: str = atom[0]
                    a: int = atom[1]
                    number = len(constraints)
                    cid = _CIDS[number] if number < len(_CIDS) else f"c{number + 1}"
                    stated = [clause]
                    if kind == "order":
                        b: int = atom[2]
                        constraints.append({"id": cid, "kind": kind, "a": ids[a], "b": ids[b], "clauses": stated})
                        mentioned |= (1 << a) | (1 << b)
                    else:
                        constraints.append({"id": cid, "kind": kind, "a": ids[a], "hour": atom[2],
                                            "clauses": stated})
                        mentioned |= 1 << a
                    seen[atom] = stated
                    statements += 1
                elif stated[-1] != clause:
                    stated.append(clause)
                    statements += 1
        offset += len(text) + 1  # sentences are joined by one space
    task = head + " ".join(texts)
    mode = "extended" if extended else "basic"
    if durations is not None:
        actions = [{"id": ids[i], "name": names[i], "tool": _tool_name(names[i]), "duration": durations[i]}
                   for i in range(n)]
    else:
        actions = [{"id": ids[i], "name": names[i], "tool": _tool_name(names[i])} for i in range(n)]
    spec = {
        "version": SPEC_VERSION,
        "mode": mode,
        "style": opts.style,
        "actions": actions,
        "constraints": constraints,
        "clauses": clauses,
    }
    syn = opts.synthesis
    meta = {
        "topic": topic,
        "difficulty": {
            "actions": float(n),
            "constraints": float(len(constraints)),
            "sentences": float(len(sentences)),
            "sub_sentences": float(len(clauses)),
            "restatements": float(statements - len(constraints)),
            "unconstrained": float(n - mentioned.bit_count()),  # as synthesis.connectivity counts them
            "words": float(words),  # render.word_count of the requirement
        },
        "seed": opts.seed,
        "generator": {
            "family": FAMILY, "mode": mode, "style": opts.style, "index": index,
            "max_sentences": syn.sentences_for(n), "max_iterations": syn.max_iterations,
            "allow_unconstrained": opts.allow_unconstrained, "sat_checks": sat_checks, "draws": draws, "rejected_texts": unread,
        },
        "tags": [mode] if opts.style == "planprobe" else [mode, "paper"],
        "transforms": [],
        "parent": None,
    }
    return CaseDraft(f"{FAMILY}-{mode}-{opts.seed}-{index}", task, spec, meta, list(names), extended, opts.style,
                     sentences)


def _case_spec(draft: CaseDraft) -> dict:
    """The case's whole spec: the draft's, then the skeleton and the horizon."""
    return {**draft.spec, "skeleton": [sentence_to_json(s) for s in draft.sentences], "horizon": HORIZON}


def _case_model(draft: CaseDraft) -> Case:
    return Case(
        id=draft.id,
        family=FAMILY,
        task=draft.task,
        tools=_tools(draft.names, draft.extended, draft.style),
        spec=_case_spec(draft),
        meta=CaseMeta(**draft.meta),
    )


_tool_json: dict[tuple[str, bool, str], str] = {}  # (name, extended, style) -> the tool as JSON


def _action_tool_json(name: str, extended: bool, style: str) -> str:
    """An action's tool as it appears in a suite line, serialised once per name and mode."""
    key = (name, extended, style)
    text = _tool_json.get(key)
    if text is None:
        text = to_json(_action_tool(name, extended, style).model_dump()).decode()
        if len(_tool_json) < 1 << 16:
            _tool_json[key] = text
    return text


_HORIZON_JSON: Final = to_json(HORIZON).decode()
_RESTART_JSON: Final = {style: to_json((PAPER_RESTART_TOOL_SPEC if style == "paper" else RESTART_TOOL_SPEC)
                                       .model_dump()).decode() for style in STYLES}


def _case_json(draft: CaseDraft) -> str:
    """``_case_model(draft).model_dump_json()`` without building and validating the models
    (about a fifth less time): the case as plain dicts, keys in the models' field order,
    written by pydantic's own serializer. The generator's values are plain str, int,
    float (the difficulty counts), bool and None, so the bytes are the same;
    ``test_fast_paths`` compares the two on many suites.

    JSON writes an object as its members in order, so the line is spliced from parts: the
    fields before the tools, each tool's JSON (written once per action name), the spec up to
    its clauses, the skeleton (``grammar.sentence_json_text``, as ``_case_spec`` stores it),
    the horizon and the meta."""
    tools = [_action_tool_json(name, draft.extended, draft.style) for name in draft.names]
    if draft.extended:
        tools.append(_RESTART_JSON[draft.style])
    head = to_json({"schema_version": SCHEMA_VERSION, "id": draft.id, "family": FAMILY, "task": draft.task,
                    "system": None}).decode()
    spec = to_json({"oracle": OracleKind.FORMAL.value, "spec": draft.spec}).decode()
    skeleton = ",".join([sentence_json_text(s) for s in draft.sentences])
    meta = to_json(draft.meta).decode()
    return (f'{head[:-1]},"tools":[{",".join(tools)}],{spec[1:-2]},"skeleton":[{skeleton}],'
            f'"horizon":{_HORIZON_JSON}}},"meta":{meta}}}')


def generate_cases(opts: ConstraintSuiteOptions, start: int = 0) -> Iterator[Case]:
    opts.check()
    for i in range(start, start + opts.n):
        yield generate_case(i, opts)


def case_lines(opts: ConstraintSuiteOptions, start: int, stop: int) -> list[str]:
    """Cases start..stop-1 as suite lines (JSON); what worker processes produce."""
    return [_case_json(_draft(i, opts)) for i in range(start, stop)]


def generate_lines(opts: ConstraintSuiteOptions, workers: int | None = None) -> Iterator[str]:
    """The suite as JSON lines, produced on ``workers`` processes (default: all cores
    for large suites), always in index order and byte-identical to one process."""
    opts.check()
    return ordered_chunks(partial(case_lines, opts), opts.n, auto_workers(opts.n, workers))
