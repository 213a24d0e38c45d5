import random

from planprobe.suites.constraints.grammar import derive
from planprobe.suites.constraints.synthesis import SynthesisOptions, synthesize
from planprobe.suites.constraints.z3model import basic_satisfiable, extended_satisfiable


def test_every_synthesized_skeleton_is_satisfiable_by_z3():
    for i in range(200):
        rng = random.Random(i)
        n = rng.randint(2, 7)
        sk = synthesize(rng, n, SynthesisOptions())
        pairs = [(a[1], a[2]) for s in sk.sentences for a in derive(s)]
        assert sk.sentences and basic_satisfiable(n, pairs)
        durations = [rng.randint(1, 3) for _ in range(n)]
        sk = synthesize(rng, n, SynthesisOptions(), durations)
        atoms = [a for s in sk.sentences for a in derive(s)]
        assert sk.sentences and extended_satisfiable(durations, atoms)


def test_sentence_count_is_bounded_by_n_and_stops_after_k_failures():
    for n_sentences in (1, 2, 5):
        sk = synthesize(random.Random(0), 4, SynthesisOptions(max_sentences=n_sentences))
        assert 1 <= len(sk.sentences) <= n_sentences
    # with two actions every later sentence must repeat the first one's order; K=1 gives up fast
    lengths = [len(synthesize(random.Random(s), 2, SynthesisOptions(max_sentences=10, max_iterations=1)).sentences)
               for s in range(50)]
    assert min(lengths) < 10


def test_same_stream_gives_the_same_skeleton():
    a = synthesize(random.Random(5), 5, SynthesisOptions(), [1, 2, 3, 1, 2])
    b = synthesize(random.Random(5), 5, SynthesisOptions(), [1, 2, 3, 1, 2])
    assert a == b


def test_sat_checks_count_candidate_sentences():
    sk = synthesize(random.Random(9), 5, SynthesisOptions(max_sentences=3, max_iterations=20))
    assert len(sk.sentences) <= sk.sat_checks <= 3 * 20
