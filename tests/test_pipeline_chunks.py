"""Real pipelines' chunk files are placed on the source, 100% and correctly (SPEC §10.1).

tests/fixtures/pipelines/bundled/ holds what scripts/make_pipeline_chunks.py wrote with
LangChain, LlamaIndex, Haystack, chonkie and semchunk (dev extra), and the contextual-retrieval
recipe (a generated context prepended to each exact source chunk), over part of the bundled
corpus; over twelve
pages of the Textual documentation (../shared/corpora, never copied into the project) the
script is run live, once per session. Every chunk must be placed, and every placement is
checked here without the locator: the chunk's characters (whitespace aside, typographic
variants folded, an HTML entity read either way) must occur in order in the placed source
range, starting with its first and ending with its last (exact, rendered), or its words must
be matched in order, at least 95% of them, by a range that starts and ends on one of them
(aligned). A live run of the script must write the committed bytes, so the fixtures cannot
drift from the libraries.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from conftest import REPO, TEXTUAL, TEXTUAL_DOCS, write_project

from labeller.cli import main
from labeller.config import load_config
from labeller.core.chunkfile import place_chunk_file
from labeller.core.passages import NEEDS_REVIEW_TAG, TIERS
from labeller.core.project import Project
from labeller.eval.runner import run_eval

FIXTURES = REPO / "tests" / "fixtures" / "pipelines"
PIPELINES = ("langchain", "llamaindex-sentence", "llamaindex-markdown", "haystack", "chonkie-token",
             "chonkie-sentence", "chonkie-recursive", "semchunk")
# The bundled documents the fixtures were made from (scripts/make_pipeline_chunks.py --docs).
BUNDLED_DOCS = ("glossary.md", "concepts/block-expansion.md", "operations/troubleshooting.md",
                "evaluation/metrics.md", "guides/multilingual.md")
CASES = [(corpus, pipeline) for corpus in ("bundled", "textual-docs") for pipeline in PIPELINES]


def _script():
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import make_pipeline_chunks
    finally:
        sys.path.remove(str(REPO / "scripts"))
    return make_pipeline_chunks


@pytest.fixture(scope="session")
def chunk_files(tmp_path_factory) -> dict[str, Path]:
    """The folder of each corpus's chunk files: committed for the bundled corpus, written now
    by the real libraries for the Textual slice (the shared corpus is not ours to copy)."""
    if not TEXTUAL.is_dir():
        pytest.skip("../shared/corpora/textual-docs is not present (the project's CI has it beside the clone)")
    out = tmp_path_factory.mktemp("textual-chunks")
    assert _script().main([str(TEXTUAL), str(out), "--docs", *TEXTUAL_DOCS]) == 0
    return {"bundled": FIXTURES / "bundled", "textual-docs": out}

_FOLD = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})
_ENTITY = re.compile(r"&#?\w+;")


def project_for(tmp_path: Path, corpus: str) -> Project:
    """The bundled corpus and golden set, or the Textual slice with one whole-document
    question per document (copied: tests never touch the working tree's corpus)."""
    root = tmp_path / corpus
    if corpus == "bundled":
        root.mkdir()
        shutil.copytree(REPO / "corpus", root / "corpus")
        shutil.copytree(REPO / "golden", root / "golden")
    else:
        docs = {d: (TEXTUAL / d).read_text(encoding="utf-8") for d in TEXTUAL_DOCS}
        questions = [{"id": f"q{i}", "query": f"what does {d} say", "expected_answer": "", "locators": [{"doc": d}]}
                     for i, d in enumerate(docs) if d != "api/app.md"]  # api/app.md is front matter and a directive
        write_project(root, docs, questions)
    return Project(load_config(root))


def _chars(text: str) -> str:
    return "".join(text.translate(_FOLD).split())


def _either_way(source: str) -> str:
    """Each HTML entity of ``source`` followed by what it stands for, so a chunk may hold either."""
    return _ENTITY.sub(lambda m: m.group() + html.unescape(m.group()), source)


def _in_order(needle: str, haystack: str) -> bool:
    it = iter(haystack)
    return all(ch in it for ch in needle)


def _words(text: str) -> list[str]:
    """Words for the independent check: letters and digits (underscores and the code and
    emphasis marks a loader may have dropped split nothing), case-folded, entities read."""
    return re.findall(r"[^\W_]+", html.unescape(text).replace("`", "").replace("*", "").casefold())


def _matched_in_order(a: list[str], b: list[str]) -> int:
    """Longest common subsequence of two word lists (plain dynamic programming)."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def placement_problem(text: str, source: str, located: str) -> str | None:
    """Why ``source`` (the placed range) is not where ``text`` came from, or None."""
    if located in ("exact", "rendered"):
        a = _chars(text)
        if not _in_order(a, _chars(_either_way(source))):
            return "the chunk's characters are not all in the range, in order"
        if a[:1] not in (_chars(source)[:1], _chars(html.unescape(source))[:1]) or \
                a[-1:] not in (_chars(source)[-1:], _chars(html.unescape(source))[-1:]):
            return "the range does not start and end where the chunk does"
        return None
    cw, sw = _words(text), _words(source)
    if _matched_in_order(cw, sw) < 0.95 * len(cw):
        return "under 95% of the chunk's words are in the range, in order"
    if not sw or sw[0] not in cw or sw[-1] not in cw:
        return "the range does not start and end on one of the chunk's words"
    return None


@pytest.mark.parametrize("corpus, pipeline", CASES)
def test_every_chunk_of_a_real_pipeline_is_placed_where_it_came_from(tmp_path, chunk_files, corpus, pipeline):
    project = project_for(tmp_path, corpus)
    path = chunk_files[corpus] / f"{pipeline}.jsonl"
    chunks = {c["id"]: c for c in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
    placed = place_chunk_file(path.read_text(encoding="utf-8"), project.corpus, max_chunks=100_000, path=str(path))
    assert placed.unplaced == [] and placed.problems.count == 0
    assert len(placed.chunks) == len(chunks)
    problems = []
    for c in placed.chunks:
        source = project.corpus[c.place.doc].text[c.place.start:c.place.end]
        assert c.place.doc == chunks[c.id]["doc"]
        why = placement_problem(chunks[c.id]["text"], source, c.located)
        if why:
            problems.append(f"{c.id} ({c.located}): {why}")
    assert problems == []
    # the loaders that keep the Markdown are placed exactly; Haystack's rendering needs the other tiers
    counts = placed.counts()
    if pipeline == "haystack":
        assert counts["rendered"] > 0 and counts["exact"] < len(chunks)
    elif corpus == "bundled":
        assert counts["exact"] == len(chunks)


@pytest.mark.parametrize("corpus, pipeline", CASES)
def test_eval_scores_each_pipeline_chunking(tmp_path, chunk_files, corpus, pipeline):
    project = project_for(tmp_path, corpus)
    report = run_eval(project, chunks=chunk_files[corpus] / f"{pipeline}.jsonl").report
    located = report["chunking"]["located"]
    assert sum(located.values()) == report["chunking"]["n_chunks"] and set(located) == {"offsets", *TIERS}
    assert report["aggregate"]["chunk"]["recall@10"]["value"] is not None


def test_the_fixtures_are_what_the_libraries_write_today(tmp_path):
    assert _script().main([str(REPO / "corpus"), str(tmp_path / "bundled"), "--docs", *BUNDLED_DOCS,
                           "--ragas", "2"]) == 0
    for name in [*PIPELINES, "contextual", "ragas-stripped", "ragas-front-matter"]:
        assert (tmp_path / "bundled" / f"{name}.jsonl").read_bytes() == \
            (FIXTURES / "bundled" / f"{name}.jsonl").read_bytes(), name


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without the whitespace at its ends."""
    part = text[start:end]
    return start + len(part) - len(part.lstrip()), end - len(part) + len(part.rstrip())


@pytest.mark.parametrize("corpus", ["bundled", "textual-docs"])
def test_contextual_chunks_are_placed_on_their_source_part_never_on_other_text(tmp_path, chunk_files, corpus):
    """The contextual-retrieval recipe: a generated context before each exact source chunk.
    Each row carries the chunk's true offsets (chonkie's own), so the check needs no locator:
    a placed chunk's range is its source range (whitespace at the ends aside) and what was
    added is the context; a chunk is left unplaced only when its context is longer than it
    (SPEC §10.1), and none is placed on text disjoint from its source."""
    project = project_for(tmp_path, corpus)
    path = chunk_files[corpus] / "contextual.jsonl"
    rows = {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
    for r in rows.values():  # the offsets are into the file's text, which is its canonical text here
        assert project.corpus[r["doc"]].text.startswith(r["text"][len(r["text"]) - (r["source_end"] -
                                                                                   r["source_start"]):],
                                                        r["source_start"])
    placed = place_chunk_file(path.read_text(encoding="utf-8"), project.corpus, max_chunks=100_000, path=str(path))
    on_source, disjoint = 0, []
    for c in placed.chunks:
        r = rows[c.id]
        text = project.corpus[c.place.doc].text
        truth = _stripped(text, r["source_start"], r["source_end"])
        got = _stripped(text, c.place.start, c.place.end)
        on_source += got == truth and c.added_before > 0 and c.added_after == 0
        if c.place.doc != r["doc"] or got[1] <= truth[0] or got[0] >= truth[1]:
            disjoint.append(c.id)
    assert disjoint == []
    for u in placed.unplaced:  # only the rule's refusal: the added context is longer than the chunk
        r = rows[u["id"]]
        source = project.corpus[r["doc"]].text[r["source_start"]:r["source_end"]].strip()
        assert len(r["text"]) - len(source) > len(source), u
    placeable = len(rows) - len(placed.unplaced)
    assert len(placed.chunks) == placeable and on_source >= 0.99 * placeable


@pytest.mark.parametrize("name", ["ragas-stripped", "ragas-front-matter"])
def test_a_ragas_set_whose_contexts_a_loader_stripped_imports_in_full_marked_for_review(tmp_path, capsys, name):
    """Contexts a loader rendered to plain text; in ``ragas-front-matter`` each opens with its
    document's front matter as plain ``key: value`` lines, and is placed on the body after them."""
    project = project_for(tmp_path, "bundled")
    root = project.config.root
    rows_path = FIXTURES / "bundled" / f"{name}.jsonl"
    rows = [json.loads(line) for line in rows_path.read_text(encoding="utf-8").splitlines()]
    before = len(project.load_questions().questions)
    assert main(["import", "ragas", str(rows_path), "--root", str(root), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["added"]) == len(rows) and report["kept_out"] == []
    fresh = Project(load_config(root))
    imported = [q for q in fresh.load_questions().questions if q.id.startswith("ragas-")]
    assert len(imported) == len(rows) and len(fresh.load_questions().questions) == before + len(rows)
    # a context placed by the rendered or aligned tier is marked for review (SPEC §10.1); a body
    # the rendering left as written is placed exactly and is not
    marked = [q for q in imported if NEEDS_REVIEW_TAG in q.tags and any(t.startswith("placed:") for t in q.tags)]
    assert any(NEEDS_REVIEW_TAG in note and str(len(marked)) in note for note in report["notes"])
    if name == "ragas-stripped":
        assert len(marked) == len(rows)
    else:
        assert marked and any(note.startswith(f"{len(rows)} context(s) began with their document's front matter")
                              for note in report["notes"])
    # each record's span is the context's source: checked without the locator
    by_query = {r["user_input"]: r["reference_contexts"][0] for r in rows}
    if name == "ragas-front-matter":  # the body: what follows the front matter's lines
        by_query = {query: context.split("\n\n", 1)[1] for query, context in by_query.items()}
    assert main(["build", "--root", str(root), "--format", "json"]) == 0
    capsys.readouterr()
    from labeller.core.build import build
    built = {r.question.id: r for r in build(fresh, fresh.load_questions().questions).records}
    for q in imported:
        (span,) = built[q.id].spans
        source = fresh.corpus[span.doc_id].text[span.start:span.end]
        tier = next((t.split(":")[1] for t in q.tags if t.startswith("placed:")), "exact")
        assert placement_problem(by_query[q.query], source, tier) is None, q.id
    assert main(["review", "--summary", "--root", str(root), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["needs_review"] == len(marked)
