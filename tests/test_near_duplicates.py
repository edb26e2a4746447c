"""The near-duplicate filter loses nothing: the blocked search finds exactly the pairs, with
exactly the scores, that comparing every pair with ``fuzz.ratio`` finds (issue 23 item 3)."""

from __future__ import annotations

import random

import pytest
from rapidfuzz import fuzz

from labeller import diagnostics
from labeller.interop import near_duplicates as nd
from labeller.interop.near_duplicates import THRESHOLD, describe, near_duplicates


def brute_force(new, existing=(), threshold=THRESHOLD) -> list[dict]:
    """Every pair compared: the rule of the module docstring, written the plain way."""
    new_ids = {i for i, _ in new}
    pool = list(new) + [(i, q) for i, q in existing if i not in new_ids]
    out = []
    for a in range(len(new)):
        for b in range(a + 1, len(pool)):
            score = fuzz.ratio(nd._normal(new[a][1]), nd._normal(pool[b][1]), score_cutoff=threshold)
            if score:
                out.append({"a": new[a][0], "b": pool[b][0], "score": round(float(score), 1)})
    return out


WORDS = "the of a to in is what how does capital city river name when who which Über café".split()


def mutated(rng: random.Random, text: str) -> str:
    """``text`` with a few characters inserted, deleted or replaced: near it, or not, by chance."""
    chars = list(text)
    for _ in range(rng.randint(0, 5)):
        at = rng.randrange(len(chars) + 1)
        roll = rng.random()
        if roll < 0.4:
            chars.insert(at, rng.choice("abxyz É "))
        elif chars:
            at = min(at, len(chars) - 1)
            if roll < 0.8:
                del chars[at]
            else:
                chars[at] = rng.choice("AbQ")
    return "".join(chars)


def random_set(seed: int, n: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    bases = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 10))) for _ in range(n // 8 + 1)]
    return [(f"r{k}", mutated(rng, rng.choice(bases))) for k in range(n)]


def templated_set(n: int) -> list[tuple[str, str]]:
    subjects = ["the river", "the capital", "the largest city", "the oldest bridge", "the main airport"]
    return [(f"t{k}", f"What is the name of {subjects[k % len(subjects)]} of country number {k}?") for k in range(n)]


@pytest.mark.parametrize("seed", range(12))
def test_blocked_search_equals_every_pair_compared_on_random_sets(seed):
    questions = random_set(seed, 160)
    new, existing = questions[:120], questions[100:]  # 20 ids in both: records being replaced
    found = near_duplicates(new, existing)
    assert found.complete and found.pairs == brute_force(new, existing)
    assert found.count == len(found.pairs)


@pytest.mark.parametrize("threshold", [THRESHOLD, 80.0, 97.0])
def test_blocked_search_equals_every_pair_compared_on_templated_and_short_sets(threshold):
    short = [(f"s{k}", text) for k, text in enumerate(["a", "ab", "ba", "abc", "abd", "x y", "xy", "", "abcd", "abce"])]
    questions = templated_set(150) + short
    found = near_duplicates(questions, threshold=threshold)
    assert found.complete and found.pairs == brute_force(questions, threshold=threshold)


def test_the_closest_pairs_and_the_count_summarise_every_pair():
    questions = templated_set(120)
    every = brute_force(questions)
    found = near_duplicates(questions)
    order = {(p["a"], p["b"]): k for k, p in enumerate(every)}
    closest = sorted(every, key=lambda p: (-p["score"], order[(p["a"], p["b"])]))[:nd.CLOSEST]
    assert found.closest == closest and found.count == len(every)
    text = describe(found)
    assert len(text) == len(closest) + 1 and f"{len(every):,} near-duplicate pairs in all" in text[-1]


def test_pairs_beyond_the_kept_bound_are_counted(monkeypatch):
    questions = templated_set(60)
    every = brute_force(questions)
    monkeypatch.setattr(diagnostics, "KEEP", 25)
    found = near_duplicates(questions)
    assert found.pairs == every[:25] and found.count == len(every)


def test_a_set_too_alike_to_compare_stops_at_the_work_bound_and_says_so():
    questions = [(f"d{k}", f"what is the answer to question {k:04d} please") for k in range(300)]
    found = near_duplicates(questions, max_work=20_000)
    assert not found.complete and 0 < found.count < len(brute_force(questions))
    assert "stopped" in describe(found)[-1]


def test_long_questions_weigh_on_the_work_bound_by_their_length():
    """Scoring two 6,400-character strings costs ~10,000 times a pair of question-length ones
    (bit-parallel Indel: ⌈n/64⌉ words a character): a bound counting every pair as one unit let
    200 such queries spend 10 s. Twelve long alike strings cost ~190,000 units to look up and
    ~660,000 more to score: they reach a bound of 500,000, which twelve short ones (the same
    66 pairs) stay far inside."""
    short = [(f"s{k}", f"{'word ' * 10}{k:02d}") for k in range(12)]
    long = [(f"l{k}", f"{'word ' * 1280}{k:02d}") for k in range(12)]
    assert near_duplicates(short, max_work=500_000).complete
    assert near_duplicates(short).count == near_duplicates(long).count == 66
    found = near_duplicates(long, max_work=500_000)
    assert not found.complete and found.count < 66
