"""TravelPlanner queries as planprobe cases (family ``travelplanner``).

* ``sole-planning``: the reference information is in the task; no tools; the
  answer is the plan.
* ``two-stage``: TravelPlanner's search tools over the sandbox; the agent gathers
  what it needs, then answers with the plan (it plans itself: there is no
  separate Notebook/Planner tool).

The spec holds the query's structured fields, where the sandbox is (the
training directory or the official database directory: read again when the
case is checked, not copied into the suite), the annotated plan when the data
has one, and whether ``--strict`` decides pass/fail.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...errors import PlanprobeError
from ...schema import Case, CaseMeta, ToolSpec
from .fields import QueryFields, parse_fields
from .rules import rules_text
from .sandbox import Distance, Sandbox, load_database

FAMILY = "travelplanner"
MODES = ("sole-planning", "two-stage")

SOLE_SYSTEM = (
    "You plan trips from the information you are given. Write one entry per day with these fields: Current City "
    "(on a travel day 'from A to B'), Transportation (e.g. 'Flight Number: F0123456, from A to B, Departure Time: "
    "hh:mm, Arrival Time: hh:mm', or 'Self-driving, from A to B' / 'Taxi, from A to B'), Breakfast, Attraction "
    "(several separated by ';', each ending with ';'), Lunch, Dinner, Accommodation. Name every place as 'Name, "
    "City' exactly as the information spells it, and write '-' where nothing is needed (e.g. after returning home). "
    "Use only the given information and meet every requirement of the query.\n" + rules_text()
)
# appended to TravelPlanner's own prompt (training cases) when the strict reading decides: that
# prompt is the paper's and states few of the rules; the strict reading judges every one of them
STRICT_ADDENDUM = "\n\nplanprobe judges this plan by its strict reading. " + rules_text()
TWO_STAGE_SYSTEM = (
    "First gather the information the trip needs with the search tools (flights, driving and taxi distances, "
    "accommodations, restaurants, attractions, the cities of a state), then answer with the plan. " + SOLE_SYSTEM
)


def _obj(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


_S = {"type": "string"}
TOOLS = [
    ToolSpec(name="FlightSearch", description="Flights from one city to another on a date (YYYY-MM-DD).",
             parameters=_obj({"departure_city": _S, "destination_city": _S, "date": _S})),
    ToolSpec(name="GoogleDistanceMatrix", description="Distance, duration and cost between two cities by "
             "self-driving or taxi.", parameters=_obj({"origin": _S, "destination": _S,
                                                       "mode": {"type": "string", "enum": ["self-driving", "taxi"]}})),
    ToolSpec(name="AccommodationSearch", description="Accommodations in a city.", parameters=_obj({"city": _S})),
    ToolSpec(name="RestaurantSearch", description="Restaurants in a city.", parameters=_obj({"city": _S})),
    ToolSpec(name="AttractionSearch", description="Attractions in a city.", parameters=_obj({"city": _S})),
    ToolSpec(name="CitySearch", description="The cities of a state.", parameters=_obj({"state": _S})),
]


def make_case(*, split: str, idx: int, mode: str, fields: QueryFields, sandbox: dict[str, str],
              plan: list[dict[str, Any]] | None, strict: bool, system: str | None = None,
              task: str | None = None, reference_information: str | None = None) -> Case:
    if mode not in MODES:
        raise PlanprobeError(f"--mode {mode!r}: expected one of {', '.join(MODES)}")
    if mode == "sole-planning":
        if task is None:
            task = f"Given information: {reference_information or ''}\nQuery: {fields.query}\nTravel Plan:"
        tools: list[ToolSpec] = []
        system = SOLE_SYSTEM if not system else system + (STRICT_ADDENDUM if strict else "")
    else:
        task = f"Query: {fields.query}"
        tools = TOOLS
        system = TWO_STAGE_SYSTEM
    n = sum(v is not None for v in fields.local_constraint.values())
    return Case(
        id=f"travelplanner-{split}-{idx:04d}-{mode}", family=FAMILY, task=task, system=system, tools=tools,
        spec={"mode": mode, "split": split, "idx": idx, "fields": fields.to_json(), "sandbox": sandbox,
              "reference_plan": plan, "strict": strict},
        meta=CaseMeta(topic=fields.level, difficulty={"days": fields.days, "constraints": n},
                      tags=[f"travelplanner:{split}", mode, fields.level]),
    )


class Compiled:
    """A case's spec, checked, with its sandbox."""

    def __init__(self, case: Case):
        spec = case.spec
        where = f"case {case.id}"
        for key in ("mode", "fields", "sandbox", "strict"):
            if key not in spec:
                raise PlanprobeError(f"{where}: field 'spec.{key}' is missing")
        if spec["mode"] not in MODES:
            raise PlanprobeError(f"{where}: field 'spec.mode': expected one of {', '.join(MODES)}")
        self.mode: str = spec["mode"]
        self.fields = parse_fields(spec["fields"], f"{where}: spec.fields")
        sb = spec["sandbox"]
        self._inline: Sandbox | None = None
        if isinstance(sb, dict) and sb.get("kind") == "inline":  # a synthesized sandbox (the itinerary family)
            if not isinstance(sb.get("tables"), dict):
                raise PlanprobeError(f"{where}: field 'spec.sandbox.tables': expected an object of tables")
            self._inline = inline_sandbox(sb["tables"], f"{where}: spec.sandbox.tables")
            self.sandbox_ref = ("inline", "")
        elif not isinstance(sb, dict) or sb.get("kind") not in ("training", "database") or not sb.get("dir"):
            raise PlanprobeError(f"{where}: field 'spec.sandbox': expected {{kind: training|database, dir}}")
        else:
            self.sandbox_ref = (sb["kind"], sb["dir"])
        self.plan = spec.get("reference_plan")
        self.strict = bool(spec["strict"])

    @property
    def sandbox(self) -> Sandbox:
        if self._inline is not None:
            return self._inline
        return sandbox_for(*self.sandbox_ref)


def prepare(case: Case) -> Compiled:
    return case.derived("travelplanner", Compiled)


def inline_sandbox(tables: dict[str, Any], where: str) -> Sandbox:
    """A sandbox whose tables the case carries (rows as the database would give them;
    ``distances`` as [origin, destination, duration, distance], ``cities`` as {city: state})."""
    box = Sandbox(source="inline")
    try:
        for table in ("flights", "accommodations", "restaurants", "attractions"):
            rows = tables[table]
            if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                raise PlanprobeError(f"{where}: field '{table}': expected a list of rows")
            setattr(box, table, rows)
        box.distances = [Distance(*d) for d in tables["distances"]]
        box.cities = dict(tables["cities"])
    except KeyError as exc:
        raise PlanprobeError(f"{where}: field {exc.args[0]!r} is missing") from None
    except (TypeError, ValueError):
        raise PlanprobeError(f"{where}: field 'distances'/'cities': expected [origin, destination, duration, "
                             "distance] rows and {city: state}") from None
    return box.index()


_LOADED: dict[tuple[str, str], Sandbox] = {}


def sandbox_for(kind: str, directory: str, progress: Callable[[str], None] | None = None) -> Sandbox:
    """The sandbox a case names, loaded once per process (the two most recent are kept).
    ``progress`` is called with each table's name as it is read (database directories)."""
    key = (kind, directory)
    box = _LOADED.get(key)
    if box is None:
        if kind == "database":
            box = load_database(Path(directory), progress)
        else:
            from .training import load_training, training_sandbox

            box = training_sandbox(load_training(Path(directory)), directory)
        while len(_LOADED) >= 2:
            _LOADED.pop(next(iter(_LOADED)))
        _LOADED[key] = box
    return box


def training_cases(train_dir: Path, modes: list[str], strict: bool) -> list[Case]:
    """The training queries of ``train_dir`` as cases, in each mode. The family needs them itself
    (its solver sample; its training-kind sandbox is read from the same folder when a case is
    checked), so they are made here; ``planprobe import travelplanner --train-dir`` calls this too."""
    from .training import load_training

    directory = str(Path(train_dir).resolve())
    queries = load_training(Path(directory))
    sandbox_for("training", directory)  # fail now, not at the first check
    cases: list[Case] = []
    for mode in modes:
        for t in queries:
            sole = mode == "sole-planning"
            cases.append(make_case(split="train", idx=t.idx, mode=mode, fields=t.fields,
                                   sandbox={"kind": "training", "dir": directory}, plan=t.plan, strict=strict,
                                   system=t.system if sole else None, task=t.user if sole else None))
    return cases
