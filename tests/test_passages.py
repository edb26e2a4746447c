"""The pipeline-text locator (SPEC §10.1): its three tiers, the file-order rule, labels staying
strict, ``chunks --locate``, the placement cache, and retriever callables returning a
loader's text."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from conftest import REPO, TEXTUAL, TEXTUAL_DOCS, q, write_project

from labeller.cli import main
from labeller.config import load_config
from labeller.core.build import build
from labeller.core.cache import DigestCache
from labeller.core.chunkfile import parse_chunk_file
from labeller.core.corpus import Corpus, load_corpus, make_document
from labeller.core.markdown import parse
from labeller.core.passages import Passage, PassageLocator, Placement
from labeller.core.passages.rendered import render
from labeller.core.project import Project
from labeller.eval.runner import run_eval

DOC = (
    "---\ntitle: Tiers\n---\n"
    "# Head *one*\n\n"
    "Some **bold** and `code` with [a link](http://x.example/p) and ![a picture](p.png) here.\n\n"
    "| name | value |\n|---|---|\n| alpha | beta |\n\n"
    "- item one\n- item two\n\n"
    "> quoted *words* stay\n\n"
    "```python\nx = *not emphasis*\n```\n\n"
    "It's a snake_case name, 2 * 3 and an unpaired _ here &amp; there.\n"
)


@pytest.fixture
def corpus() -> Corpus:
    return Corpus.from_documents([make_document("t.md", DOC)])


def place_one(corpus: Corpus, text: str, doc: str | None = "t.md", ordered: bool = False):
    return PassageLocator(corpus).place([Passage(doc, text)], ordered=ordered)[0]


def source_of(corpus: Corpus, got: Placement) -> str:
    return corpus[got.place.doc].text[got.place.start:got.place.end]


@pytest.mark.parametrize("loader_text, source", [
    ("Head one", "Head *one"),
    ("Some bold and code with a link and a picture here.",
     "Some **bold** and `code` with [a link](http://x.example/p) and ![a picture](p.png) here."),
    ("alpha beta", "alpha | beta"),
    ("item one item two", "item one\n- item two"),
    ("quoted words stay", "quoted *words* stay"),
    ("title: Tiers Head one", "title: Tiers\n---\n# Head *one"),
    ("It’s a snake_case name, 2 * 3 and an unpaired _ here & there.",
     "It's a snake_case name, 2 * 3 and an unpaired _ here &amp; there."),
])
def test_a_loaders_rendering_is_placed_on_its_source_by_the_rendered_tier(corpus, loader_text, source):
    got = place_one(corpus, loader_text)
    assert isinstance(got, Placement) and got.tier == "rendered"
    assert source_of(corpus, got) == source


def test_the_exact_tier_comes_first_and_code_is_kept_as_written(corpus):
    got = place_one(corpus, "x = *not emphasis*")
    assert isinstance(got, Placement) and got.tier == "exact" and source_of(corpus, got) == "x = *not emphasis*"


PARAGRAPH = ("Alignment places a passage by its **words** alone, when a loader rewrote everything else: "
             "bullets, pipes, spacing and line breaks may all differ from the source text here.")


def test_the_aligned_tier_takes_a_passage_from_its_share_of_words_on():
    corpus = Corpus.from_documents([make_document("w.md", f"# W\n\n{PARAGRAPH}\n")])
    words = PARAGRAPH.replace("*", "").replace(",", "").replace(":", "").replace(".", "").split()
    n = len(words)
    assert (n - 1) / n >= 0.95 > (n - 2) / n  # one changed word is within the default share, two are not
    one_off = " • ".join(words[:5] + ["CHANGED"] + words[6:])  # bullets no renderer makes
    got = place_one(corpus, one_off, doc="w.md")
    assert isinstance(got, Placement) and got.tier == "aligned" and got.share == round((n - 1) / n, 4)
    assert source_of(corpus, got) == PARAGRAPH[:-1]  # from the first matched word to the last
    two_off = " • ".join(words[:5] + ["CHANGED", "AGAIN"] + words[7:])
    refused = place_one(corpus, two_off, doc="w.md")
    assert isinstance(refused, str) and refused.startswith("text not found in w.md")
    looser = PassageLocator(corpus, min_share=(n - 2) / n).place([Passage("w.md", two_off)], ordered=False)[0]
    assert isinstance(looser, Placement) and looser.share == round((n - 2) / n, 4)


REPEATS = "# R\n\nIntro line.\n\nRepeat me here.\n\nMiddle line.\n\nRepeat me here.\n\nEnd **line**.\n"


def test_file_order_decides_which_occurrence_a_repeated_passage_is():
    corpus = Corpus.from_documents([make_document("r.md", REPEATS), make_document("s.md", "Repeat me here.\n")])
    second = REPEATS.index("Repeat me here.", REPEATS.index("Middle"))
    loc = PassageLocator(corpus)
    got = loc.place([Passage("r.md", "Middle line."), Passage("r.md", "Repeat me here.")], ordered=True)
    assert got[1] == Placement(got[1].place, "exact") and got[1].place.start == second
    first = loc.place([Passage("r.md", "Repeat me here.")], ordered=True)[0]
    assert isinstance(first, Placement) and first.place.start == REPEATS.index("Repeat me here.")
    # order cannot decide: not in order (imports), nothing at or after the previous chunk, or two documents
    assert "found 2 times in r.md" in loc.place([Passage("r.md", "Repeat me here.")], ordered=False)[0]
    late = loc.place([Passage("r.md", "End line."), Passage("r.md", "Repeat me here.")], ordered=True)
    assert late[0].tier == "rendered" and "none of them at or after the previous chunk of r.md" in late[1]
    assert "found 3 times in the corpus" in loc.place([Passage(None, "Repeat me here.")], ordered=True)[0]


def test_an_aligned_passage_found_twice_equally_well_is_decided_by_order_or_refused():
    para = "the quick brown fox jumps over the lazy dog near the river bank today"
    text = f"# A\n\n{para}\n\nbetween\n\n{para}\n"
    corpus = Corpus.from_documents([make_document("a.md", text)])
    loader = " | ".join(para.split())  # matched by words only
    loc = PassageLocator(corpus)
    assert "text is ambiguous (by its words): found 2 times in a.md" in \
        loc.place([Passage("a.md", loader)], ordered=False)[0]
    got = loc.place([Passage("a.md", "between"), Passage("a.md", loader)], ordered=True)[1]
    assert isinstance(got, Placement) and got.tier == "aligned" and got.place.start == text.rindex(para)


def test_a_labels_quote_stays_strict(tmp_path):
    root = write_project(tmp_path, {"t.md": DOC}, [q("r1", {"doc": "t.md", "quote": "Some bold and code"})])
    project = Project(load_config(root))
    result = build(project, project.load_questions().questions)
    assert [r.kind for r in result.refusals] == ["not_found"]


def lines(*objs) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


def test_chunks_locate_writes_every_place_with_its_tier_and_reports_every_unplaceable_chunk(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"t.md": DOC})
    good = tmp_path / "good.jsonl"
    good.write_text(lines({"id": "a", "doc": "t.md", "text": "Head one"},
                          {"id": "b", "doc": "t.md", "text": "x = *not emphasis*"},
                          {"id": "c", "doc": "t.md", "start": 0, "end": 3}), encoding="utf-8")
    out = tmp_path / "placed.jsonl"
    assert main(["chunks", "--root", str(root), "--locate", str(good), "--out", str(out), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["counts"] == {"offsets": 1, "exact": 1, "rendered": 1, "aligned": 0, "unplaceable": 0}
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["located"]) for r in rows] == [("a", "rendered"), ("b", "exact"), ("c", "offsets")]
    assert DOC[rows[0]["start"]:rows[0]["end"]] == "Head *one"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines({"id": "good", "doc": "t.md", "text": "Head one"},
                         *({"id": f"n{i}", "doc": "t.md", "text": f"nowhere {i} at all"} for i in range(120))),
                   encoding="utf-8")
    out.unlink()
    # one bad chunk never sinks the file: the rest are written, every unplaced one reported (JSON: all)
    assert main(["chunks", "--root", str(root), "--locate", str(bad), "--out", str(out), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert len(summary["unplaced"]) == 120 and summary["written"] == str(out) and summary["ok"]
    assert [u["id"] for u in summary["unplaced"]] == [f"n{i}" for i in range(120)]
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == ["good"]
    assert main(["chunks", "--root", str(root), "--locate", str(bad), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "cannot be placed" not in captured.out  # refusals go to stderr, the first 20 of them
    assert "120 chunk(s) cannot be placed" in captured.err and "n19:" in captured.err and "n20:" not in captured.err
    out.unlink()
    assert main(["chunks", "--root", str(root), "--locate", str(bad), "--out", str(out), "--strict"]) == 1
    assert "nothing was written (--strict)" in capsys.readouterr().err and not out.exists()
    malformed = tmp_path / "m.jsonl"
    malformed.write_text('{"id": "x", "doc": "t.md"}\n', encoding="utf-8")
    assert main(["chunks", "--root", str(root), "--locate", str(malformed), "--out", str(out)]) == 2


def test_eval_scores_the_placed_chunks_and_bounds_what_the_unplaced_could_change(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"t.md": DOC}, [q("r1", {"doc": "t.md", "quote": "item one"})])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines({"id": "whole", "doc": "t.md", "start": 0, "end": len(DOC)},
                         *({"id": f"n{i}", "doc": "t.md", "text": f"nowhere {i} at all"} for i in range(120))),
                   encoding="utf-8")
    run = tmp_path / "run.txt"  # n0 (unplaced) first, then the chunk that holds the answer
    run.write_text("r1 Q0 n0 1 2.0 t\nr1 Q0 whole 2 1.0 t\n", encoding="utf-8")
    assert main(["eval", "--root", str(root), "--no-history", "--chunks", str(bad), "--run", str(run), "--k", "1",
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    unplaced = report["chunking"]["unplaced"]
    assert unplaced["chunks"] == 120 and len(unplaced["listed"]) == 120 and unplaced["retrieved"] == 1
    assert report["aggregate"]["chunk"]["recall@1"]["value"] == 0  # an unplaced chunk hits nothing
    assert report["aggregate"]["chunk"]["recall@5"]["value"] == 1  # its rank is kept: the answer is at 2
    shipped = report["config"]["shipped_k"]
    assert unplaced["recall_bound"] == {"metric": f"chunk recall@{shipped}", "max_increase": 0.0}
    assert main(["eval", "--root", str(root), "--no-history", "--chunks", str(bad), "--run", str(run), "--k", "1"]) == 0
    err = capsys.readouterr().err
    assert "120 chunk(s) of the chunk file cannot be placed" in err and "n19:" in err and "n20:" not in err
    assert main(["eval", "--root", str(root), "--no-history", "--chunks", str(bad), "--strict",
                 "--format", "json"]) == 2
    assert len(json.loads(capsys.readouterr().out)["errors"]) == 120


def test_the_recall_bound_counts_a_query_whose_top_k_holds_an_unplaced_chunk(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"t.md": DOC}, [q("r1", {"doc": "t.md", "quote": "item one"})])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines({"id": "head", "doc": "t.md", "text": "Head one"},
                         {"id": "gone", "doc": "t.md", "text": "nowhere at all"}), encoding="utf-8")
    run = tmp_path / "run.txt"  # only the unplaced chunk and one that misses: recall 0, and could be 1
    run.write_text("r1 Q0 gone 1 2.0 t\nr1 Q0 head 2 1.0 t\n", encoding="utf-8")
    assert main(["eval", "--root", str(root), "--no-history", "--chunks", str(bad), "--run", str(run),
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    shipped = report["config"]["shipped_k"]
    assert report["aggregate"]["chunk"][f"recall@{shipped}"]["value"] == 0
    assert report["chunking"]["unplaced"]["recall_bound"]["max_increase"] == 1.0
    assert report["chunking"]["unplaced"][f"retrieved@{shipped}"] == 1


def test_placements_are_cached_by_the_chunk_files_digest(tmp_path, monkeypatch):
    corpus = Corpus.from_documents([make_document("t.md", DOC)])
    cache = DigestCache(None)
    text = lines({"id": "a", "doc": "t.md", "text": "Head one"}, {"id": "b", "doc": "t.md", "text": "alpha beta"})
    first = parse_chunk_file(text, corpus, max_chunks=10, cache=cache)

    def no_placing(*args, **kwargs):
        raise AssertionError("placed again")

    monkeypatch.setattr(PassageLocator, "place", no_placing)
    again = parse_chunk_file(text, corpus, max_chunks=10, cache=cache)
    assert again.ranges == first.ranges and again.located == first.located == {
        "offsets": 0, "exact": 0, "rendered": 2, "aligned": 0}
    with pytest.raises(AssertionError, match="placed again"):
        parse_chunk_file(text + lines({"id": "c", "doc": "t.md", "text": "item one"}), corpus, max_chunks=10,
                         cache=cache)


def test_a_callable_returning_its_loaders_text_is_scored_on_the_chunks_it_names(tmp_path):
    root = write_project(tmp_path / "p", {"t.md": DOC}, [q("r1", {"doc": "t.md", "quote": "item two"})])
    chunk_file = tmp_path / "c.jsonl"
    chunk_file.write_text(lines({"id": "head", "doc": "t.md", "text": "Head one"},
                                {"id": "list", "doc": "t.md", "text": "item one item two"}), encoding="utf-8")
    project = Project(load_config(root))
    # the chunk file's own texts, and a rendering of the list the file does not hold word for word
    for results in (["Head one", "item one item two"], ["Head one", "item one\n\nitem two"]):
        report = run_eval(project, chunks=chunk_file, retriever=lambda query, k, r=results: r).report
        assert report["queries"][0]["hit_ranks"] == [2], results


def _markdown_it_words(text: str) -> list[str]:
    """The words markdown-it's own parse renders (text, code, alt text, front matter; HTML
    without its tags), block by block: the reference the line scanner must agree with."""
    out: list[str] = []

    def walk(tokens) -> None:
        for t in tokens:
            if t.type in ("inline", "image"):
                walk(t.children or [])
            elif t.type in ("text", "code_inline"):
                out.append(t.content)
            elif t.type in ("fence", "code_block", "front_matter"):
                out.append(t.content + " ")
            elif t.type == "html_block":
                out.append(re.sub(r"<!--.*?-->|</?[A-Za-z][^<>]*>", " ", t.content, flags=re.S))
            elif t.type in ("softbreak", "hardbreak", "hr") or t.type.endswith("_close"):
                out.append(" ")

    walk(parse(text))
    return [w.casefold() for w in re.findall(r"\w+", "".join(out))]


@pytest.mark.parametrize("corpus_name", ["bundled", "textual-docs"])
def test_the_rendered_text_holds_the_words_markdown_it_renders(corpus_name, tmp_path):
    if corpus_name == "bundled":
        shutil.copytree(REPO / "corpus", tmp_path / "corpus")
    else:
        if not TEXTUAL.is_dir():
            pytest.skip("../shared/corpora/textual-docs is not present (the project's CI has it beside the clone)")
        for doc in TEXTUAL_DOCS:  # the slice the pipeline tests chunk, read from ../shared (never copied in)
            (tmp_path / "corpus" / doc).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(TEXTUAL / doc, tmp_path / "corpus" / doc)
    corpus = load_corpus(tmp_path / "corpus")
    differ = [d.doc_id for d in corpus
              if [w.casefold() for w in re.findall(r"\w+", render(d.text).text)] != _markdown_it_words(d.text)]
    assert differ == [] and len(corpus.docs) > 10


def test_chunkers_compare_takes_a_chunk_file_and_prints_its_placement(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"t.md": DOC}, [q("r1", {"doc": "t.md", "quote": "item two"})])
    chunk_file = tmp_path / "pipe.jsonl"
    chunk_file.write_text(lines({"id": "head", "doc": "t.md", "text": "Head one"},
                                {"id": "list", "doc": "t.md", "text": "item one item two"},
                                {"id": "code", "doc": "t.md", "text": "x = *not emphasis*"},
                                {"id": "gone", "doc": "t.md", "text": "nowhere in this page at all"}), encoding="utf-8")
    args = ["chunkers", "compare", "md-struct-v1", str(chunk_file), "--root", str(root), "--k", "1"]
    assert main([*args, "--format", "json"]) == 0
    entries = json.loads(capsys.readouterr().out)["chunkings"]
    assert "located" not in entries[0] and entries[1]["chunker_version"] == "chunk file"
    assert entries[1]["located"] == {"offsets": 0, "exact": 1, "rendered": 2, "aligned": 0}
    assert entries[1]["unplaced"]["chunks"] == 1 and "unplaced" not in entries[0]
    assert main(args) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"chunks placed, {chunk_file}: offsets 0, exact 1, rendered 2, aligned 0" in out
    assert f"1 chunk(s) of {chunk_file} cannot be placed and were left out" in out
    assert main(["eval", "--root", str(root), "--no-history", "--chunks", str(chunk_file)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "chunks placed: offsets 0, exact 1, rendered 2, aligned 0" in out
    said = "1 chunk(s) of the chunk file cannot be placed and were left out (they hit no span); 0 retrieved"
    assert f"unplaced: {said}" in out  # the report itself says it (SPEC §10), not only the warning
    html = tmp_path / "report.html"
    assert main(["eval", "--root", str(root), "--no-history", "--chunks", str(chunk_file), "--format", "markdown",
                 "--html", str(html)]) == 0
    assert said in " ".join(capsys.readouterr().out.replace("\\", "").split())  # Markdown escapes undone
    assert said in " ".join(html.read_text(encoding="utf-8").split())
