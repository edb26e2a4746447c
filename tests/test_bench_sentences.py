"""``benchmarks/synth.py``'s sentence-style questions (issue 37.6): a query is 4–6 content
words of one prose sentence, in the sentence's order, code identifiers as written; the
locator quotes that sentence and resolves; code, headings, lists and rule anchors give none;
a seed gives the same set every time."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import run  # noqa: E402
import synth  # noqa: E402

from labeller.config import load_config  # noqa: E402
from labeller.core.build import build  # noqa: E402
from labeller.core.project import Project  # noqa: E402
from labeller.eval.analysis import STOP_WORDS  # noqa: E402

CHAPTER = """# Storing Lists of Values with Vectors

The first collection type we'll look at is `Vec<T>`, also known as a vector.
Vectors allow you to store more than one value in a single data structure that
puts all the values next to each other in memory. The `std::io::stdin` function
returns a handle that the `read_line` method reads a whole line of input from.

```rust
let unreachable_marker_in_code = fenced_block_words_never_queried();
let another_marker_line = more_fenced_words_here_for_sure();
```

r[type.vector.rule]
A rule anchor line such as the one above belongs to no sentence of the paragraph below it.

- a list item long enough to hold six or more content words is skipped entirely
"""
APPENDIX = """# Appendix

Glossary entries describe borrowing, ownership, lifetimes, traits and generic parameters in depth.
Closures capture variables from their environment by reference, mutable reference or value.
"""


def _corpus(root: Path) -> Path:
    (root / "ch08").mkdir(parents=True)
    (root / "ch08" / "vectors.md").write_text(CHAPTER, encoding="utf-8")
    (root / "appendix.md").write_text(APPENDIX, encoding="utf-8")
    return root


def _folded(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_a_query_is_four_to_six_content_words_of_its_quoted_sentence_in_order(tmp_path):
    questions = synth.sentence_questions_for_corpus(_corpus(tmp_path / "c"), 50, 7)
    assert len(questions) == 6  # every prose sentence of six or more content words, each once
    corpus = _folded(CHAPTER + APPENDIX)
    for q in questions:
        quote = q["locators"][0]["quote"]
        assert _folded(quote) in corpus and quote == q["expected_answer"]
        words = q["query"].split()
        assert 4 <= len(words) <= 6
        assert not {w.lower() for w in words} & STOP_WORDS
        rest = iter(synth.content_words(quote))
        assert all(w in rest for w in words)  # content words of the sentence, in its order
    quoted = " ".join(q["expected_answer"] for q in questions)
    assert "marker" not in quoted and "Vec<T>" in quoted and "std::io::stdin" in quoted
    assert "list item" not in quoted and "Storing Lists" not in quoted and "r[" not in quoted


def test_code_identifiers_are_kept_as_written_and_markup_is_not_a_word():
    words = synth.content_words("The `std::io::stdin` function returns a `Vec<T>` that _main.rs_ "
                                "and the [“Data Types”][data-types]<!-- ignore --> section won’t read_line.")
    assert words == ["std::io::stdin", "function", "returns", "Vec<T>", "main.rs", "Data", "Types", "section",
                     "read_line"]


def test_the_set_is_the_same_for_a_seed_and_every_question_resolves(tmp_path):
    src = _corpus(tmp_path / "c")
    run.real_project(src, tmp_path / "a", 50, 3, synth.sentence_questions_for_corpus)
    run.real_project(src, tmp_path / "b", 50, 3, synth.sentence_questions_for_corpus)
    written = (tmp_path / "a" / "golden" / "questions.jsonl").read_bytes()
    assert written == (tmp_path / "b" / "golden" / "questions.jsonl").read_bytes()
    other = synth.sentence_questions_for_corpus(src, 50, 4)
    assert [json.loads(line)["query"] for line in written.splitlines()] != [q["query"] for q in other]
    project = Project(load_config(tmp_path / "a"))
    records = build(project, project.load_questions().questions).records
    assert len(records) == 6 and all(r.chunk_ids and not r.refusals for r in records)


def test_bm25_tuning_adds_one_sentence_set_per_corpus_and_seed_named_after_the_book(tmp_path):
    import bm25_tuning

    book = _corpus(tmp_path / "book" / "src")  # an mdBook's src/: the set is named after the book
    found = bm25_tuning.sets(tmp_path / "work", [], 0, [1, 2], sentences=[book], n_sentences=4)
    assert list(found) == ["bundled handbook", "mixed_ja", "book sentences@1", "book sentences@2"]
    chunks, queries, golden = bm25_tuning.load(found["book sentences@1"])
    assert len(queries) == len(golden) == 4
    recalls = bm25_tuning.labeller_recalls(chunks, queries, golden, bm25_tuning.SMALL)
    assert all(0.0 <= r <= 1.0 for r in recalls.values()) and max(recalls.values()) == 1.0


JAPANESE = """# 算出プロパティ

テンプレート内に式を書けるのはとても便利ですが、非常に簡単な操作しかできません。テンプレート内に多くのロジックを
詰め込むと、コードが肥大化し、メンテナンスが難しくなります。`computed` プロパティは依存関係に基づいて結果をキャッシュし、再計算を省きます。

```js
const 配列の長さ = 本の一覧.length // コードの中の文は問いにならない
```

- リスト項目の文章は算出プロパティの説明でも問いにならない
"""


def test_cjk_terms_are_han_and_katakana_runs_and_words_in_the_sentences_order():
    terms = synth.cjk_terms("テンプレート内に `computed` の式を書けるのはとても便利ですが、v-model と Vue の算出プロパティ。")
    assert terms == ["テンプレート内", "computed", "便利", "v-model", "Vue", "算出プロパティ"]


def test_a_cjk_question_is_three_to_five_terms_of_one_sentence_and_resolves(tmp_path):
    """Text without spaces: sentences end at 。, terms are script runs; code and lists give none."""
    root = tmp_path / "c"
    root.mkdir()
    (root / "computed.md").write_text(JAPANESE, encoding="utf-8")
    (root / "appendix.md").write_text(APPENDIX, encoding="utf-8")
    questions = synth.cjk_sentence_questions_for_corpus(root, 50, 7)
    corpus = _folded(JAPANESE + APPENDIX)
    cjk = [q for q in questions if "cjk" in q["tags"]]
    assert len(cjk) == 3 and len(questions) == 5  # three Japanese sentences, the appendix's two English ones
    for q in questions:
        quote = q["expected_answer"]
        assert _folded(quote) in corpus and q["locators"] == [{"quote": quote}]
        terms = q["query"].split()
        rest = iter(synth.cjk_terms(quote) if q in cjk else synth.content_words(quote))
        assert all(t in rest for t in terms) and (3 <= len(terms) <= 5 if q in cjk else 4 <= len(terms) <= 6)
    assert not any("配列" in q["expected_answer"] or "リスト項目" in q["expected_answer"] for q in questions)
    assert questions == synth.cjk_sentence_questions_for_corpus(root, 50, 7)
    run.real_project(root, tmp_path / "p", 50, 7, synth.cjk_sentence_questions_for_corpus)
    project = Project(load_config(tmp_path / "p"))
    records = build(project, project.load_questions().questions).records
    assert len(records) == 5 and all(r.chunk_ids and not r.refusals for r in records)
