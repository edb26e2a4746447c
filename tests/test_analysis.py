"""The analysis chain (issue 9): CJK bigrams, mixed strings, identifiers, stop words, stemming."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeller.errors import InvalidInput
from labeller.eval.analysis import ANALYZERS, AUTO_V1, AUTO_V2, AUTO_V3, PLAIN_V1, PLAIN_V2, PLAIN_V3, get_analyzer
from labeller.eval.retrievers.bm25 import search


def terms(text: str) -> list[str]:
    return get_analyzer("auto").terms(text)


def test_cjk_run_becomes_overlapping_bigrams():
    assert terms("経費精算") == ["経費", "費精", "精算"]
    assert terms("カタカナ") == ["カタ", "タカ", "カナ"]
    assert terms("한국어") == ["한국", "국어"]


def test_lone_cjk_character_stays_a_unigram():
    assert terms("日") == ["日"]
    assert terms("東 京") == ["東", "京"]


def test_cjk_punctuation_separates_runs():
    assert terms("承認、支払い。") == ["承認", "支払", "払い"]


def test_mixed_latin_and_cjk():
    assert terms("VPNの接続がノートPCで切れる") == ["vpn", "の接", "接続", "続が", "がノ", "ノー", "ート", "pc",
                                                "で切", "切れ", "れる"]


def test_full_width_latin_is_folded_like_ascii():
    assert terms("ＶＰＮ") == terms("VPN") == ["vpn"]


@pytest.mark.parametrize("identifier, parts", [
    ("k=60", ["60"]),
    ("text-embedding-3-small", ["text", "embed", "3", "small"]),
    ("torch.compile", ["torch", "compil"]),
    ("max_chars", ["max", "char"]),
    ("10.20.0.53", ["10", "20", "0", "53"]),
])
def test_identifiers_are_kept_whole_and_in_parts(identifier, parts):
    assert terms(identifier) == [identifier.lower(), *parts]
    assert terms(f"We use {identifier}.")[-len(parts) - 1:] == [identifier.lower(), *parts]


def test_identifier_is_case_folded_and_found_inside_a_sentence():
    assert "torch.compile" in terms("Call Torch.Compile at startup")


def test_v2_drops_english_stop_words():
    assert AUTO_V2.terms("What is the value of it?") == ["valu"]
    assert AUTO_V2.terms("which and how") == []


def test_v3_keeps_stop_words_as_terms_so_idf_weighs_them():
    """v3 keeps them (docs/performance.md: dropping them cost recall on colloquial questions);
    a lone letter ("a", "I") is still no term."""
    assert terms("What is the value of it?") == ["what", "is", "the", "valu", "of", "it"]
    assert terms("which and how") == ["which", "and", "how"]
    assert terms("I need a VPN") == ["need", "vpn"]


def test_a_kept_stop_word_scores_little_yet_breaks_a_tie(make_project):
    """Kept, a frequent word counts for little (its idf is low): a passage sharing only the
    question's frequent words ranks below one with its rare word; and of two passages with
    the rare word, the one that also shares the frequent words ranks first (dropped, they tie)."""
    rooms = [f"room{i}" for i in range(30)]  # a corpus where "the" and "is" are frequent
    project = make_project({
        "b.md": "# B\n\nParking permits are renewed every year.\n",
        "c.md": "# C\n\nThe parking is behind the building.\n",
        **{f"{room}.md": f"# {room}\n\nThe {room} is on the first floor.\n" for room in rooms},
    })
    ranked = [h.chunk.doc_id for h in search(project, "where is the parking", limit=5)]
    assert ranked[:2] == ["c.md", "b.md"] and len(ranked) == 5


@pytest.mark.parametrize("a, b", [
    ("chunks", "chunk"), ("queries", "query"), ("retrievals", "retrieval"), ("reimbursements", "reimbursed"),
    ("indexing", "index"), ("running", "run"), ("rotating", "rotation"), ("renewing", "renewal"),
])
def test_plurals_and_ing_forms_share_a_stem(a, b):
    assert terms(a) == terms(b)


def test_repeats_are_kept_as_term_frequency():
    assert terms("run runs running") == ["run", "run", "run"]


@pytest.mark.parametrize("plain, auto", [(PLAIN_V3, AUTO_V3), (PLAIN_V2, AUTO_V2), (PLAIN_V1, AUTO_V1)])
def test_plain_analyzer_keeps_cjk_runs_whole_but_is_otherwise_the_same(plain, auto):
    assert plain.terms("経費精算のルール") == ["経費精算のルール"]
    text = "Reimbursements for torch.compile"
    assert plain.terms(text) == auto.terms(text)


@pytest.mark.parametrize("an", [AUTO_V3, AUTO_V2, AUTO_V1])
def test_the_whoosh_tokenizer_yields_exactly_the_terms(an):
    tok = an.whoosh()
    text = "経費の精算 uses k=60 and chunks, added to the internal paste-buffer"
    assert [t.text for t in tok(text, positions=True)] == an.terms(text)


def test_analyzers_are_named_versioned_and_resolved_from_config_names():
    assert get_analyzer("auto") is AUTO_V3 and AUTO_V3.name == "labeller-auto-v3"
    assert get_analyzer("plain") is PLAIN_V3 and PLAIN_V3.name == "labeller-plain-v3"
    assert get_analyzer("labeller-auto-v2") is AUTO_V2 and get_analyzer("labeller-plain-v2") is PLAIN_V2
    assert get_analyzer("labeller-auto-v1") is AUTO_V1 and get_analyzer("labeller-plain-v1") is PLAIN_V1
    assert all(name.rsplit("-", 1)[1].startswith("v") for name in ANALYZERS)
    with pytest.raises(InvalidInput, match="unknown analyzer 'icu'"):
        get_analyzer("icu")


def test_v2_stems_with_snowball_in_c_and_v1_keeps_whooshs_stems():
    """The stemmers disagree on a few words; v1 must keep whoosh's stems, or a baseline
    recorded with it could not be reproduced (and its index would not be the one keyed)."""
    from whoosh.lang.porter2 import stem

    text = "added internal intervals pasted"
    assert AUTO_V2.terms(text) == ["add", "internal", "interval", "paste"]
    assert AUTO_V1.terms(text) == [stem(w) for w in text.split()] == ["ad", "intern", "interv", "past"]


def test_search_box_uses_the_same_analysis(make_project):
    project = make_project({
        "ja.md": "# 経費\n\n立て替えた経費は、毎月25日に給与と一緒に振り込まれます。\n",
        "en.md": "# Expenses\n\nReimbursements are paid with the salary on the 25th.\n",
    })
    ja = search(project, "経費はいつ振り込まれますか", limit=1)
    assert [h.chunk.doc_id for h in ja] == ["ja.md"]
    en = search(project, "when is a reimbursed expense paid", limit=1)
    assert [h.chunk.doc_id for h in en] == ["en.md"]
    assert ja[0].rank == 1 and ja[0].score > 0


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("abcXYZ019 _-=.:/+@,'\n½²Ⅳａｂ１経費精算テスト・한국ーéß")), max_size=60))
def test_terms_are_the_raw_tokens_expanded_as_the_grouped_pattern_cut_them(text):
    """The analysis cuts text with one ungrouped regex (``raw_tokens``, so the index writer
    can key distinct tokens) and expands each token (``Analyzer.expand``, with a one-part fast
    path): the terms must be those of the grouped pattern it replaced, which told a CJK run
    from a word by its group, and the memo-free expansion the memoised one."""
    import re
    import unicodedata

    from labeller.eval import analysis

    grouped = re.compile(rf"(?P<cjk>[{analysis._CJK}]+)|(?P<word>{analysis._WORD}(?:[-=._:/+@]{analysis._WORD})*)")
    for an in ANALYZERS.values():
        expected: list[str] = []
        for cjk, word in grouped.findall(unicodedata.normalize("NFKC", text).lower()):
            if word:
                parts = analysis._PART.findall(word)
                kept = [p for p in parts if not (p in an.stops or (len(p) == 1 and p.isascii() and p.isalpha()))]
                expected += ([word] if len(parts) > 1 else []) + [
                    an.stem(p) if p.isascii() and p.isalpha() else p for p in kept]
            else:
                expected += analysis._bigrams(cjk) if an.cjk_bigrams else [cjk]
        assert an.terms(text) == expected
        tokens = analysis.raw_tokens(text)
        assert [t for tok in tokens for t in an.expand(tok, memo=False)] == expected
        assert [t for terms in an.expand_all(tokens) for t in terms] == expected  # the index writer's bulk path
