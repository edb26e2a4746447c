"""The context help's fast paths give what their definitions give (``core/context.py``).

Word boundaries are found by jumping from space to space where the text around is ASCII (no
character written without spaces), and each occurrence's agreement with every other is read
off one sort; both replaced a character-at-a-time walk and a comparison per pair, and must
answer exactly as those did: checked here against the definitions, on random text mixing
spaces, runs of them, CJK and accented letters.
"""

from __future__ import annotations

import random

from labeller.core.context import _Agreement, _prefix_lengths, _suffix_lengths, _word_end, _word_start

ALPHABETS = (["a", "b", " "], ["a", "b", " ", "  ", "東", "é"])


def defined_prefixes(text: str, p: int, needed: int, bound: int) -> list[int]:
    out = [0]
    for i in range(p - 1, max(0, p - bound) - 1, -1):
        if out[-1] > needed:
            break
        if _word_start(text, i):
            out.append(p - i)
    return out


def defined_suffixes(text: str, e: int, needed: int, bound: int) -> list[int]:
    out = [0]
    for j in range(e + 1, min(len(text), e + bound) + 1):
        if out[-1] > needed:
            break
        if _word_end(text, j):
            out.append(j - e)
    return out


def common_start(a: str, b: str) -> int:
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return k


def test_word_lengths_are_those_of_the_definition():
    rng = random.Random(11)
    for _ in range(20_000):
        alphabet = rng.choice(ALPHABETS)
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
        p, needed, bound = rng.randint(0, len(text)), rng.randint(0, 35), rng.randint(1, 35)
        assert _prefix_lengths(text, p, needed, bound) == defined_prefixes(text, p, needed, bound), (text, p)
        assert _suffix_lengths(text, p, needed, bound) == defined_suffixes(text, p, needed, bound), (text, p)


def test_each_agreement_is_the_common_start_of_the_pair():
    rng = random.Random(12)
    for _ in range(500):
        texts = ["".join(rng.choice("ab") for _ in range(rng.randint(0, 12))) for _ in range(rng.randint(1, 12))]
        agreement = _Agreement(texts)
        for target, text in enumerate(texts):
            got = agreement.with_others(target)
            assert [g for i, g in enumerate(got) if i != target] == [
                common_start(text, other) for i, other in enumerate(texts) if i != target], (texts, target)
