"""The speed-ups never change a byte: cached, parallel and uncached builds agree.

Every optimisation behind the benchmark figures (on-disk chunks and parsed blocks, the
whole-build cache, parse without the inline pass, parallel per-document work, the
joined-text quote lookup, the C-speed folding and line index) is checked here against
the plain computation, and the caches against edits that must invalidate them. No test
here measures time.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from helpers_oracle import oracle_occurrences, oracle_quote
from hypothesis import example, given, settings
from hypothesis import strategies as st

from labeller.config import load_config
from labeller.core import coldbuild, parallel
from labeller.core.anchors import QuoteIndex, fold_quote, fold_text
from labeller.core.build import build
from labeller.core.cache import DigestCache
from labeller.core.chunkers import chunk_corpus, get_chunker
from labeller.core.corpus import Corpus, Document, make_document
from labeller.core.expansion import parse_blocks
from labeller.core.markdown import parse, parse_structure
from labeller.core.project import Project
from labeller.core.windows import WINDOWS_VERSION, restart_lines

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import synth  # noqa: E402


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Path:
    """A small corpus with every structure the benchmark corpus has (lists, tables,
    fences with # lines, block quotes, CJK, CRLF/BOM/NFD files, section labels)."""
    root = tmp_path_factory.mktemp("synthetic")
    synth.write_project(synth.generate(250_000, 150, seed=5), root)
    return root


class _NotingPid:
    """``fn`` as the mapper received it, plus a file named after the process that ran it;
    module-level and picklable, so it travels to the workers like ``fn`` itself."""

    def __init__(self, fn, folder: Path) -> None:
        self.fn, self.folder = fn, folder

    def __call__(self, doc):
        (self.folder / str(os.getpid())).touch()
        return self.fn(doc)


def spread_over_workers(monkeypatch, folder: Path):
    """From now on spread every mapped document over two workers; the function returned
    gives the other processes that did work since its last call (and forgets them). A pool
    that silently fell back to this process leaves it empty."""
    folder.mkdir()
    real = parallel.iter_documents
    monkeypatch.setattr(parallel, "iter_documents", lambda fn, docs: real(_NotingPid(fn, folder), docs))
    monkeypatch.setattr(parallel, "MIN_PARALLEL_CHARS", 0)
    monkeypatch.setenv("LABELLER_WORKERS", "2")

    def taken() -> set[int]:
        pids = {int(p.name) for p in folder.iterdir()}
        for p in folder.iterdir():
            p.unlink()
        return pids - {os.getpid()}

    return taken


def outputs(project: Project) -> tuple[bytes, bytes]:
    result = build(project, project.load_questions().questions)
    assert result.ok, [r.as_json() for r in result.refusals]
    return result.artifact_bytes(), result.manifest_bytes()


def cached(root: Path, cache_dir: Path) -> Project:
    return Project(load_config(root), DigestCache(cache_dir))


def test_cold_warm_and_uncached_builds_are_byte_identical(synthetic, tmp_path):
    plain = outputs(Project(load_config(synthetic)))
    assert outputs(cached(synthetic, tmp_path)) == plain  # cold: fills the cache
    assert any((tmp_path / "derived").rglob("*"))
    assert outputs(cached(synthetic, tmp_path)) == plain  # warm: whole build from the cache


def test_warm_per_document_caches_alone_give_the_same_bytes(synthetic, tmp_path):
    """Chunks and parsed blocks from disk, with the build result itself not cached."""
    plain = outputs(Project(load_config(synthetic)))
    outputs(cached(synthetic, tmp_path))
    warm = cached(synthetic, tmp_path)
    questions = warm.load_questions().questions
    # a new record forces a rebuild over the cached chunks and blocks
    extra = questions[0].model_copy(update={"id": "zz-extra", "query": "an extra question for the rebuild?"})
    result = build(warm, [*questions, extra])
    assert result.ok
    assert result.artifact_bytes().startswith(plain[0])
    assert build(Project(load_config(synthetic)), [*questions, extra]).artifact_bytes() == result.artifact_bytes()


def test_parallel_workers_give_the_same_bytes(synthetic, tmp_path, monkeypatch):
    plain = outputs(Project(load_config(synthetic)))
    pids = spread_over_workers(monkeypatch, tmp_path / "pids")
    assert outputs(Project(load_config(synthetic))) == plain
    assert pids(), "no worker process chunked a document"
    assert outputs(cached(synthetic, tmp_path / "cache")) == plain
    assert pids(), "no worker process prepared the cold build"


def test_bundled_mixed_fixture_is_unchanged_by_the_cache(tmp_path):
    src = REPO / "tests" / "fixtures" / "mixed_ja"
    root = tmp_path / "mixed"
    (root / "golden").mkdir(parents=True)
    (root / "golden" / "questions.jsonl").write_bytes((src / "questions.jsonl").read_bytes())
    import shutil

    shutil.copytree(src / "corpus", root / "corpus")
    plain = outputs(Project(load_config(root)))
    assert outputs(cached(root, tmp_path / "c")) == plain
    assert outputs(cached(root, tmp_path / "c")) == plain


def _labelled_doc(root: Path) -> Path:
    qs = Project(load_config(root)).load_questions().questions
    doc = next(loc.doc for q in qs for loc in q.locators if loc.doc and loc.quote)
    return root / "corpus" / doc


def test_an_edited_document_never_gets_stale_cache_entries(synthetic, tmp_path_factory):
    root = tmp_path_factory.mktemp("edited")
    import shutil

    shutil.copytree(synthetic, root, dirs_exist_ok=True)
    cache_dir = root / "cache"
    before = outputs(cached(root, cache_dir))
    path = _labelled_doc(root)
    text = path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n")
    first_heading = re.search(r"(?m)^# ", text).start()
    path.write_text(text[:first_heading] + "An inserted opening paragraph moves every span.\n\n"
                    + text[first_heading:], encoding="utf-8")
    after_cached = outputs(cached(root, cache_dir))
    after_plain = outputs(Project(load_config(root)))
    assert after_cached == after_plain
    assert after_cached != before  # the edit moved labelled spans: a stale entry would have shown


def test_changed_questions_or_hit_rule_never_reuse_a_cached_build(synthetic, tmp_path):
    outputs(cached(synthetic, tmp_path))
    project = cached(synthetic, tmp_path)
    questions = project.load_questions().questions
    dropped = build(project, questions[1:])
    assert dropped.manifest["n_records"] == len(questions) - 1
    toml = synthetic / "labeller.toml"
    toml.write_text('[build]\nhit_rule = "span_containment"\n', encoding="utf-8")
    try:
        other = build(cached(synthetic, tmp_path), questions)
        assert other.manifest["build_hit_rule"] == "span_containment"
        assert other.artifact_bytes() == build(Project(load_config(synthetic)), questions).artifact_bytes()
    finally:
        toml.unlink()


def test_corrupt_cache_entries_are_recomputed(synthetic, tmp_path):
    plain = outputs(Project(load_config(synthetic)))
    outputs(cached(synthetic, tmp_path))
    entries = [p for p in (tmp_path / "derived").rglob("*") if p.is_file()]
    for p in entries:
        data = bytearray(p.read_bytes())
        data[-1] ^= 0xFF
        p.write_bytes(bytes(data))
    assert outputs(cached(synthetic, tmp_path)) == plain


def test_structure_parse_equals_full_parse_on_block_tokens(synthetic):
    for path in sorted((synthetic / "corpus").rglob("*.md"))[:25]:
        text = make_document("d", path.read_bytes().decode("utf-8-sig")).text

        def blocks(tokens):
            return [(t.type, t.map, t.tag, t.level, t.nesting, t.info, t.markup,
                     t.content if t.type == "inline" else None) for t in tokens]

        assert blocks(parse_structure(text)) == blocks(outside_tables(parse(text)))


def outside_tables(tokens):
    """The full parse as the structure parse keeps it: a table's own open and close tokens,
    nothing between them (its rows and cells, which blocks-v1 never reads)."""
    kept, depth = [], 0
    for t in tokens:
        depth -= t.type == "table_close"
        if depth == 0:
            kept.append(t)
        depth += t.type == "table_open"
    return kept


def test_cached_objects_round_trip_through_their_json_codecs(synthetic):
    from labeller.core.chunkers import ROWS_CODEC
    from labeller.core.expansion import BLOCKS_CODEC
    from labeller.core.windows import WINDOWS_CODEC, DocWindows

    project = Project(load_config(synthetic))
    for doc in project.corpus:
        rows = project.chunker.rows(doc)
        assert ROWS_CODEC.decode(json.loads(json.dumps(ROWS_CODEC.encode(rows)))) == rows
        blocks = parse_blocks(doc)
        assert BLOCKS_CODEC.decode(json.loads(json.dumps(BLOCKS_CODEC.encode(blocks)))) == blocks
        windows = DocWindows.of(doc)
        windows.blocks_at(doc, 0, 0)
        windows.blocks_at(doc, len(doc.line_starts) - 1, len(doc.line_starts) - 1)
        assert WINDOWS_CODEC.decode(json.loads(json.dumps(WINDOWS_CODEC.encode(windows)))) == windows


WHITESPACE = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2028\u2029\u3000"
texts = st.text(alphabet=st.sampled_from(list(WHITESPACE) + list("ab日é")), max_size=40)


@given(texts)
@settings(max_examples=400)
def test_fold_text_equals_the_regex_fold(text):
    assert fold_text(text) == re.sub(r"\s+", " ", text)


@given(texts, st.integers(1, 8))
@settings(max_examples=400)
def test_fold_text_in_pieces_equals_the_regex_fold(text, piece):
    """A long text is folded piece by piece (memory); pieces of a few characters make every
    text here long, so each cut — before a whitespace run, never inside one — is tried."""
    from unittest import mock

    from labeller.core import anchors

    with mock.patch.object(anchors, "FOLD_PIECE", piece):
        assert fold_text(text) == re.sub(r"\s+", " ", text)


@given(texts)
@settings(max_examples=400)
def test_line_starts_equal_a_find_loop(text):
    starts, pos = [0], text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    if starts[-1] == len(text):
        starts.pop()
    assert Document("d", text, "").line_starts == starts


@given(st.lists(texts, min_size=1, max_size=4), texts)
@settings(max_examples=300)
@example(["aaa", "b aaaa"], "aa")  # overlapping occurrences, in two documents
@example(["a \n a\u3000\u3000a", "a a"], "a  a")  # ... across whitespace runs
def test_single_quote_lookup_on_joined_text_finds_every_occurrence_the_spec_counts(bodies, raw_quote):
    corpus = Corpus.from_documents([make_document(f"d{i}.md", b) for i, b in enumerate(bodies)])
    quote = fold_quote(raw_quote) if raw_quote.strip() else "a"
    found = QuoteIndex(corpus).find_all([quote])[quote]
    expected = [(d.doc_id, *span) for d in corpus for span in oracle_occurrences(d.text, oracle_quote(quote))]
    assert [(o.doc_id, o.start, o.end) for o in found] == expected  # SPEC §2, counted as the spec says


def test_chunking_in_parallel_keeps_corpus_order(synthetic, tmp_path, monkeypatch):
    corpus = Project(load_config(synthetic)).corpus
    serial = chunk_corpus(corpus, get_chunker("md-struct-v1", max_chars=1800))
    pids = spread_over_workers(monkeypatch, tmp_path / "pids")
    spread = chunk_corpus(corpus, get_chunker("md-struct-v1", max_chars=1800))
    assert pids(), "no worker process chunked a document"
    assert list(spread) == list(serial) and spread == serial


def test_cached_search_reuses_only_unchanged_documents(synthetic):
    corpus = Project(load_config(synthetic)).corpus
    questions = Project(load_config(synthetic)).load_questions().questions
    quotes = sorted({fold_quote(loc.quote) for q in questions for loc in q.locators if loc.quote})
    cache = DigestCache(None)  # in memory: the entry is reused across the two corpora below
    assert QuoteIndex(corpus).find_all_cached(quotes, cache) == QuoteIndex(corpus).find_all(quotes)
    # the same quotes over a corpus where one document changed: that document's matches
    # must be searched again (here it loses its quotes), every other one's reused
    docs = list(corpus)
    victim = next(d for d in docs if any(o.doc_id == d.doc_id for occ in QuoteIndex(corpus).find_all(quotes).values()
                                         for o in occ))
    edited = Corpus.from_documents([make_document(d.doc_id, "# emptied\n") if d is victim else d for d in docs])
    index = QuoteIndex(edited)
    assert index.find_all_cached(quotes, cache) == QuoteIndex(edited).find_all(quotes)
    assert set(index._by_id) == {victim.doc_id}, "only the changed document was folded"


def test_rebuilds_with_new_questions_do_not_grow_the_cache(synthetic, tmp_path):
    """The app rebuilds on every save: only the last build and search are kept."""
    project = cached(synthetic, tmp_path)
    questions = project.load_questions().questions

    def files() -> int:
        return sum(1 for p in (tmp_path / "derived").rglob("*") if p.is_file())

    build(project, questions)
    after_first = files()
    for n in (1, 2, 3):
        build(cached(synthetic, tmp_path), questions[n:])
    assert files() == after_first


def test_cold_preparation_fills_the_caches_with_what_the_lazy_path_computes(synthetic, tmp_path, monkeypatch):
    from labeller.core.anchors import LAST_SEARCH, SEARCH_CODEC
    from labeller.core.chunkers import ROWS_CODEC, chunk_key, unpack_chunks

    pids = spread_over_workers(monkeypatch, tmp_path / "pids")
    project = cached(synthetic, tmp_path)
    questions = project.load_questions().questions
    coldbuild.prepare_cold_build(project, questions)
    assert pids(), "no worker process prepared the cold build"
    fresh = DigestCache(tmp_path)  # read back from disk, not from the preparing process's memory
    for doc in project.corpus:
        assert unpack_chunks(doc, fresh.get(chunk_key(project.chunker, doc), ROWS_CODEC)) == project.chunker.chunk(doc)
    quotes = [fold_quote(loc.quote) for q in questions for loc in q.locators if loc.quote]
    digest, per_doc = fresh.get(LAST_SEARCH, SEARCH_CODEC)
    lazy = DigestCache(None)
    QuoteIndex(project.corpus).find_all_cached(quotes, lazy)
    assert (digest, per_doc) == lazy.get(LAST_SEARCH, SEARCH_CODEC)
    with_hits = [d for d in project.corpus if per_doc[d.doc_id][1]]
    assert with_hits
    stored = Project(load_config(synthetic), fresh).block_cache
    lazy = Project(load_config(synthetic)).resolver  # no cache: every window parsed on demand
    sections = [loc for q in questions for loc in q.locators if loc.heading]
    assert sections
    for loc in sections:
        lazy.resolve(loc)
    for doc in project.corpus:
        for _, kept in per_doc[doc.doc_id][1].values():
            for start, end in kept:
                lazy.blocks_at(doc.doc_id, doc.line_of(start), doc.line_of(end - 1))
        windows = stored.get((WINDOWS_VERSION, doc.doc_id, doc.sha256))
        assert windows == lazy._blocks.get((WINDOWS_VERSION, doc.doc_id, doc.sha256))
        if windows is not None:
            assert windows.restarts == restart_lines(doc)
            assert all(blocks == parse_blocks(doc, *span) for span, blocks in windows.parsed.items())


def test_libyaml_and_pure_python_front_matter_give_the_same_titles(synthetic, monkeypatch):
    import yaml

    from labeller.core import markdown
    from labeller.core.corpus import load_corpus

    texts = [d.text for folder in (REPO / "corpus", synthetic / "corpus") for d in load_corpus(folder)]
    texts += [f"---\n{fm}\n---\nbody\n" for fm in ("title: 'quoted: colon'", "title: 2026-01-01", "title: [a, b]",
                                                   "title: |\n  block\n  text", "title: ~", "title: 'é 中文'",
                                                   "{title: flow}", "title: &a anchor\nother: *a", "title: :bad: [",
                                                   "title: null", "date: 2020-13-45\ntitle: t", "[a]: b")]
    fast = [markdown.front_matter_title(t) for t in texts]
    monkeypatch.setattr(markdown, "YAML_LOADER", markdown._title_loader(yaml.BaseLoader))
    assert [markdown.front_matter_title(t) for t in texts] == fast
    assert sum(t is not None for t in fast) > 20


def test_a_build_stores_each_documents_windows_once(synthetic, tmp_path, monkeypatch):
    from collections import Counter

    written = Counter()
    put = DigestCache.put

    def counting_put(self, key, value, codec):
        written[key] += 1
        put(self, key, value, codec)

    monkeypatch.setattr(DigestCache, "put", counting_put)
    project = cached(synthetic, tmp_path)
    plain = outputs(project)
    windows = {k: n for k, n in written.items() if WINDOWS_VERSION in k}
    assert windows and set(windows.values()) == {1}
    assert outputs(cached(synthetic, tmp_path)) == plain == outputs(Project(load_config(synthetic)))


@pytest.mark.parametrize("rule", ["any_overlap", "span_containment", "coverage>=0", "coverage>=0.3",
                                  "union_coverage>=0.5"])
def test_answer_chunks_found_by_bisection_equal_a_scan_of_every_chunk(synthetic, rule):
    from labeller.core.build import resolve_record
    from labeller.core.hitrules import parse_hit_rule

    project = Project(load_config(synthetic))
    project.hit_rule = parse_hit_rule(rule)
    resolver = project.resolver
    compared = 0
    for q in project.load_questions().questions[:120]:
        rec = resolve_record(project, q)
        expected = set()
        for span in rec.spans:
            iv = (span.start, span.end)
            expected |= {c.chunk_id for c in resolver.chunks_of(span.doc_id)
                         if project.hit_rule.chunk_hits((c.start, c.end), iv)}
            compared += 1
        assert set(rec.chunk_ids) == expected, q.id
    assert compared > 50
