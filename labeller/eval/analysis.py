"""The text analysis behind the BM25 index, the query and the app's search box.

One function turns text into index terms, and the index, every query and the search box
all call it: a term only matches if both sides were cut the same way, so the analysis is
named and versioned (``labeller-auto-v3``) and its name is part of the index cache key and
of every eval fingerprint. Changing what it produces means a new name.

- ``-v2`` chains stem with the Snowball English stemmer compiled to C (PyStemmer, ~30x
  whoosh's pure-Python Porter2, which was most of an index build). The two disagree on a
  handful of words (``added`` -> ``add`` not ``ad``; ``internal``, ``interval``, ``paste``,
  ``organic``, ``universal`` are no longer cut short), so they are new names, not a silent
  change. ``-v1`` chains (whoosh's stemmer) stay selectable by their full names, so a
  baseline recorded with one can still be reproduced.
- ``-v3`` chains are v2 with English stop words kept (below); the aliases ``auto``/``plain``
  name v3.

Why each step exists:

- NFKC, then lower case: full-width ``ＶＰＮ`` and half-width katakana are the same words
  as their ordinary forms, and case never decides relevance.
- Latin-script words are stemmed (Snowball English), so "reimbursements" finds "reimbursed".
- ``-v3`` chains keep English stop words as terms; ``-v2`` and ``-v1`` drop them. Kept, a
  frequent word scores almost nothing (its idf is low) yet still tells apart two passages
  that match a question's rarer words equally, and a colloquial question ("that thing we
  learned from the dashboard") still ranks its passages instead of matching one or none:
  measured on five outside sets against tantivy and bm25s, dropping them cost up to 0.01 of
  recall@5 and keeping them cost nowhere more than noise (docs/performance.md).
- CJK runs (Han, Hiragana, Katakana, Hangul) have no spaces between words. Kept whole, a
  run is a sentence fragment that never recurs, so Japanese queries find nothing; cut into
  overlapping character bigrams (a lone character stays a unigram), they share the two-
  character words of their passages. ``labeller-plain-v1`` keeps runs whole, so the
  difference can be measured (and is, in the tests).
- Identifiers such as ``k=60``, ``text-embedding-3-small``, ``torch.compile`` or
  ``max_chars`` are kept as one exact term *and* split into their parts, so an exact
  mention ranks first while a query naming only a part still matches.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
import threading
from collections.abc import Callable
from functools import lru_cache

import Stemmer
from whoosh.analysis import Token, Tokenizer
from whoosh.lang.porter2 import stem as _snowball_english
from whoosh.lang.stopwords import stoplists

from labeller.errors import InvalidInput

STOP_WORDS = frozenset(stoplists["en"])

_HAN = "\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_KANA = "\u3041-\u309f\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f"  # U+30FB "・" is punctuation
_HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
_CJK = _HAN + _KANA + _HANGUL
_WORD = rf"[^\W_{_CJK}]+"  # letters and digits outside the CJK scripts
_PART = re.compile(_WORD)
# A CJK run, or a word optionally chained to more words by identifier punctuation. No groups:
# ``findall`` gives the matched strings themselves, in C, and a match is a CJK run exactly
# when it starts with a CJK character (a word never does).
_RAW = re.compile(rf"[{_CJK}]+|{_WORD}(?:[-=._:/+@]{_WORD})*")
_CJK_START = re.compile(rf"[{_CJK}]")


Stem = Callable[[str], str]
StemWords = Callable[[list[str]], list[str]]
_STEMMERS = threading.local()  # a PyStemmer object is not thread-safe: one per thread


def _pystemmer() -> Stemmer.Stemmer:
    """This thread's Snowball English stemmer in C (PyStemmer), its cache off: the memos
    below already keep each distinct part's stem."""
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = Stemmer.Stemmer("english")
        stemmer.maxCacheSize = 0
    return stemmer


def _snowball_c(word: str) -> str:
    return _pystemmer().stemWord(word)


def _snowball_c_words(words: list[str]) -> list[str]:
    return _pystemmer().stemWords(words)


def _snowball_english_words(words: list[str]) -> list[str]:
    return list(map(_snowball_english, words))


STEMMER_VERSION = Stemmer.version()  # what v2's stems depend on besides this code: in the index key


def _stemmed(part: str, stops: frozenset[str]) -> bool:
    """Whether a part is stemmed: ASCII letters, more than one, not one of ``stops``."""
    return part.isascii() and part.isalpha() and len(part) > 1 and part not in stops


@lru_cache(maxsize=1 << 17)
def _part_term(part: str, stem: Stem, stops: frozenset[str]) -> str | None:
    """One part of a word: its stem if it is ``_stemmed``, None for one of ``stops`` or a lone
    ASCII letter, else itself. Cached apart from whole words: an identifier's parts are
    mostly words seen on their own, and stemming is most of the analysis's cost."""
    if _stemmed(part, stops):
        return stem(part)
    if part in stops or (len(part) == 1 and part.isascii() and part.isalpha()):
        return None
    return part


def _word_terms_of(word: str, stem: Stem, stops: frozenset[str]) -> tuple[str, ...]:
    """A word (possibly an identifier): the identifier itself, unstemmed, then each of its
    parts' terms (``_part_term``)."""
    if word.isalnum():  # one part (``_WORD`` is ``\w`` without "_", and ``\w`` is isalnum() and "_")
        term = _part_term(word, stem, stops)
        return () if term is None else (term,)
    parts = _PART.findall(word)
    terms = [t for t in (_part_term(p, stem, stops) for p in parts) if t is not None]
    return (word, *terms) if len(parts) > 1 else tuple(terms)


# Cached for text analysed word by word (queries, the search box): a corpus has far fewer
# distinct words than words. The index writer keeps its own table of distinct tokens.
_word_terms = lru_cache(maxsize=1 << 17)(_word_terms_of)


def forget_words() -> None:
    """Empty the per-word memos (for measurements that must pay for every stem)."""
    _word_terms.cache_clear()
    _part_term.cache_clear()


def raw_tokens(text: str) -> list[str]:
    """``text`` normalised and cut into its words and CJK runs, before stemming, stop words
    and bigrams (``Analyzer.expand``)."""
    return _RAW.findall(unicodedata.normalize("NFKC", text).lower())


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]


@dataclass(frozen=True)
class Analyzer:
    """A named, versioned analysis chain. ``terms`` is the whole of it."""

    name: str
    cjk_bigrams: bool
    summary: str
    stem: Stem = _snowball_c
    stem_words: StemWords = _snowball_c_words  # ``stem`` of each, in one call
    stops: frozenset[str] = frozenset()  # words dropped, not indexed (v1 and v2: ``STOP_WORDS``)

    def terms(self, text: str) -> list[str]:
        """Index/query terms of ``text`` in text order (repeats kept: they are term frequency)."""
        out: list[str] = []
        expand = self.expand
        for token in raw_tokens(text):
            out += expand(token)
        return out

    def expand(self, token: str, memo: bool = True) -> tuple[str, ...]:
        """The terms of one of ``raw_tokens``' tokens: ``terms`` is the concatenation of these.
        The index writer calls it once per distinct token of the corpus (``memo=False``: it
        keeps every distinct token itself, so the per-word memo would only hold copies)."""
        if _CJK_START.match(token):
            return tuple(_bigrams(token)) if self.cjk_bigrams else (token,)
        if memo:
            return _word_terms(token, self.stem, self.stops)
        return _word_terms_of(token, self.stem, self.stops)

    def expand_all(self, tokens: list[str]) -> list[tuple[str, ...]]:
        """``expand(token, memo=False)`` of each token, for the index writer: the plain words
        among them (most of a corpus's distinct tokens) are stemmed in one call of the
        stemmer, not one Python call chain each."""
        plain = [t for t in tokens if _stemmed(t, self.stops)]
        stem_of = dict(zip(plain, self.stem_words(plain))).get
        expand = self.expand
        return [(stem,) if (stem := stem_of(t)) is not None else expand(t, memo=False) for t in tokens]

    def whoosh(self) -> "AnalyzerTokenizer":
        """This chain as a whoosh analyzer, for the index's text fields."""
        return AnalyzerTokenizer(self.name)


AUTO_V3 = Analyzer("labeller-auto-v3", True, "lower case, Snowball stems (PyStemmer), stop words kept, "
                   "CJK character bigrams, identifiers kept whole and in parts")
PLAIN_V3 = Analyzer("labeller-plain-v3", False, "as labeller-auto-v3 but each CJK run is one token "
                    "(for comparison: Japanese and Chinese queries mostly fail)")
AUTO_V2 = Analyzer("labeller-auto-v2", True, "as labeller-auto-v3 but English stop words dropped "
                   "(the default before v3; kept to reproduce its baselines)", stops=STOP_WORDS)
PLAIN_V2 = Analyzer("labeller-plain-v2", False, "as labeller-auto-v2 but each CJK run is one token",
                    stops=STOP_WORDS)
AUTO_V1 = Analyzer("labeller-auto-v1", True, "as labeller-auto-v2 but stemmed by whoosh's pure-Python Porter2 "
                   "(the default before v2; kept to reproduce its baselines)", _snowball_english,
                   _snowball_english_words, STOP_WORDS)
PLAIN_V1 = Analyzer("labeller-plain-v1", False, "as labeller-plain-v2 but stemmed by whoosh's Porter2",
                    _snowball_english, _snowball_english_words, STOP_WORDS)
ANALYZERS = {a.name: a for a in (AUTO_V3, PLAIN_V3, AUTO_V2, PLAIN_V2, AUTO_V1, PLAIN_V1)}
ALIASES = {"auto": AUTO_V3.name, "plain": PLAIN_V3.name}


def get_analyzer(name: str) -> Analyzer:
    """Resolve a configured name (``auto``, ``plain`` or a versioned name) to its analyzer."""
    found = ANALYZERS.get(ALIASES.get(name, name))
    if found is None:
        known = ", ".join([*ALIASES, *ANALYZERS])
        raise InvalidInput(f"unknown analyzer {name!r} ([eval] analyzer); known: {known}")
    return found


class AnalyzerTokenizer(Tokenizer):
    """whoosh glue: yields ``Analyzer.terms`` as tokens.

    It holds only the analyzer's name, so the schema whoosh pickles into the index stays
    small and always runs the current code of that (immutable, versioned) chain.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other) -> bool:
        return isinstance(other, AnalyzerTokenizer) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __call__(self, value, positions=False, chars=False, keeporiginal=False, removestops=True,
                 start_pos=0, start_char=0, tokenize=True, mode="", **kwargs):
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        for i, term in enumerate(ANALYZERS[self.name].terms(value)):
            token.text = term
            token.boost = 1.0
            token.stopped = False
            if keeporiginal:
                token.original = term
            if positions:
                token.pos = start_pos + i
            if chars:  # offsets are not tracked; nothing here highlights by them
                token.startchar = token.endchar = start_char
            yield token
