"""What every case family provides, so runner, agents and reports stay generic."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import (
    TYPE_CHECKING,
    Any,
    NamedTuple,
    Protocol,
    TypeVar,
    runtime_checkable,
)

from ..environment import Environment, Limits
from ..errors import PlanprobeError
from ..schema import Case, Evidence, ToolSpec, Trace, Verdict

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs from Python 3.13 on

_Cap = TypeVar("_Cap")


class PlannedCall(NamedTuple):
    """One tool call a scripted (reference) agent will make, arguments as sent."""

    name: str
    arguments: str


@runtime_checkable
class Family(Protocol):
    """What every family must provide. ``register_family`` checks an object against it
    (``isinstance``: every member present) before the family can be used."""

    @property
    def name(self) -> str:
        """The ``Case.family`` value of its cases."""
        ...

    @property
    def faults(self) -> Mapping[str, str]:
        """Fault name -> the error class the oracle must report when it is injected."""
        ...

    def validate(self, case: Case) -> None:
        """Raise PlanprobeError naming the field if the case cannot be run."""
        ...

    def environment(self, case: Case, limits: Limits, trial: int, agent: str) -> Environment: ...

    def check(self, case: Case, trace: Trace) -> Verdict: ...

    def reference_plan(self, case: Case) -> list[PlannedCall]: ...

    def random_plan(self, case: Case, rng: random.Random) -> list[PlannedCall]: ...

    def faulty_plan(self, case: Case, fault: str, rng: random.Random) -> list[PlannedCall] | None:
        """A plan with exactly this fault, or None when the case leaves no room for it."""
        ...


# ---------------------------------------------------------------------------
# Optional capabilities. A family implements only those its cases can answer;
# callers ask ``isinstance(family, Capability)`` and do without the ones it lacks.
# Each names who asks and what happens without it.
# ---------------------------------------------------------------------------


@runtime_checkable
class ClassifiesFaults(Protocol):
    """The reference ``faulty:<fault>`` agent asks which class this case must report for a
    fault (e.g. a style without that class). Without it: ``faults[fault]``."""

    def fault_class(self, case: Case, fault: str) -> str | None: ...


@runtime_checkable
class GrantsRestarts(Protocol):
    """Judging attempts (``registry.restart_tool_of``, ``schema.split_attempts``): the name
    of the tool whose valid calls the environment grants as restarts; attempt boundaries
    are derived from the raw calls of that tool. Without it: no restarts, every call is judged."""

    def restart_tool(self, case: Case) -> str | None: ...


@runtime_checkable
class AnswersInText(Protocol):
    """The reference agents of a family whose agent answers in text instead of calling
    tools (the planning protocols, PlanBench's tasks): the oracle's answer, the random
    one, and one with exactly this fault (None when the case leaves no room for it).
    Without it the agents execute ``reference_plan`` / ``random_plan`` / ``faulty_plan``."""

    def reference_answer(self, case: Case) -> str: ...

    def random_answer(self, case: Case, rng: random.Random) -> str: ...

    def faulty_answer(self, case: Case, fault: str, rng: random.Random) -> str | None: ...


class NoToolPlans:
    """The tool-plan half of ``Family`` for families that answer in text (``AnswersInText``):
    nothing is executed, so the reference agents' tool plans are empty. Subclass it
    instead of writing the three methods again."""

    def reference_plan(self, case: Case) -> list[PlannedCall]:
        return []

    def random_plan(self, case: Case, rng: random.Random) -> list[PlannedCall]:
        return []

    def faulty_plan(self, case: Case, fault: str, rng: random.Random) -> list[PlannedCall] | None:
        return None


@runtime_checkable
class AnswersSomeInText(Protocol):
    """The oracle's text answer for the cases this family answers in text, None for the
    cases whose reference plan is executed (the judged family: APB's protocol asks for a
    written plan, its execute mode for calls). Every ``AnswersInText`` family has it too."""

    def reference_answer(self, case: Case) -> str | None: ...


@runtime_checkable
class WrapsCases(Protocol):
    """A family whose cases carry a case of another family (robustness variants, planning
    protocols). Fault sets and report hints are then derived from the base families."""

    def base_of(self, case: Case) -> Case: ...


# -- report hints -----------------------------------------------------------


@runtime_checkable
class HighlightsEvidence(Protocol):
    """The HTML report highlights the clauses of the task that state the cited constraints:
    [start, end) character spans, read from the raw spec (no compiling: reports are large).
    Without it: no highlight."""

    def evidence_spans(self, spec: dict[str, Any], constraint_ids: set[str]) -> list[tuple[int, int]]: ...


@runtime_checkable
class ShapesConstraints(Protocol):
    """Error anatomy: constraint id -> the shapes of the phrases that state it, so the
    phrasings violated most can be counted. Without it the case is not counted there."""

    def constraint_shapes(self, case: Case) -> dict[str, list[str]]: ...


@runtime_checkable
class WordsConstraints(Protocol):
    """Error anatomy: constraint id -> the connective words ("after", "prior", "by" …) of the
    phrases that state it, so the words violated most can be ranked. Without it the case is
    not counted there."""

    def constraint_words(self, case: Case) -> dict[str, list[str]]: ...


# -- robustness transforms (suites/robust) ----------------------------------


@runtime_checkable
class OffersDistractors(Protocol):
    """``--transform extraneous:K``: K distractor tools in the family's own vocabulary.
    Without it: near-duplicates of the case's tools."""

    def distractor_tools(self, case: Case, k: int, rng: random.Random) -> Sequence[ToolSpec]: ...


@runtime_checkable
class StatesTasks(Protocol):
    """A sentence naming the case's tasks, for variants that add tools the case never had
    (distractors, decoys, twins), when the case's own text does not name them (the constraint
    family's paper style). None: the text already does. Without it the text stays as it is."""

    def task_statement(self, case: Case) -> str | None: ...


@runtime_checkable
class Contradicts(Protocol):
    """``--transform unsolvable:contradiction``: the case changed so that no plan exists,
    and the proof in words. Without it that transform is refused for the family."""

    def contradict(self, case: Case, rng: random.Random) -> tuple[Case, str]: ...


@runtime_checkable
class Restates(Protocol):
    """The solvable control of ``contradict``: the case with one more requirement made the
    same way, one that a valid plan still meets. Without it controls of
    ``unsolvable:contradiction`` stay as they are (and the added requirement is a tell)."""

    def restate(self, case: Case, rng: random.Random) -> Case: ...


@runtime_checkable
class AliasesTools(Protocol):
    """A tool under another name, its description re-worded so that the old name shows
    nowhere (``broken`` twins, removal decoys and controls). Without it only the name changes."""

    def alias_tool(self, tool: ToolSpec, name: str, rng: random.Random) -> ToolSpec: ...


@runtime_checkable
class PricesPlans(Protocol):
    """``--transform cost``: the cheapest valid plan's total and its tool names, given each
    tool's cost and composites (tool, first, second, cost). Without it that transform is refused."""

    def min_cost_plan(self, case: Case, costs: dict[str, int],
                      composites: list[tuple[str, str, str, int]]) -> tuple[int, list[str]]: ...


@runtime_checkable
class PricesCalls(Protocol):
    """``--transform cost`` where calls take arguments (timed constraint cases: start times):
    the cheapest valid plan's total and its calls as (tool, arguments JSON)."""

    def min_cost_calls(self, case: Case, costs: dict[str, int],
                       composites: list[tuple[str, str, str, int]]) -> tuple[int, list[tuple[str, str]]]: ...


@runtime_checkable
class ChainsComposites(Protocol):
    """What a composite tool passes its second action, given the first's name and the call's
    arguments (timed cases: the hour the first ends). Without it: the same arguments."""

    def follow_on_args(self, case: Case, first: str, args: dict[str, Any]) -> dict[str, Any]: ...


@runtime_checkable
class ComposesTools(Protocol):
    """Composites whose two actions each take their own arguments (pddl): the composite
    tool's schema holding both argument lists (and a sentence saying how its names map), and
    a call's arguments split back into the two actions'. Without it a composite takes the
    first action's schema and ``follow_on_args`` says what the second gets."""

    def composite_parameters(self, case: Case, first: ToolSpec, second: ToolSpec) -> tuple[dict[str, Any], str]: ...

    def composite_args(self, case: Case, first: str, second: str,
                       args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]: ...


@runtime_checkable
class RunsComposites(Protocol):
    """An environment that runs a composite as one atomic call: the second action is
    checked in the state after the first, and if it cannot run neither runs (pddl)."""

    def execute_composite(self, name: str, first: str, first_args: dict[str, Any], second: str,
                          second_args: dict[str, Any]) -> tuple[str, str | None]: ...


@runtime_checkable
class CutsTrajectories(Protocol):
    """The step-wise protocol's gold trajectory and the shortest prefix it may be cut at
    (a robustness variant shows the broken tool's failure). Without it: the reference plan,
    cut anywhere."""

    def stepwise_plan(self, case: Case) -> tuple[list[PlannedCall], int]: ...


# -- planning protocols (suites/protocols) ----------------------------------


@runtime_checkable
class PlanningTools(Protocol):
    """The tools as an agent that plans without executing must see them (e.g. with
    durations that would otherwise be revealed only by running). Without it: ``case.tools``."""

    def planning_tools(self, case: Case) -> list[ToolSpec]: ...


@runtime_checkable
class PlansWrappedTools(Protocol):
    """``PlanningTools`` for a wrapper's tools (robustness variants planned holistically):
    the planning form of ``tool``, which carries out the case's tool ``does``, or (``does``
    None) is a tool the wrapper made to look like one (a distractor); None leaves it out."""

    def planning_tool(self, case: Case, tool: ToolSpec, does: str | None) -> ToolSpec | None: ...


@runtime_checkable
class LimitsProtocols(Protocol):
    """Why a case cannot be wrapped in ``protocol`` ("holistic" or "stepwise"), or "" when it can."""

    def protocol_problem(self, case: Case, protocol: str) -> str: ...


@runtime_checkable
class JudgesPrefixes(Protocol):
    """Whether the calls, as the beginning of a plan, can still be completed into a valid
    plan (the string says why not). Required by the step-wise protocol."""

    def extendable(self, case: Case, calls: list[PlannedCall]) -> tuple[bool, str]: ...


@runtime_checkable
class ExplainsPrefixes(Protocol):
    """The step-wise question answered as verdict evidence (error classes, constraint ids);
    empty when extendable. Without it a step-wise failure gets one generic order_error
    evidence built from ``extendable``'s reason."""

    def prefix_evidence(self, case: Case, calls: list[PlannedCall]) -> list[Evidence]: ...


# -- suites for plug-in families ---------------------------------------------


@runtime_checkable
class GeneratesSuites(Protocol):
    """``planprobe generate NAME`` for a family that has no command of its own (plug-ins),
    and its cases in the contract test: ``n`` cases, byte-identical for the same seed."""

    def generate(self, n: int, seed: int) -> Iterator[Case]: ...


@runtime_checkable
class SolvableFromText(Protocol):
    """The family claims its cases are solvable from what the agent is shown (task text, system
    prompt, tool descriptions and results), so ``--model solver`` must pass them all (issue #27).
    ``solver_sample`` gives a few cases (``n`` per style and variant the claim covers, distinct
    ids, byte-identical for the same seed); the contract test runs them, and their robustness
    variants, under ``--agent tools --model solver`` and requires every case to pass, every
    unsolvable variant to be refused and no case to be found under-specified."""

    def solver_sample(self, n: int, seed: int) -> list[Case]: ...


@runtime_checkable
class CoversSolverVariants(Protocol):
    """Which robustness variants a ``SolvableFromText`` claim covers: each entry is one variant,
    written as its ``--transform`` values (``("unsolvable:removal",)``, ``("extraneous:2",
    "unsolvable")``); the contract test applies every entry to every case of ``solver_sample``. ``()``
    says none applies (a family whose answer is text, no tool, has nothing for them to change); a
    family's own unsolvable cases (``spec.unsolvable`` set) belong in its sample. Without this
    attribute the claim covers ``DEFAULT_SOLVER_VARIANTS``."""

    solver_variants: tuple[tuple[str, ...], ...]


class SampleUnavailable(PlanprobeError):
    """``solver_sample`` of a family whose cases come from data that is not on this machine (the
    contract test skips that family, saying why)."""


DEFAULT_SOLVER_VARIANTS: tuple[tuple[str, ...], ...] = (("unsolvable",),)


def solver_variants(family: object) -> tuple[tuple[str, ...], ...]:
    """The robustness variants a ``SolvableFromText`` family's claim covers (``CoversSolverVariants``)."""
    return family.solver_variants if isinstance(family, CoversSolverVariants) else DEFAULT_SOLVER_VARIANTS


@runtime_checkable
class HasGenerateCommand(Protocol):
    """A family with a ``planprobe generate`` subcommand of its own (options only it has):
    ``generate_command`` is (the subcommand's name, ``"module:function"``), the function
    taking the ``generate`` Typer app to register the command on. Named as a string so a
    family never imports the CLI; the CLI imports it only when ``generate`` is used.
    A family without it but with ``generate(n, seed)`` gets the generic command."""

    generate_command: tuple[str, str]


CAPABILITIES: tuple[type, ...] = (
    ClassifiesFaults, GrantsRestarts, AnswersInText, AnswersSomeInText, WrapsCases, HighlightsEvidence, ShapesConstraints,
    WordsConstraints,
    OffersDistractors, Contradicts, Restates, AliasesTools, PricesPlans, PlanningTools, JudgesPrefixes, ExplainsPrefixes, GeneratesSuites,
    PricesCalls, ChainsComposites, CutsTrajectories, ComposesTools, HasGenerateCommand, StatesTasks,
    PlansWrappedTools, LimitsProtocols, SolvableFromText, CoversSolverVariants,
)


_HAS: dict[tuple[type, type], bool] = {}


def has_capability(family: object, capability: type[_Cap]) -> TypeIs[_Cap]:
    """``isinstance(family, capability)``, remembered per class: a runtime-checkable Protocol
    check costs 10-40 µs on Python 3.11, too much once per row of a 10,000-case report.
    (Capabilities are methods of the family's class, so the class decides.) Typed as a ``TypeIs``
    so that a checker narrows ``family`` to the capability after the test, as ``isinstance`` does."""
    key = (type(family), capability)
    found = _HAS.get(key)
    if found is None:
        found = _HAS[key] = isinstance(family, capability)
    return found


def capabilities(family: object) -> list[str]:
    """The names of the optional capabilities a family has (for docs and errors)."""
    return [c.__name__ for c in CAPABILITIES if isinstance(family, c)]
