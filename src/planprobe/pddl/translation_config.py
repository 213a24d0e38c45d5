"""Translation configs: the per-domain vocabulary that turns PDDL into sentences.

One job: read, check and look up configs (the JSON format below, the built-in
ones, a generic one for any domain, and the intro a prompt starts with). Binding
a config to a problem and rendering states, goals and plans is ``translation``.

Why templates: PlanBench (seed 004, §4) renders every predicate and action
with a fixed sentence and builds states and plans by concatenation, and
parses model text back with the same vocabulary. A template per predicate and
action, plus a naming rule for objects, is all a domain needs — so a user adds
a domain with a PDDL file and a small JSON translation config, no code.

The config (see ``docs/pddl-translation.md``)::

    {
      "planprobe_translation": 1,
      "name": "blocksworld",
      "domains": ["blocksworld-4ops"],
      "objects": {"a": "red block", "b": "blue block"},
      "object_rules": [{"match": "^(.+)$", "name": "block {1}"}],
      "predicates": {"on": "the {0} is on top of the {1}", "handempty": "the hand is empty"},
      "hidden_predicates": [],
      "actions": {"unstack": "unstack the {0} from on top of the {1}"},
      "action_aliases": {"pick-up": ["grab the {0}"]},
      "predicate_aliases": {"holding": ["the {0} is held"]},
      "intro": {"default": "I am playing with a set of blocks ..."}
    }

``{i}`` is the i-th parameter of the predicate or action (``{{``/``}}`` are
literal braces; nothing else is substituted — templates are data, never
``str.format``-ed). Predicates that should not be said aloud (logistics' type
predicates such as ``(TRUCK t0)``) are listed in ``hidden_predicates``.

Built-in configs live in ``domains/*.json`` next to this module: blocksworld,
mystery_blocksworld, logistics, obfuscated_deceptive_logistics,
obfuscated_randomized_logistics and depots.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from .model import Atom, Domain

__all__ = [
    "FORMAT_VERSION",
    "DomainTranslation",
    "Template",
    "TranslationConfigError",
    "builtin_translations",
    "describe_domain",
    "generic_translation",
    "join_items",
    "load_translation",
    "parse_translation",
    "translation_for",
]

FORMAT_VERSION = 1
_FIELDS = {
    "planprobe_translation", "name", "description", "domains", "objects", "object_rules", "predicates",
    "hidden_predicates", "actions", "action_aliases", "predicate_aliases", "intro",
}
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")


class TranslationConfigError(PlanprobeError):
    """A translation config that cannot be used; the message names the file and the field."""

    def __init__(self, source: str, fieldname: str, message: str):
        self.source, self.field, self.detail = source, fieldname, message
        where = f"{source}: field '{fieldname}'" if fieldname else source
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Template:
    """A sentence with numbered slots: literal text and parameter indices, in order."""

    text: str
    parts: tuple[str | int, ...]

    @property
    def slots(self) -> tuple[int, ...]:
        """Parameter indices in the order they appear in the sentence."""
        return tuple(p for p in self.parts if isinstance(p, int))

    @property
    def literal(self) -> str:
        """The text without its slots (for keyword matching)."""
        return " ".join(p for p in self.parts if isinstance(p, str))

    def render(self, names: Sequence[str]) -> str:
        return "".join(p if isinstance(p, str) else names[p] for p in self.parts)

    @classmethod
    def parse(cls, text: str, source: str, fieldname: str) -> Template:
        if not isinstance(text, str) or not text.strip():
            raise TranslationConfigError(source, fieldname, "expected a non-empty string template")
        parts: list[str | int] = []
        pos = 0
        literal = ""
        for m in _PLACEHOLDER.finditer(text):
            literal += text[pos:m.start()]
            pos = m.end()
            token = m.group(0)
            if token in ("{{", "}}"):
                literal += token[0]
            elif m.group(1) is not None and m.group(1).isdigit():
                if literal:
                    parts.append(literal)
                    literal = ""
                parts.append(int(m.group(1)))
            else:
                raise TranslationConfigError(
                    source, fieldname,
                    f"bad placeholder {token!r} in {text!r}: use {{0}}, {{1}}, … for the parameters "
                    "(and {{ or }} for a literal brace)")
        literal += text[pos:]
        if literal:
            parts.append(literal)
        return cls(text, tuple(parts))


@dataclass(frozen=True)
class ObjectRule:
    """Objects whose PDDL name matches ``pattern`` are called ``name`` with ``{i}`` → group i."""

    pattern: re.Pattern
    name: Template


@dataclass(frozen=True)
class DomainTranslation:
    """One domain's vocabulary: how to say its objects, predicates and actions."""

    name: str
    source: str
    description: str = ""
    domains: tuple[str, ...] = ()
    objects: dict[str, str] = field(default_factory=dict)
    object_rules: tuple[ObjectRule, ...] = ()
    predicates: dict[str, Template] = field(default_factory=dict)
    hidden_predicates: frozenset[str] = frozenset()
    actions: dict[str, Template] = field(default_factory=dict)
    action_aliases: dict[str, tuple[Template, ...]] = field(default_factory=dict)
    predicate_aliases: dict[str, tuple[Template, ...]] = field(default_factory=dict)
    intros: dict[str, str] = field(default_factory=dict)
    _checked: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    # -- vocabulary ----------------------------------------------------------
    def object_name(self, name: str) -> str:
        """What a PDDL object is called in text (explicit name, then the first matching rule)."""
        if name in self.objects:
            return self.objects[name]
        for rule in self.object_rules:
            m = rule.pattern.fullmatch(name)
            if m is not None:
                groups = (m.group(0), *m.groups())
                return rule.name.render([g or "" for g in groups])
        return name

    def intro(self, variant: str = "default", domain: Domain | None = None) -> str:
        """The domain description a prompt starts with. ``variant`` picks one of the
        config's ``intro`` texts (falling back to ``default``); without any, a
        description is generated from the PDDL ``domain`` (actions with their
        preconditions and effects, in the config's words)."""
        text = self.intros.get(variant, self.intros.get("default"))
        if text is not None:
            return text
        if domain is None:
            raise TranslationConfigError(self.source, "intro",
                                         "no intro text: add one, or pass the PDDL domain to generate it")
        return describe_domain(self, domain)

    # -- consistency with a PDDL domain --------------------------------------
    def check(self, domain: Domain) -> None:
        """Raise ``TranslationConfigError`` unless every predicate and action of
        ``domain`` has a template (or is hidden) with a slot for each parameter."""
        if domain.name in self._checked:
            return
        for pred in domain.predicates:
            if pred.name in self.hidden_predicates:
                continue
            t = self.predicates.get(pred.name)
            if t is None:
                raise TranslationConfigError(
                    self.source, "predicates",
                    f"no template for predicate {pred.name!r} of PDDL domain {domain.name!r} "
                    "(add one, or list it in 'hidden_predicates')")
            _check_slots(self.source, f"predicates.{pred.name}", t, pred.arity, required=False)
            for i, alias in enumerate(self.predicate_aliases.get(pred.name, ())):
                _check_slots(self.source, f"predicate_aliases.{pred.name}[{i}]", alias, pred.arity, required=False)
        for act in domain.actions:
            t = self.actions.get(act.name)
            if t is None:
                raise TranslationConfigError(self.source, "actions",
                                             f"no template for action {act.name!r} of PDDL domain {domain.name!r}")
            _check_slots(self.source, f"actions.{act.name}", t, act.arity, required=True)
            for i, alias in enumerate(self.action_aliases.get(act.name, ())):
                _check_slots(self.source, f"action_aliases.{act.name}[{i}]", alias, act.arity, required=False)
        known_preds = {p.name for p in domain.predicates}
        for name in (*self.predicates, *self.predicate_aliases):
            if name not in known_preds:
                raise TranslationConfigError(self.source, f"predicates.{name}",
                                             f"PDDL domain {domain.name!r} has no predicate {name!r}")
        known_actions = {a.name for a in domain.actions}
        for name in (*self.actions, *self.action_aliases):
            if name not in known_actions:
                raise TranslationConfigError(self.source, f"actions.{name}",
                                             f"PDDL domain {domain.name!r} has no action {name!r}")
        self._checked[domain.name] = True


def _check_slots(source: str, fieldname: str, t: Template, arity: int, required: bool) -> None:
    bad = [i for i in t.slots if i >= arity]
    if bad:
        raise TranslationConfigError(source, fieldname, f"slot {{{bad[0]}}} in {t.text!r}, but it takes {arity} "
                                                        f"parameter{'' if arity == 1 else 's'}")
    missing = sorted(set(range(arity)) - set(t.slots))
    if required and missing:
        raise TranslationConfigError(
            source, fieldname, f"{t.text!r} has no slot {{{missing[0]}}}: an action template must name every "
                               "parameter, or a plan could not be read back")


# ---------------------------------------------------------------------------
# loading
# ---------------------------------------------------------------------------

def parse_translation(data: Any, source: str = "<config>") -> DomainTranslation:
    """Build a ``DomainTranslation`` from a decoded JSON object, checking every field."""
    if not isinstance(data, dict):
        raise TranslationConfigError(source, "", "expected a JSON object at the top level")
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise TranslationConfigError(source, unknown[0], f"unknown field (known: {', '.join(sorted(_FIELDS))})")
    version = data.get("planprobe_translation")
    if version != FORMAT_VERSION:
        raise TranslationConfigError(source, "planprobe_translation",
                                     f"expected {FORMAT_VERSION} (the format version), got {version!r}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise TranslationConfigError(source, "name", "expected a non-empty string")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise TranslationConfigError(source, "description", "expected a string")
    domains = _str_list(data.get("domains", []), source, "domains")
    objects = data.get("objects", {})
    if not isinstance(objects, dict) or not all(isinstance(v, str) and v.strip() for v in objects.values()):
        raise TranslationConfigError(source, "objects", "expected an object mapping PDDL names to non-empty names")
    rules = []
    raw_rules = data.get("object_rules", [])
    if not isinstance(raw_rules, list):
        raise TranslationConfigError(source, "object_rules", "expected a list of {\"match\": …, \"name\": …}")
    for i, rule in enumerate(raw_rules):
        where = f"object_rules[{i}]"
        if not isinstance(rule, dict) or set(rule) != {"match", "name"}:
            raise TranslationConfigError(source, where, "expected {\"match\": regex, \"name\": template}")
        try:
            pattern = re.compile(rule["match"])
        except (re.error, TypeError) as exc:
            raise TranslationConfigError(source, f"{where}.match", f"not a regular expression: {exc}") from None
        t = Template.parse(rule["name"], source, f"{where}.name")
        if any(s > pattern.groups for s in t.slots):
            raise TranslationConfigError(source, f"{where}.name",
                                         f"{t.text!r} uses a group the pattern does not have "
                                         f"({pattern.groups} group{'s' if pattern.groups != 1 else ''}; "
                                         "{0} is the whole name)")
        rules.append(ObjectRule(pattern, t))
    predicates = _templates(data.get("predicates"), source, "predicates", allow_empty=True)
    actions = _templates(data.get("actions"), source, "actions", allow_empty=False)
    hidden = frozenset(n.lower() for n in _str_list(data.get("hidden_predicates", []), source, "hidden_predicates"))
    aliases = _aliases(data.get("action_aliases", {}), source, "action_aliases")
    pred_aliases = _aliases(data.get("predicate_aliases", {}), source, "predicate_aliases")
    intros = {}
    raw_intro = data.get("intro", {})
    if isinstance(raw_intro, (str, list)):
        raw_intro = {"default": raw_intro}
    if not isinstance(raw_intro, dict):
        raise TranslationConfigError(source, "intro", "expected a string, a list of lines, or an object of those")
    for variant, text in raw_intro.items():
        if isinstance(text, list) and all(isinstance(x, str) for x in text):
            text = "\n".join(text)
        if not isinstance(text, str):
            raise TranslationConfigError(source, f"intro.{variant}", "expected a string or a list of lines")
        intros[variant] = text
    return DomainTranslation(
        name=name, source=source, description=description, domains=tuple(d.lower() for d in domains),
        objects={k.lower(): v for k, v in objects.items()}, object_rules=tuple(rules),
        predicates=predicates, hidden_predicates=hidden, actions=actions, action_aliases=aliases,
        predicate_aliases=pred_aliases, intros=intros)


def _aliases(value: Any, source: str, fieldname: str) -> dict[str, tuple[Template, ...]]:
    if not isinstance(value, dict):
        raise TranslationConfigError(source, fieldname, "expected an object: PDDL name → list of templates")
    out = {}
    for name, items in value.items():
        texts = _str_list(items, source, f"{fieldname}.{name}")
        out[name.lower()] = tuple(Template.parse(t, source, f"{fieldname}.{name}[{i}]") for i, t in enumerate(texts))
    return out


def _str_list(value: Any, source: str, fieldname: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TranslationConfigError(source, fieldname, "expected a list of strings")
    return value


def _templates(value: Any, source: str, fieldname: str, allow_empty: bool) -> dict[str, Template]:
    if not isinstance(value, dict) or not (value or allow_empty):
        what = "an object" if allow_empty else "a non-empty object"
        raise TranslationConfigError(source, fieldname, f"expected {what}: PDDL name → template")
    return {k.lower(): Template.parse(v, source, f"{fieldname}.{k}") for k, v in value.items()}


def load_translation(source: str | Path) -> DomainTranslation:
    """A translation config: a built-in name (``"blocksworld"``) or a path to a JSON file."""
    text: str
    where: str
    path = Path(source)
    if isinstance(source, str) and (source in _BUILTIN_CACHE or source in builtin_translations()):
        return _builtin(source)
    if not path.is_file():
        known = ", ".join(builtin_translations())
        raise TranslationConfigError(str(source), "", f"no such file, and not a built-in translation ({known})")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TranslationConfigError(str(path), "", f"cannot read: {exc.strerror or exc}") from None
    where = str(path)
    return _decode(text, where)


def _decode(text: str, where: str) -> DomainTranslation:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranslationConfigError(f"{where}:{exc.lineno}:{exc.colno}", "", f"not valid JSON: {exc.msg}") from None
    return parse_translation(data, where)


_BUILTIN_CACHE: dict[str, DomainTranslation] = {}


def builtin_translations() -> tuple[str, ...]:
    """Names of the configs shipped with planprobe."""
    folder = resources.files(__package__).joinpath("domains")
    return tuple(sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json")))


def _builtin(name: str) -> DomainTranslation:
    if name not in _BUILTIN_CACHE:
        res = resources.files(__package__).joinpath("domains").joinpath(f"{name}.json")
        _BUILTIN_CACHE[name] = _decode(res.read_text(encoding="utf-8"), f"planprobe:domains/{name}.json")
    return _BUILTIN_CACHE[name]


def translation_for(domain: Domain | str) -> DomainTranslation:
    """The built-in config for a PDDL domain (by its ``(domain …)`` name or the config's name)."""
    name = (domain.name if isinstance(domain, Domain) else domain).lower()
    for key in builtin_translations():
        config = _builtin(key)
        if name == config.name or name in config.domains:
            return config
    known = ", ".join(builtin_translations())
    raise PlanprobeError(f"no built-in translation for PDDL domain {name!r} (built in: {known}); "
                         "write a translation config (see docs/pddl-translation.md) and pass its path")


def generic_translation(domain: Domain) -> DomainTranslation:
    """A plain config for any PDDL domain, in the style of PlanBench's mystery
    prompts: ``pred {0}`` for unary facts, ``{0} pred {1}`` for binary ones,
    ``pred {0} {1} {2}…`` otherwise, ``action {0} {1}…`` for actions, objects by
    their PDDL names, and an intro generated from the PDDL."""
    def fact(name: str, arity: int) -> str:
        if arity == 1:
            return f"{name} {{0}}"
        if arity == 2:
            return f"{{0}} {name} {{1}}"
        return " ".join([name, *(f"{{{i}}}" for i in range(arity))])
    data = {
        "planprobe_translation": FORMAT_VERSION, "name": domain.name, "domains": [domain.name],
        "description": f"generated from the PDDL of {domain.name}",
        "predicates": {p.name: fact(p.name, p.arity) for p in domain.predicates},
        "actions": {a.name: " ".join([a.name, *(f"{{{i}}}" for i in range(a.arity))]) for a in domain.actions},
    }
    return parse_translation(data, f"<generic translation of {domain.name}>")


# ---------------------------------------------------------------------------
# how PlanBench lists facts (the generated intro and the rendering both use it)
# ---------------------------------------------------------------------------

def join_items(items: Sequence[str]) -> str:
    """``a, b and c`` — how PlanBench lists facts."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


# ---------------------------------------------------------------------------
# a generated domain description (for configs without an intro)
# ---------------------------------------------------------------------------

def describe_domain(config: DomainTranslation, domain: Domain) -> str:
    """A domain description in the manner of PlanBench's mystery prompts, built from
    the PDDL: each action with the facts it needs, makes true and makes false.
    Parameters are called by their PDDL names (``?ob`` → ``ob``)."""
    config.check(domain)
    lines = ["I am playing with a set of objects. Here are the actions I can do", ""]
    for act in domain.actions:
        lines.append("   " + config.actions[act.name].render([p.name.lstrip("?") for p in act.parameters]))
    lines += ["", "I have the following restrictions on my actions:"]

    def facts(atoms: Iterable[Atom], params: dict[str, str]) -> str:
        out = []
        for a in atoms:
            if a.predicate in config.hidden_predicates:
                continue
            t = config.predicates.get(a.predicate)
            if t is not None:
                out.append(t.render([params.get(x, x) for x in a.args]))
        return join_items(out) or "nothing"

    for act in domain.actions:
        params = {p.name: p.name.lstrip("?") for p in act.parameters}
        verb = config.actions[act.name].render([p.lstrip("?") for p in params])
        pre = [lit.atom for lit in act.precondition if lit.positive and not lit.is_equality]
        neg = [lit.atom for lit in act.precondition if not lit.positive and not lit.is_equality]
        lines.append(f"    To perform {verb}, the following facts need to be true: {facts(pre, params)}.")
        if neg:
            lines.append(f"    To perform {verb}, the following facts need to be false: {facts(neg, params)}.")
        lines.append(f"    Once {verb} is performed the following facts will be true: "
                     f"{facts(act.add_effects, params)}.")
        lines.append(f"    Once {verb} is performed the following facts will be false: "
                     f"{facts(act.del_effects, params)}.")
    return "\n".join(lines) + "\n\n"
