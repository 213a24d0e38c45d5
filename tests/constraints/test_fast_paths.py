"""The shortcuts the generator takes for speed (issue #10's throughput target) are exact.

Each fast path replaces a recomputation with something claimed equal to it; these tests
check the claim on many random draws, so a change to the grammar that breaks it fails here
rather than silently changing what cases mean. No timing here (docs/BENCHMARKS.md).
"""

import random

from planprobe.suites.constraints import mentions
from planprobe.suites.constraints.grammar import derive_part
from planprobe.suites.constraints.synthesis import (
    SynthesisOptions,
    part_atoms_generator,
    part_generator,
    synthesize,
)


def _parts(extended: bool, n: int, seed: int, count: int):
    draw = part_atoms_generator(random.Random(seed), n, extended, SynthesisOptions(p_relative=0.5, p_multi=0.4))
    return [draw() for _ in range(count)]


def test_atoms_drawn_with_a_part_are_exactly_derive_part():
    for extended in (False, True):
        for n in (2, 3, 5, 9):
            for part, atoms in _parts(extended, n, n * 7 + extended, 1500):
                assert atoms == derive_part(part)


def test_part_generator_draws_the_same_parts_as_the_fused_one():
    for extended in (False, True):
        plain = part_generator(random.Random(4), 6, extended, SynthesisOptions())
        fused = part_atoms_generator(random.Random(4), 6, extended, SynthesisOptions())
        assert [plain() for _ in range(500)] == [fused()[0] for _ in range(500)]


def test_a_mirrored_part_states_exactly_the_same_atoms():
    """mentions._variant swaps in the mirror without deriving both sides to compare."""
    mirrored = 0
    for extended in (False, True):
        for n in (2, 4, 6):
            for part, atoms in _parts(extended, n, 100 + n, 1500):
                mirror = mentions._mirror(part)
                if mirror is not None:
                    mirrored += 1
                    assert set(derive_part(mirror)) == set(atoms)
    assert mirrored > 1000


def test_the_atom_check_can_fail():
    """A wrong atom list is noticed (the comparison is not vacuous)."""
    part, atoms = _parts(False, 4, 1, 1)[0]
    assert atoms[::-1] + [("order", 0, 0)] != derive_part(part)


def test_the_chance_of_a_random_order_is_cached_by_value():
    before = ((0, 1), (1, 2))
    assert mentions._random_order_valid(3, before) == 1 / 6
    assert mentions._random_order_valid(4, ()) == 1.0


def test_the_one_pass_mention_check_equals_first_mentions_then_valid():
    """mentions._mentions_valid (arrange's innermost check) against the plain two steps, on the
    arrangements of random paragraphs and random precedence sets, both answers exercised."""
    rng = random.Random(5)
    answers = set()
    for extended in (False, True):
        for n in (2, 3, 5, 8):
            parts = [p for p, _ in _parts(extended, n, 40 + n, 300)]
            for i in range(0, len(parts) - 3, 3):
                sentences = [mentions.Sentence(tuple(parts[i:i + 2]), (0,)), mentions.Sentence((parts[i + 2],), ())]
                arranged = [s for _, s in mentions._arrangement(sentences, rng)]
                pairs = {(a, b) for a in range(n) for b in range(n) if a != b and rng.random() < 0.15}
                before = tuple(sorted((a, b) for a, b in pairs if (b, a) not in pairs or a < b))
                want = mentions._valid(mentions._first_mentions(arranged, n), before)
                assert mentions._mentions_valid(arranged, mentions._needs(n, before)) is want
                answers.add(want)
    assert answers == {True, False}


def _two_pass_tokens(text):
    """The reader's tokeniser as first written: tokens, and None if anything is left over."""
    import re

    token = re.compile(r"\d{1,2}:\d{2}|[a-z]+|[,;]")
    low = text.lower()
    if re.search(r"\S", token.sub(" ", low)):
        return None
    return tuple(token.findall(low))


def test_one_pass_tokeniser_equals_the_two_pass_one_on_clean_and_damaged_text():
    from planprobe.suites.constraints import reading
    from planprobe.suites.constraints.generator import (
        ConstraintSuiteOptions,
        generate_case,
    )

    rng = random.Random(8)
    junk = "0123456789:.'-é!?()\"\t ,;ABCxyz"
    texts = ["", "12:00", "123:00", "1:00", "12:0", "a", "9", ":", "by 07:00, a; b", "É"]
    for i in range(60):
        case = generate_case(i, ConstraintSuiteOptions(extended=i % 2 == 1, actions=(2, 7)))
        for sentence in reading.split_sentences(reading.requirement_of(case.task)):
            text = sentence.rstrip(".")
            texts.append(text)
            k = rng.randrange(len(text) + 1)
            texts.append(text[:k] + rng.choice(junk) + text[k + rng.randrange(2):])
    unreadable = 0
    for text in texts:
        want = _two_pass_tokens(text)
        unreadable += want is None
        assert reading._tokens(text) == want, text
    assert 50 < unreadable < len(texts) - 50  # both outcomes are exercised


def _union_find_connectivity(n, atoms):
    """connectivity as first written (union-find), the reference for the bitmask sweep."""
    parent = list(range(n + 1))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    mentioned = [False] * n
    for kind, a, x in atoms:
        mentioned[a] = True
        if kind == "order":
            mentioned[x] = True
        ra, rb = find(a), find(x if kind == "order" else n)
        if ra != rb:
            parent[ra] = rb
    root = find(0)
    return all(find(a) == root for a in range(n)), mentioned.count(False)


def test_connectivity_equals_union_find_on_random_atom_sets():
    from planprobe.suites.constraints.synthesis import connectivity

    rng = random.Random(2)
    outcomes = set()
    for _ in range(4000):
        n = rng.randint(1, 12)
        atoms = []
        for _ in range(rng.randint(0, n + 2)):
            a = rng.randrange(n)
            if n > 1 and rng.random() < 0.7:
                atoms.append(("order", a, rng.choice([b for b in range(n) if b != a])))
            else:
                atoms.append((rng.choice(["start_ge", "end_le"]), a, rng.randint(1, 23)))
        got = connectivity(n, atoms)
        assert got == _union_find_connectivity(n, atoms), (n, atoms)
        outcomes.add(got[0])
    assert outcomes == {True, False}


def test_suite_lines_are_byte_for_byte_the_models_json():
    """case_lines writes JSON without building pydantic models; it must equal the models' own JSON."""
    from planprobe.suites.constraints.generator import (
        ConstraintSuiteOptions,
        case_lines,
        generate_case,
    )
    from planprobe.suites.constraints.synthesis import SynthesisOptions

    variants = [
        ConstraintSuiteOptions(seed=1),
        ConstraintSuiteOptions(seed=2, extended=True, actions=(2, 9)),
        ConstraintSuiteOptions(seed=3, style="paper"),
        ConstraintSuiteOptions(seed=4, style="paper", extended=True, max_duration=5),
        ConstraintSuiteOptions(seed=5, topic="Barber", allow_unconstrained=True,
                               synthesis=SynthesisOptions(max_sentences=3)),
        ConstraintSuiteOptions(seed=6, extended=True, check_text=False, actions=(10, 12)),
    ]
    for opts in variants:
        lines = case_lines(opts, 0, 40)
        assert lines == [generate_case(i, opts).model_dump_json() for i in range(40)]


def test_suite_line_check_can_fail():
    """A line differing from the model's JSON in one byte is noticed (floats written as ints)."""
    from planprobe.suites.constraints.generator import (
        ConstraintSuiteOptions,
        case_lines,
        generate_case,
    )

    opts = ConstraintSuiteOptions(seed=1)
    line = case_lines(opts, 0, 1)[0]
    assert line.replace('"actions":', '"actions": ', 1) != generate_case(0, opts).model_dump_json()
    assert '"words":' in line and '.0,' in line


def _plain_take(rnd, p1, p2, avail, limit):
    """synthesis's take as first written: a size, capped by the limit, then that many pops."""
    r = rnd()
    k = 1 if r < p1 else 2 if r < p2 else 3
    k = min(k, limit)
    if k == 1:
        return (avail.pop(int(rnd() * len(avail))),)
    return tuple([avail.pop(int(rnd() * len(avail))) for _ in range(k)])


def test_take_draws_and_returns_what_the_plain_form_does():
    from planprobe.suites.constraints.synthesis import taker

    sizes = set()
    for p1, p2 in ((0.75, 0.95), (0.2, 0.5), (0.0, 0.0), (1.0, 1.0)):
        fast_rng, plain_rng, pick = random.Random(5), random.Random(5), random.Random(6)
        take = taker(fast_rng.random, p1, p2)
        for _ in range(3000):
            n = pick.randint(1, 9)
            avail = list(range(n))
            limit = pick.randint(-1, n)
            fast_avail, plain_avail = avail[:], avail[:]
            got = take(fast_avail, limit)
            assert got == _plain_take(plain_rng.random, p1, p2, plain_avail, limit)
            assert fast_avail == plain_avail and fast_rng.getstate() == plain_rng.getstate()
            sizes.add(len(got))
    assert sizes == {0, 1, 2, 3}


# -- render_case: words and unconstrained actions counted while rendering ------------------------

_WORD_AS_FIRST_WRITTEN = r"[A-Za-z]+|\d{2}:\d{2}"  # generator's regex, scanned over the whole requirement

ODD_NAMES = ["x-ray imaging", "checking patients' records", "12:30 rounds", "room 101:15 prep", "ßeta testing", "ß grading",
             "ıdle check", "éclair baking", "a1b2 c3", "quoting \"notes\" and {tasks} {0}", "back\\slash", "ok"]
TOOL_SAFE_NAMES = ["x-ray imaging", "a1b2 c3", "ok", "room 101 prep", "Zed-9 check", "under_score task"]  # ToolSpec names


def _random_sentences(rng, n, extended, count):
    from planprobe.suites.constraints import vocabulary as V
    from planprobe.suites.constraints.grammar import Sentence

    draw = part_atoms_generator(rng, n, extended, SynthesisOptions(p_relative=0.5, p_multi=0.4))
    out = []
    for _ in range(count):
        parts = tuple(draw()[0] for _ in range(rng.randint(1, 3)))
        out.append(Sentence(parts, tuple(rng.randrange(len(V.CONJUNCTIONS)) for _ in parts[1:])))
    return out


def test_words_counted_while_rendering_equal_the_regex_over_the_text():
    """render_counted sums the counts of names and terminal words; the regex over the
    whole sentence is the definition. Odd names: digits, colons, apostrophes, hyphens and
    first letters that upper() turns into other letters ("ß" -> "SS", "ı" -> "I")."""
    import re

    from planprobe.suites.constraints.render import (
        render_counted,
        render_sentence,
        word_count,
    )

    rng = random.Random(3)
    checked = 0
    for extended in (False, True):
        for n in (2, 4, 7):
            for sentence in _random_sentences(rng, n, extended, 400):
                names = rng.sample(ODD_NAMES, n) if rng.random() < 0.5 else [f"task {chr(97 + i)}" for i in range(n)]
                text, spans, count = render_counted(sentence, names)
                assert count == len(re.findall(_WORD_AS_FIRST_WRITTEN, text)) == word_count(text), text
                assert render_sentence(sentence, names) == (text, spans)
                checked += 1
    assert checked == 2400


def test_the_word_count_check_can_fail():
    """One word more or fewer in a rendered sentence changes the regex's count."""
    import re

    from planprobe.suites.constraints.render import render_counted

    sentence = _random_sentences(random.Random(1), 3, False, 1)[0]
    text, _, count = render_counted(sentence, ["a b", "c", "d"])
    assert len(re.findall(_WORD_AS_FIRST_WRITTEN, text + " extra")) != count
    assert len(re.findall(_WORD_AS_FIRST_WRITTEN, text.replace("a b", "ab", 1))) != count


def _suites():
    from planprobe.suites.constraints.generator import ConstraintSuiteOptions

    return [
        ConstraintSuiteOptions(seed=1, n=150),
        ConstraintSuiteOptions(seed=2, n=150, extended=True, actions=(2, 9)),
        ConstraintSuiteOptions(seed=3, n=100, style="paper", extended=True),
        ConstraintSuiteOptions(seed=4, n=150, actions=(5, 9), allow_unconstrained=True,
                               synthesis=SynthesisOptions(max_sentences=2)),
    ]


def test_case_words_and_unconstrained_actions_equal_their_definitions():
    """meta.difficulty's words (the regex over the requirement) and unconstrained actions
    (synthesis.connectivity over the constraints) as first computed, on whole suites."""
    import re

    from planprobe.suites.constraints.generator import generate_cases
    from planprobe.suites.constraints.reading import requirement_of
    from planprobe.suites.constraints.synthesis import connectivity

    unconstrained = set()
    for opts in _suites():
        for case in generate_cases(opts):
            diff = case.meta.difficulty
            assert diff["words"] == len(re.findall(_WORD_AS_FIRST_WRITTEN, requirement_of(case.task)))
            index = {a["id"]: i for i, a in enumerate(case.spec["actions"])}
            atoms = [(c["kind"], index[c["a"]], index[c["b"]] if c["kind"] == "order" else c["hour"])
                     for c in case.spec["constraints"]]
            assert diff["unconstrained"] == connectivity(len(index), atoms)[1], case.id
            unconstrained.add(diff["unconstrained"] > 0)
    assert unconstrained == {True, False}


def test_task_head_is_the_template_formatted_with_the_task_list():
    """render_case splits each template once around its task list; the task must be
    the template formatted as a whole, for every style and mode, odd names included."""
    from planprobe.suites.constraints.generator import (
        TEMPLATES,
        ConstraintSuiteOptions,
        _task_list,
        render_case,
    )
    from planprobe.suites.constraints.reading import requirement_of
    from planprobe.suites.constraints.spec import RESTART_TOOL

    rng = random.Random(9)
    for (style, extended), template in TEMPLATES.items():
        opts = ConstraintSuiteOptions(style=style, extended=extended)
        for n in (2, 3, 5):
            names = rng.sample(ODD_NAMES, n)
            sentences = _random_sentences(rng, n, extended, 2)
            draft = render_case(0, opts, "odd", names, [1] * n if extended else None, sentences)
            want = template.format(tasks=_task_list(names), requirement=requirement_of(draft.task),
                                   restart=RESTART_TOOL)
            assert draft.task == want


def test_suite_lines_of_odd_names_are_the_models_json():
    """The spliced line (cached tool JSON, two serialised halves) equals the model's JSON
    on names with digits, hyphens and capitals, in every style and mode."""
    from planprobe.suites.constraints.generator import (
        ConstraintSuiteOptions,
        _case_json,
        _case_model,
        render_case,
    )

    rng = random.Random(10)
    for style in ("planprobe", "paper"):
        for extended in (False, True):
            opts = ConstraintSuiteOptions(style=style, extended=extended, seed=3)
            for n in (2, 4, 6):
                names = rng.sample(TOOL_SAFE_NAMES, n)
                draft = render_case(5, opts, "odd", names, [2] * n if extended else None,
                                    _random_sentences(rng, n, extended, 3))
                assert _case_json(draft) == _case_model(draft).model_dump_json()


def test_skeleton_json_text_is_pydantics_json_of_the_skeleton_dict():
    """The suite line writes each sentence's skeleton as text; it must be to_json of
    sentence_to_json byte for byte (every form, relative clauses, times, large numbers)."""
    from pydantic_core import to_json

    from planprobe.suites.constraints.grammar import (
        Clause,
        NounPhrase,
        Relative,
        Sentence,
        Time,
        sentence_json_text,
        sentence_to_json,
    )

    rng = random.Random(12)
    sentences = [s for extended in (False, True) for n in (2, 5, 9, 12)
                 for s in _random_sentences(rng, n, extended, 300)]
    big = NounPhrase((70, 3), Relative(False, Time(100), 65, 64))
    sentences.append(Sentence((Clause(3, True, big, NounPhrase((99,)), 80, 66),), ()))
    shapes = set()
    for s in sentences:
        assert sentence_json_text(s) == to_json(sentence_to_json(s)).decode(), s
        shapes.update((type(p).__name__, p.form) for p in s.parts)
    assert shapes == {("Clause", 1), ("Clause", 2), ("Clause", 3), ("MultiClause", 1), ("MultiClause", 2)}

def _nodes(node: object):
    """Every grammar node (a NamedTuple) in nested lists and tuples of sentences and parts."""
    if isinstance(node, (tuple, list)):
        if hasattr(node, "_fields"):
            yield node
        for child in node:
            yield from _nodes(child)


def test_nodes_built_with_tuple_new_are_whole_nodes():
    """synthesis and mentions build their nodes with ``tuple.__new__`` (skipping the NamedTuple's
    interpreted ``__new__``), which does not check the number of fields: each node, drawn or
    re-arranged, must equal the class's own build from its fields."""
    seen: set[str] = set()
    for extended in (False, True):
        for n in (2, 4, 6):
            parts = [p for p, _ in _parts(extended, n, 300 + n, 400)]
            skeleton = synthesize(random.Random(n), n, SynthesisOptions(), [2] * n if extended else None)
            sentences = [mentions.Sentence(tuple(parts[i:i + 2]), (0,)) for i in range(0, len(parts), 2)]
            arranged = [s for _, s in mentions._arrangement(sentences, random.Random(n + extended))]
            for node in _nodes((parts, skeleton.sentences, arranged)):
                seen.add(type(node).__name__)
                assert len(node) == len(node._fields) and node == type(node)(*node)
    assert seen >= {"Sentence", "Clause", "MultiClause", "NounPhrase", "Relative", "Time"}
