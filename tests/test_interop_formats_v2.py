"""Labels from other tools (issue 16): whole documents, character offsets, annotation tasks,
synthetic test sets, and the exports those tools read back.

Every fixture is written here from the tool's documented format: Label Studio's JSON export
(JavaScript UTF-16 offsets), doccano's JSONL (``label: [[start, end, name]]`` and the newer
``entities``), Prodigy's JSONL (``spans``, ``answer``), a ragas test set (``user_input``,
``reference_contexts``, ``reference``), DeepEval goldens (``input``, ``context``,
``expected_output``, ``source_file``) and LlamaIndex's ``EmbeddingQAFinetuneDataset``. The
corpus has what breaks naive importers: astral characters before a span, CRLF and NFD
files, a passage repeated in one document, front matter.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import write_project
from helpers_interop import artifact, cli, cli_json, questions_of
from labeller.config import load_config
from labeller.core.canon import canonical_fragment, canonicalize
from labeller.core.expansion import document_span
from labeller.core.project import Project
from labeller.core.resolve import Refusal
from labeller.errors import InvalidInput
from labeller.interop import all_formats
from labeller.interop.format import Direction
from labeller.interop.near_duplicates import THRESHOLD, near_duplicates
from labeller.interop.plan import plan_import
from labeller.interop.spans import (SpanProblem, canonical_range, from_codepoints, span_locator, to_codepoints,
                                    trimmed)

CAFE = "# Café\n\nThe café serves crème brûlée on Sundays.\n"
DOCS = {
    "emoji.md": "# Party 🎉\n\nThe cake 🎂 costs ten coins.\n\nAsk the baker 👩\u200d🍳 for more coins.\n",
    "crlf.md": "# Windows\r\n\r\nLines end in CRLF here.\r\n\r\nSecond paragraph of the Windows file.\r\n",
    "nfd.md": unicodedata.normalize("NFD", CAFE),
    "repeat.md": "# Steps\n\nFirst: restart the service.\n\nThen check the logs.\n\nFinally: restart the service.\n",
    "fm.md": "---\ntitle: Front\n---\nText before any heading.\n\n# Later\n\nMore text under a heading.\n",
    "two-tops.md": "# First\n\nFirst top section text.\n\n# Second\n\nSecond top section text.\n",
}
CANON = {name: canonicalize(text) for name, text in DOCS.items()}


def project_root(tmp_path: Path, name: str = "p", questions=()) -> Path:
    return write_project(tmp_path / name, DOCS, list(questions))


def write(path: Path, content) -> Path:
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, indent=1)
    path.write_text(text, encoding="utf-8", newline="")
    return path


def jsonl(path: Path, rows: list[dict]) -> Path:
    return write(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def utf16(text: str, i: int) -> int:
    """What JavaScript's ``String.length`` says of ``text[:i]``."""
    return len(text[:i].encode("utf-16-le")) // 2


def utf8(text: str, i: int) -> int:
    return len(text[:i].encode("utf-8"))


def at(doc: str, passage: str, nth: int = 0) -> tuple[int, int]:
    """Canonical code-point range of the ``nth`` occurrence of ``passage`` in ``doc``."""
    text, start = CANON[doc], -1
    for _ in range(nth + 1):
        start = text.index(passage, start + 1)
    return start, start + len(passage)


def spans_of(root: Path) -> dict[str, list[tuple[str, int, int]]]:
    return {r["query_id"]: [(s["doc_id"], s["char_start"], s["char_end"]) for s in r["answer_spans"]]
            for r in artifact(root)}


def build(capsys, root: Path) -> dict[str, list[tuple[str, int, int]]]:
    rc, out, err = cli(capsys, "build", "--root", root)
    assert rc == 0, out + err
    return spans_of(root)


def snapshot(root: Path) -> dict[str, bytes]:
    """What an import may write: the golden folder (caches aside)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "golden").rglob("*")) if p.is_file()}


# -- 1. whole documents ------------------------------------------------------------------------


def test_whole_document_labels_import_for_every_document_in_each_page_format(tmp_path, capsys):
    """Every document, even one with text before its first heading or two top-level sections,
    imports as the document locator and builds to the whole document (front matter left out)."""
    root = project_root(tmp_path)
    project = Project(load_config(root))
    docs = sorted(DOCS)
    pages = write(tmp_path / "pages.json", [{"id": f"p-{d}", "query": f"all of {d}?", "expected_pages": [d]}
                                            for d in docs])
    yaml_file = write(tmp_path / "g.yaml", yaml.safe_dump(
        {"queries": [{"id": f"y-{d}", "query": f"everything in {d}?", "expected": [{"path": d}]} for d in docs]}))
    qrels = write(tmp_path / "qrels.txt", "".join(f"t-{i} 0 {d} 1\n" for i, d in enumerate(docs)))
    topics = write(tmp_path / "topics.tsv", "".join(f"t-{i}\twhole of {d}?\n" for i, d in enumerate(docs)))
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    jsonl(beir / "queries.jsonl", [{"_id": f"b-{i}", "text": f"beir page {d}?"} for i, d in enumerate(docs)])
    write(beir / "qrels" / "test.tsv", "query-id\tcorpus-id\tscore\n" + "".join(f"b-{i}\t{d}\t1\n"
                                                                              for i, d in enumerate(docs)))
    for args in (("pages-json", pages), ("yaml", yaml_file), ("trec-qrels", qrels, "--queries", topics),
                 ("beir", beir)):
        rc, report = cli_json(capsys, "import", *args, "--root", root)
        assert rc == 0 and report["kept_out"] == [] and len(report["added"]) == len(docs), (args[0], report)
    recs = questions_of(root)
    assert len(recs) == 4 * len(docs)
    assert all(r["locators"] == [{"doc": r["query"].split()[-1].rstrip("?")}] for r in recs)
    built = build(capsys, root)
    for rec in recs:
        doc = rec["locators"][0]["doc"]
        assert built[rec["id"]] == [(doc, *document_span(project.corpus[doc]))]
    assert built["p-fm.md"][0][1] == CANON["fm.md"].index("Text before")  # front matter is not answer text
    chunks = {}
    for c in project.all_chunks:
        chunks.setdefault(c.doc_id, set()).add(c.chunk_id)
    for r in artifact(root):
        assert set(r["answer_bearing_chunk_ids"]) == chunks[r["answer_spans"][0]["doc_id"]]


def test_a_page_export_of_whole_document_labels_reads_back_byte_identically(tmp_path, capsys):
    root = project_root(tmp_path, questions=[{"id": "w", "query": "two tops?", "expected_answer": "",
                                              "locators": [{"doc": "two-tops.md"}]}])
    first = tmp_path / "first.json"
    assert cli(capsys, "export", "pages-json", "--root", root, "--out", first)[0] == 0
    assert json.loads(first.read_text())["queries"][0]["expected_pages"] == ["two-tops.md"]
    other = project_root(tmp_path, "q")
    assert cli_json(capsys, "import", "pages-json", first, "--root", other)[0] == 0
    second = tmp_path / "second.json"
    assert cli(capsys, "export", "pages-json", "--root", other, "--out", second)[0] == 0
    assert second.read_bytes() == first.read_bytes()


# -- 2. offsets ----------------------------------------------------------------------------------

# (doc, passage, which occurrence): an emoji before the span, the second of a repeated
# passage, an NFD file (NFC in the canonical text), a CRLF file, a span crossing a ZWJ sequence.
PICKS = [("emoji.md", "ten coins", 0), ("repeat.md", "restart the service.", 1), ("nfd.md", "crème brûlée", 0),
         ("crlf.md", "Second paragraph", 0), ("emoji.md", "baker 👩\u200d🍳 for", 0), ("repeat.md", "service", 0)]


def offsets_rows(units: str) -> list[dict]:
    count = {"codepoints": lambda t, i: i, "utf16": utf16, "utf8": utf8}[units]
    rows = []
    for n, (doc, passage, nth) in enumerate(PICKS):
        s, e = at(doc, passage, nth)
        rows.append({"id": f"o{n}", "query": f"offsets question {n}?", "spans": [
            {"doc": doc, "start": count(CANON[doc], s), "end": count(CANON[doc], e), "text": passage}]})
    return rows


@pytest.mark.parametrize("units", ["codepoints", "utf16", "utf8"])
def test_a_record_imported_from_offsets_builds_to_exactly_those_offsets(tmp_path, capsys, units):
    root = project_root(tmp_path)
    rows = offsets_rows(units)
    rc, report = cli_json(capsys, "import", "offsets", jsonl(tmp_path / "o.jsonl", rows), "--units", units,
                          "--root", root)
    assert rc == 0 and report["kept_out"] == [], report
    built = build(capsys, root)
    for n, (doc, passage, nth) in enumerate(PICKS):
        assert built[f"o{n}"] == [(doc, *at(doc, passage, nth))], passage
    recs = {r["id"]: r for r in questions_of(root)}
    # the repeated passage is told apart by the least context, never by widening the quote
    assert recs["o1"]["locators"] == [{"doc": "repeat.md", "quote": "restart the service.", "exact": True,
                                       "prefix": "Finally: "}]
    assert recs["o0"]["locators"] == [{"doc": "emoji.md", "quote": "ten coins", "exact": True}]
    # "service" occurs twice; one word after it is enough
    assert recs["o5"]["locators"][0]["suffix"] == ". Then"  # the other "service" is followed by "." too
    assert recs["o5"]["locators"][0].get("prefix") is None


def test_offsets_counted_in_the_wrong_units_are_caught_by_the_span_text(tmp_path, capsys):
    """The known bug class: UTF-16 offsets read as code points shift after an emoji."""
    root = project_root(tmp_path)
    before = snapshot(root)
    rc, report = cli_json(capsys, "import", "offsets", jsonl(tmp_path / "o.jsonl", offsets_rows("utf16")),
                          "--root", root)
    assert rc == 1
    kept = {k["id"]: k for k in report["kept_out"]}
    assert kept["o0"]["kind"] == "offset_mismatch" and "ten coins" in kept["o0"]["message"]
    assert "o1" not in kept and "o2" not in kept  # no astral character before them: units agree
    assert set(report["added"]) == {"o1", "o2", "o3", "o5"}
    assert snapshot(root) != before  # the rest were merged
    rows = offsets_rows("utf16")
    s = rows[4]["spans"][0]
    s["start"] += 1 + "baker 👩".index("👩") + 1  # the middle of the woman's surrogate pair
    rc, report = cli_json(capsys, "import", "offsets", jsonl(tmp_path / "p.jsonl", rows[4:5]), "--units", "utf16",
                          "--root", project_root(tmp_path, "q"), "--dry-run")
    assert report["kept_out"][0]["kind"] in ("bad_offset", "offset_mismatch")


def test_offsets_round_trip_and_refusals(tmp_path, capsys):
    a = project_root(tmp_path, "a")
    assert cli_json(capsys, "import", "offsets", jsonl(tmp_path / "o.jsonl", offsets_rows("codepoints")),
                    "--root", a)[0] == 0
    with_section = questions_of(a) + [{"id": "sec", "query": "what about Later?", "expected_answer": "more",
                                       "locators": [{"doc": "fm.md", "heading": "Later"}], "tags": ["x"],
                                       "split": "dev"},
                                      {"id": "para", "query": "the logs?", "expected_answer": "",
                                       "locators": [{"quote": "check the logs"}]},
                                      {"id": "neg", "query": "unanswerable one?", "expected_answer": "",
                                       "locators": [], "unanswerable": True}]
    a = write_project(tmp_path / "a2", DOCS, with_section)
    first = tmp_path / "first.jsonl"
    assert cli(capsys, "export", "offsets", "--root", a, "--out", first)[0] == 0
    exported = {r["id"]: r for r in map(json.loads, first.read_text(encoding="utf-8").splitlines())}
    assert exported["para"]["spans"] == [{"doc": "repeat.md", "start": at("repeat.md", "Then check the logs.\n")[0],
                                          "end": at("repeat.md", "Then check the logs.\n")[1],
                                          "text": "Then check the logs.\n"}]
    b = project_root(tmp_path, "b")
    rc, report = cli_json(capsys, "import", "offsets", first, "--root", b)
    assert rc == 0 and report["kept_out"] == []
    assert build(capsys, b) == build(capsys, a)  # every span, sections and paragraphs included, to the character
    recs = {r["id"]: r for r in questions_of(b)}
    assert "exact" not in recs["para"]["locators"][0]  # block expansion gives the span back: a plain quote
    assert recs["sec"]["split"] == "dev" and recs["sec"]["tags"] == ["x"] and recs["neg"]["unanswerable"] is True
    second = tmp_path / "second.jsonl"
    assert cli(capsys, "export", "offsets", "--root", b, "--out", second)[0] == 0
    assert second.read_bytes() == first.read_bytes()
    # --units utf16 on export counts JavaScript's way
    js = tmp_path / "js.jsonl"
    assert cli(capsys, "export", "offsets", "--units", "utf16", "--root", b, "--out", js)[0] == 0
    o0 = next(r for r in map(json.loads, js.read_text(encoding="utf-8").splitlines()) if r["id"] == "o0")
    assert o0["spans"][0]["start"] == utf16(CANON["emoji.md"], at("emoji.md", "ten coins")[0])
    # refusals: nothing written with --dry-run, nor on a malformed file
    c = project_root(tmp_path, "c")
    before = snapshot(c)
    assert cli_json(capsys, "import", "offsets", first, "--root", c, "--dry-run")[0] == 0
    bad = jsonl(tmp_path / "bad.jsonl", [{"id": "x", "query": "q?", "spans": [{"doc": "emoji.md", "start": 0,
                                                                               "end": 3, "colour": "red"}]}])
    rc, out, err = cli(capsys, "import", "offsets", bad, "--root", c)
    assert rc == 2 and "colour" in err
    rc, out, err = cli(capsys, "import", "offsets", jsonl(tmp_path / "t.jsonl", [
        {"id": "x", "query": "q?", "spans": [{"doc": "../etc/passwd", "start": 0, "end": 3}]}]), "--root", c)
    assert rc == 2
    assert snapshot(c) == before
    rc, report = cli_json(capsys, "import", "offsets", jsonl(tmp_path / "k.jsonl", [
        {"id": "u", "query": "unknown doc?", "spans": [{"doc": "nope.md", "start": 0, "end": 3}]},
        {"id": "w", "query": "blank?", "spans": [{"doc": "emoji.md", "start": 9, "end": 11}]},
        {"id": "f", "query": "front matter?", "spans": [{"doc": "fm.md", "start": 4, "end": 9}]},
        {"id": "r", "query": "reversed?", "spans": [{"doc": "fm.md", "start": 9, "end": 4}]}]), "--root", c)
    assert rc == 1 and report["added"] == []
    assert {k["id"]: k["kind"] for k in report["kept_out"]} == {"u": "unknown_doc", "w": "blank_span",
                                                                "f": "front_matter", "r": "bad_offset"}
    assert all(k["message"] for k in report["kept_out"])
    assert snapshot(c) == before


# -- 3. annotation tasks ---------------------------------------------------------------------------


def ls_task(tid, text: str, spans: list[tuple[int, int]], question: str | None, *, record_id=None,
            kind="annotations", cancelled=False, with_text=True) -> dict:
    """A task as Label Studio's JSON export writes it; offsets are JavaScript (UTF-16) indices."""
    result = []
    for i, (s, e) in enumerate(spans):
        value = {"start": utf16(text, s), "end": utf16(text, e), "labels": ["Answer"]}
        if with_text:
            value["text"] = text[s:e]
        result.append({"value": value, "id": f"r{tid}-{i}", "from_name": "label", "to_name": "text",
                       "type": "labels", "origin": "manual"})
    data = {"text": text}
    if question is not None:
        data["question"] = question
    if record_id is not None:
        data["record_id"] = record_id
    item = {"result": result, "was_cancelled": cancelled, "ground_truth": False, "completed_by": 1}
    return {"id": tid, "data": data, kind: [item], "project": 7}


def test_label_studio_import_counts_utf16_and_matches_each_task_to_its_document(tmp_path, capsys):
    root = project_root(tmp_path)
    emoji = DOCS["emoji.md"]  # the task holds the file's text, as uploaded
    crlf = DOCS["crlf.md"]  # CRLF kept in the task
    nfd = DOCS["nfd.md"]
    part = "First: restart the service.\n\nThen check the logs.\n\nFinally: restart the service."
    tasks = [
        ls_task(1, emoji, [(emoji.index("ten coins"), emoji.index("ten coins") + 9)], "what does the cake cost?"),
        ls_task(2, crlf, [(crlf.index("Second"), crlf.index(" of the"))], "what is second?"),
        ls_task(3, nfd, [(nfd.index("cr"), nfd.index(" on"))], "what is served?"),
        ls_task(4, part, [(part.rindex("restart"), len(part))], "what comes last?", with_text=False),
        ls_task(5, "A text no corpus document holds.", [(2, 6)], "where is this?"),
        ls_task(6, emoji, [(0, 7)], None),
        ls_task(7, "restart the service.", [(0, 7)], "which one?"),
        ls_task(8, emoji, [(emoji.index("cake"), emoji.index("cake") + 4)], "cancelled?", cancelled=True),
        ls_task(9, emoji, [(emoji.index("baker"), emoji.index("baker") + 5)], "predicted?", kind="predictions"),
    ]
    disagree = ls_task(10, emoji, [(emoji.index("cake"), emoji.index("cake") + 4)], "disagreement?")
    disagree["annotations"].append(ls_task(10, emoji, [(emoji.index("Ask"), emoji.index("Ask") + 3)],
                                           "x")["annotations"][0])
    tasks.append(disagree)
    asked = ls_task(11, emoji, [(emoji.index("Ask"), emoji.index("Ask") + 3)], None)
    asked["annotations"][0]["result"].append({"value": {"text": ["who do I ask?"]}, "id": "q11",
                                              "from_name": "question", "to_name": "text", "type": "textarea"})
    tasks.append(asked)  # the question typed into a TextArea while annotating
    export = write(tmp_path / "ls.json", tasks)
    before = snapshot(root)
    rc, report = cli_json(capsys, "import", "label-studio", export, "--root", root, "--dry-run")
    assert snapshot(root) == before
    rc, report = cli_json(capsys, "import", "label-studio", export, "--root", root)
    assert rc == 1 and report["added"] == ["1", "2", "3", "4", "11"]
    assert {k["id"]: k["kind"] for k in report["kept_out"]} == {
        "5": "task_not_in_corpus", "6": "no_query", "7": "task_ambiguous", "8": "no_span",
        "9": "prediction_only", "10": "disagreement"}
    assert all(k["message"] for k in report["kept_out"])
    built = build(capsys, root)
    assert built["1"] == [("emoji.md", *at("emoji.md", "ten coins"))]
    assert built["2"] == [("crlf.md", *at("crlf.md", "Second paragraph"))]
    assert built["3"] == [("nfd.md", *at("nfd.md", unicodedata.normalize("NFC", "crème brûlée")))]
    assert built["4"] == [("repeat.md", *at("repeat.md", "restart the service.", 1))]
    recs = {r["id"]: r for r in questions_of(root)}
    assert recs["1"]["tags"] == ["source:label-studio"] and recs["1"]["expected_answer"] == ""
    # the same file read as code points: the span after the emoji no longer matches its own text
    rc, report = cli_json(capsys, "import", "label-studio", export, "--units", "codepoints", "--root",
                          project_root(tmp_path, "q"), "--dry-run")
    assert {k["id"]: k["kind"] for k in report["kept_out"]}["1"] == "offset_mismatch"
    rc, report = cli_json(capsys, "import", "label-studio", export, "--predictions", "--root",
                          project_root(tmp_path, "r"), "--dry-run")
    assert "9" in report["added"]


def test_label_studio_pre_annotation_export_reads_back_to_the_same_spans(tmp_path, capsys):
    a = project_root(tmp_path, "a", questions=[
        {"id": "m", "query": "cake and logs?", "expected_answer": "ten", "locators": [
            {"doc": "emoji.md", "quote": "coins.", "prefix": "ten ", "exact": True},
            {"quote": "Then check the logs."}, {"doc": "emoji.md", "quote": "baker 👩\u200d🍳"}]},
        {"id": "n", "query": "nothing?", "expected_answer": "", "locators": [], "unanswerable": True}])
    out = tmp_path / "tasks.json"
    rc, out_text, err = cli(capsys, "export", "label-studio", "--root", a, "--out", out)
    assert rc == 0
    tasks = json.loads(out.read_text(encoding="utf-8"))
    assert [t["data"]["doc"] for t in tasks] == ["emoji.md", "repeat.md"]
    value = tasks[0]["predictions"][0]["result"][0]["value"]
    text = tasks[0]["data"]["text"]
    assert value["start"] == utf16(text, text.index("coins.")) and value["text"] == "coins."
    b = project_root(tmp_path, "b")
    rc, report = cli_json(capsys, "import", "label-studio", out, "--root", b)
    assert rc == 1 and {k["kind"] for k in report["kept_out"]} == {"prediction_only"}
    rc, report = cli_json(capsys, "import", "label-studio", out, "--predictions", "--root", b)
    assert rc == 0 and report["added"] == ["m"]  # two tasks, one record
    assert sorted(build(capsys, b)["m"]) == sorted(build(capsys, a)["m"])  # grouped by document: order may move
    assert questions_of(b)[0]["expected_answer"] == "ten"


def test_doccano_both_label_forms_span_label_and_query_field(tmp_path, capsys):
    root = project_root(tmp_path)
    nfd = DOCS["nfd.md"]
    emoji = CANON["emoji.md"]
    s = emoji.index("ten coins")
    rows = [
        {"id": 1, "text": nfd, "label": [[nfd.index("cr"), nfd.index(" on"), "answer"], [0, 6, "title"]],
         "ask": "what is served?"},
        {"id": 2, "text": emoji, "entities": [{"id": 9, "label": "answer", "start_offset": s, "end_offset": s + 9}],
         "ask": "what does it cost?"},
        {"id": 3, "text": emoji, "label": [[s, s + 9, "title"]], "ask": "only other labels?"},
    ]
    rc, report = cli_json(capsys, "import", "doccano", jsonl(tmp_path / "d.jsonl", rows), "--query-field", "ask",
                          "--span-label", "answer", "--root", root)
    assert rc == 1 and report["added"] == ["1", "2"]
    assert report["kept_out"][0]["id"] == "3" and report["kept_out"][0]["kind"] == "no_span"
    built = build(capsys, root)
    assert built["1"] == [("nfd.md", *at("nfd.md", unicodedata.normalize("NFC", "crème brûlée")))]
    assert built["2"] == [("emoji.md", s, s + 9)]
    # a span boundary between a letter and its combining accent has no canonical offset
    inside = nfd.index("e\u0300") + 1
    rc, report = cli_json(capsys, "import", "doccano", jsonl(tmp_path / "e.jsonl", [
        {"id": 4, "text": nfd, "label": [[inside, inside + 3, "a"]], "question": "split accent?"}]),
        "--root", project_root(tmp_path, "q"), "--dry-run")
    assert report["kept_out"][0]["kind"] == "bad_offset" and "combined" in report["kept_out"][0]["message"]


def test_prodigy_spans_answers_and_meta_question(tmp_path, capsys):
    root = project_root(tmp_path)
    text = CANON["repeat.md"]
    s = text.index("restart the service.")
    rows = [
        {"text": text, "spans": [{"start": s, "end": s + 20, "label": "ANSWER", "text": "restart the service."}],
         "answer": "accept", "meta": {"id": "pa", "question": "what comes first?"}, "_task_hash": 11},
        {"text": text, "spans": [{"start": s, "end": s + 7, "label": "ANSWER"}], "answer": "reject",
         "meta": {"question": "rejected one?"}, "_task_hash": 12},
        {"text": text, "spans": [{"start": s, "end": s + 7, "label": "ANSWER", "text": "Restart"}],
         "answer": "accept", "question": "mismatched text?", "_task_hash": 13},
    ]
    rc, report = cli_json(capsys, "import", "prodigy", jsonl(tmp_path / "p.jsonl", rows), "--root", root)
    assert rc == 1 and report["added"] == ["pa"]
    assert {k["id"]: k["kind"] for k in report["kept_out"]} == {"12": "rejected", "13": "offset_mismatch"}
    assert build(capsys, root)["pa"] == [("repeat.md", s, s + 20)]
    loc = questions_of(root)[0]["locators"][0]
    assert loc["suffix"] == " Then" and loc["doc"] == "repeat.md"


# -- 4. synthetic test sets ------------------------------------------------------------------------


def test_ragas_round_trip_tags_the_source_and_suggests_for_paraphrased_contexts(tmp_path, capsys):
    root = project_root(tmp_path)
    rows = [
        {"user_input": "How much is the cake?", "reference_contexts": ["The cake 🎂 costs\nten coins."],
         "reference": "ten coins", "synthesizer_name": "single_hop_specific_query_synthesizer"},
        {"user_input": "What does the café serve?",
         "reference_contexts": [unicodedata.normalize("NFD", "The café serves crème brûlée on Sundays."),
                                "Lines end in CRLF here."], "reference": "crème brûlée"},
        {"user_input": "Which step repeats?", "reference_contexts": ["restart the service."], "reference": ""},
        {"user_input": "What is in the second paragraph?",
         "reference_contexts": ["Second paragraph of the Windows document."], "reference": ""},
    ]
    rc, report = cli_json(capsys, "import", "ragas", jsonl(tmp_path / "t.jsonl", rows), "--root", root)
    assert rc == 1 and len(report["added"]) == 2
    kept = {k["kind"]: k for k in report["kept_out"]}
    assert set(kept) == {"ambiguous", "not_found"}
    assert kept["not_found"]["suggestions"][0]["quote"].startswith("Second paragraph of the Windows file")
    assert "nearest" in kept["not_found"]["message"]
    assert "Second paragraph" not in (root / "golden/questions.jsonl").read_text(encoding="utf-8")  # never applied
    recs = questions_of(root)
    assert recs[0]["tags"] == ["source:ragas", "synthesizer:single_hop_specific_query_synthesizer"]
    assert recs[0]["id"].startswith("ragas-") and recs[0]["locators"][0]["exact"] is True
    rc, summary = cli_json(capsys, "review", "--summary", "--root", root)
    assert summary["unreviewed"] == 2 and summary["reviewed"] == 0
    built = build(capsys, root)
    assert built[recs[1]["id"]] == [("nfd.md", *at("nfd.md", "The café serves crème brûlée on Sundays.")),
                                    ("crlf.md", *at("crlf.md", "Lines end in CRLF here."))]
    out = tmp_path / "export.jsonl"
    assert cli(capsys, "export", "ragas", "--root", root, "--out", out)[0] == 0
    exported = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert exported[0] == {"user_input": "How much is the cake?", "reference_contexts": ["The cake 🎂 costs ten coins."],
                           "reference": "ten coins",  # the synthesizer goes back out, from its tag
                           "synthesizer_name": "single_hop_specific_query_synthesizer"}
    again = project_root(tmp_path, "q")
    assert cli_json(capsys, "import", "ragas", out, "--root", again)[0] == 0
    assert build(capsys, again) == built  # same ids (digest of the question), same spans
    second = tmp_path / "second.jsonl"
    assert cli(capsys, "export", "ragas", "--root", again, "--out", second)[0] == 0
    assert second.read_bytes() == out.read_bytes()


def test_deepeval_source_file_pins_a_repeated_context(tmp_path, capsys):
    docs = {**DOCS, "copy.md": "# Copy\n\nFirst top section text.\n"}
    root = write_project(tmp_path / "p", docs, [])
    goldens = [
        {"input": "What does the first section say?", "expected_output": "text", "context": ["First top section text."],
         "source_file": str(tmp_path / "somewhere" / "two-tops.md"), "actual_output": None,
         "retrieval_context": None, "additional_metadata": {"synthetic_input_quality": 0.9}},
        {"input": "What does a copied section say?", "context": ["First top section text."], "source_file": None},
    ]
    rc, report = cli_json(capsys, "import", "deepeval", write(tmp_path / "g.json", goldens), "--root", root)
    assert rc == 1 and len(report["added"]) == 1
    assert report["kept_out"][0]["kind"] == "ambiguous"
    rec = questions_of(root)[0]
    assert rec["locators"] == [{"doc": "two-tops.md", "quote": "First top section text.", "exact": True}]
    assert rec["tags"] == ["source:deepeval"] and rec["expected_answer"] == "text"


def test_llamaindex_export_reads_back_to_the_same_answer_bearing_chunks(tmp_path, capsys):
    a = project_root(tmp_path, "a", questions=[
        {"id": "q1", "query": "cake price?", "expected_answer": "", "locators": [{"quote": "ten coins"}]},
        {"id": "q2", "query": "the whole second top?", "expected_answer": "",
         "locators": [{"doc": "two-tops.md", "heading": "Second"}]}])
    out = tmp_path / "ds.json"
    assert cli(capsys, "export", "llamaindex", "--root", a, "--out", out)[0] == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert set(data) == {"queries", "corpus", "relevant_docs", "mode"}
    assert data["queries"] == {"q1": "cake price?", "q2": "the whole second top?"}
    b = project_root(tmp_path, "b")
    rc, report = cli_json(capsys, "import", "llamaindex", out, "--root", b)
    assert rc == 0 and report["added"] == ["q1", "q2"]
    cli(capsys, "build", "--root", a)
    cli(capsys, "build", "--root", b)
    ids = lambda root: {r["query_id"]: r["answer_bearing_chunk_ids"] for r in artifact(root)}  # noqa: E731
    assert ids(a) == ids(b)
    data["corpus"]["extra"] = "file_path: two-tops.md\n\nSecond top section text."
    data["queries"]["q3"] = "metadata in the node text?"
    data["relevant_docs"]["q3"] = ["extra"]
    data["queries"]["q4"] = "dangling node?"
    data["relevant_docs"]["q4"] = ["gone"]
    rc, report = cli_json(capsys, "import", "llamaindex", write(tmp_path / "ds2.json", data), "--root",
                          project_root(tmp_path, "c"), "--dry-run")
    assert {k["id"]: k["kind"] for k in report["kept_out"]} == {"q3": "not_found", "q4": "unknown_node"}


# -- 5. near duplicates ------------------------------------------------------------------------------


def test_near_duplicate_questions_are_reported_never_refused(tmp_path, capsys):
    root = project_root(tmp_path, questions=[{"id": "old", "query": "How much does the cake cost?",
                                              "expected_answer": "", "locators": [{"quote": "ten coins"}]}])
    rows = [{"user_input": "How much does the cake  cost ?", "reference_contexts": ["ten coins"]},
            {"user_input": "what does the café serve", "reference_contexts": ["crème brûlée"]},
            {"user_input": "What does the cafe serve?", "reference_contexts": ["on Sundays"]}]
    rc, report = cli_json(capsys, "import", "ragas", jsonl(tmp_path / "t.jsonl", rows), "--root", root)
    assert rc == 0 and len(report["added"]) == 3
    pairs = {(p["a"] if p["b"] == "old" else "new", p["b"]) for p in report["near_duplicates"]}
    assert len(report["near_duplicates"]) == 2 and ("new", "old") in {(x if y != "old" else "new", y)
                                                                        for x, y in pairs}
    assert all(p["score"] >= THRESHOLD for p in report["near_duplicates"])
    rc, out, err = cli(capsys, "build", "--root", root)
    assert rc == 0 and err.count("near-duplicate questions") == 2
    rc, built = cli_json(capsys, "build", "--check", "--root", root)
    assert rc == 0 and len(built["near_duplicates"]) == 2  # a warning, never a failure


def test_near_duplicates_rule():
    assert near_duplicates([("a", "What is X?"), ("b", "what is  x ?")]).pairs == [{"a": "a", "b": "b", "score": 95.2}]
    assert near_duplicates([("a", "What is X?"), ("b", "Who wrote the manual?")]).pairs == []
    assert near_duplicates([("a", "same question?")], [("a", "same question?")]).pairs == []  # a record being replaced


def test_ragas_export_of_block_spans_reads_back_to_the_same_spans(tmp_path, capsys):
    """A paragraph, a list-free section and an exact span, exported as text with their line ends,
    come back as the same spans: a context's edge whitespace is kept where the document has it."""
    a = project_root(tmp_path, "a", questions=[
        {"id": "p", "query": "which logs?", "expected_answer": "the logs", "locators": [{"quote": "check the logs"}]},
        {"id": "s", "query": "second top?", "expected_answer": "",
         "locators": [{"doc": "two-tops.md", "heading": "Second"}, {"doc": "emoji.md", "quote": "ten", "exact": True}]},
        {"id": "n", "query": "negative?", "expected_answer": "", "locators": [], "unanswerable": True}])
    first = tmp_path / "first.jsonl"
    rc, out, err = cli(capsys, "export", "ragas", "--root", a, "--out", first)
    assert rc == 0 and "1 negative record(s) left out" in out
    assert json.loads(first.read_text(encoding="utf-8").splitlines()[0])["reference_contexts"] == [
        "Then check the logs.\n"]
    b = project_root(tmp_path, "b")
    assert cli_json(capsys, "import", "ragas", first, "--root", b)[0] == 0
    spans_a, spans_b = build(capsys, a), build(capsys, b)
    assert sorted(spans_b.values()) == sorted(v for k, v in spans_a.items() if k != "n")
    second = tmp_path / "second.jsonl"
    assert cli(capsys, "export", "ragas", "--root", b, "--out", second)[0] == 0
    assert second.read_bytes() == first.read_bytes()


def test_offsets_of_the_files_on_disk_map_crlf_and_nfd_to_canonical_offsets(tmp_path, capsys):
    """A tool that read the raw files counts CRLF as two characters and NFD accents apart."""
    root = project_root(tmp_path)
    crlf, nfd = DOCS["crlf.md"], DOCS["nfd.md"]
    passage = unicodedata.normalize("NFD", "crème brûlée")
    rows = [{"id": "c", "query": "second?", "spans": [
                {"doc": "crlf.md", "start": crlf.index("Second"), "end": crlf.index(" of the"),
                 "text": "Second paragraph"}]},
            {"id": "n", "query": "dessert?", "spans": [
                {"doc": "nfd.md", "start": nfd.index(passage), "end": nfd.index(passage) + len(passage)}]},
            {"id": "x", "query": "across a line break pair?", "spans": [
                {"doc": "crlf.md", "start": crlf.index("\r\n") + 1, "end": crlf.index("Lines")}]}]
    o = jsonl(tmp_path / "o.jsonl", rows)
    rc, report = cli_json(capsys, "import", "offsets", o, "--root", root, "--dry-run")
    assert {k["id"] for k in report["kept_out"]} >= {"c"}  # read as canonical offsets they point elsewhere
    rc, report = cli_json(capsys, "import", "offsets", o, "--offsets-of", "file", "--root", root)
    assert rc == 1 and report["added"] == ["c", "n"]
    assert report["kept_out"][0]["id"] == "x" and report["kept_out"][0]["kind"] == "bad_offset"
    built = build(capsys, root)
    assert built["c"] == [("crlf.md", *at("crlf.md", "Second paragraph"))]
    assert built["n"] == [("nfd.md", *at("nfd.md", unicodedata.normalize("NFC", passage)))]


FUZZ_KEYS = ["id", "text", "label", "entities", "spans", "start", "end", "start_offset", "end_offset", "question",
             "data", "annotations", "predictions", "result", "value", "labels", "was_cancelled", "answer", "meta",
             "user_input", "reference_contexts", "reference", "input", "context", "source_file", "queries",
             "corpus", "relevant_docs", "query", "doc", "record_id",
             # ragas 0.1 and Testset dumps, LlamaIndex's LabelledRagDataset (issue 25)
             "contexts", "ground_truth", "ground_truths", "synthesizer_name", "samples", "eval_sample", "examples",
             "reference_answer", "query_by"]
FUZZ_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 40) | st.floats(allow_nan=False) | st.text(max_size=8)
    | st.sampled_from(["emoji.md", "../x.md", "The cake 🎂 costs ten coins.", "ten coins", CANON["repeat.md"]]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(FUZZ_KEYS), inner, max_size=6),
    max_leaves=24)


@pytest.fixture(scope="module")
def fuzz_project(tmp_path_factory):
    return Project(load_config(write_project(tmp_path_factory.mktemp("fuzz"), DOCS, [])))


@settings(max_examples=200, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["offsets", "label-studio", "doccano", "prodigy", "ragas", "deepeval", "llamaindex",
                        "pages-json"]),
       FUZZ_VALUES, st.booleans())
def test_any_file_gives_candidates_or_invalid_input(tmp_path, fuzz_project, fmt, value, as_lines):
    """Whatever a file of these formats holds, reading it gives candidates (kept-out ones
    naming a reason) or a documented InvalidInput; never a crash."""
    if as_lines and isinstance(value, list):
        content = "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in value)
    else:
        content = json.dumps(value, ensure_ascii=False)
    path = tmp_path / "fuzz.in"
    path.write_text(content, encoding="utf-8")
    try:
        incoming = all_formats()[fmt].read(path, fuzz_project, all_formats()[fmt].defaults(Direction.IMPORT))
    except InvalidInput:
        return
    for cand in incoming.candidates:
        assert cand.skip is None or (cand.skip[0] and cand.skip[1])
    try:
        plan = plan_import(fuzz_project, incoming, str(path))
    except InvalidInput:
        return
    assert all(k.kind and k.message for k in plan.kept_out)


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(DOCS)), st.data())
def test_any_canonical_span_becomes_a_locator_of_exactly_that_span_or_a_named_refusal(fuzz_project, doc, data):
    text = CANON[doc]
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    try:
        loc = span_locator(fuzz_project, doc, start, end)
    except SpanProblem as exc:
        assert exc.kind in ("blank_span", "ambiguous") and exc.message
        return
    span = fuzz_project.resolver.resolve(loc)
    if isinstance(span, Refusal):
        assert span.kind in ("front_matter", "heading_only"), span
        return
    assert (span.start, span.end) in ((start, end), trimmed(text, start, end))
    assert loc.doc == doc and (loc.exact or (span.start, span.end) == (start, end))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(sorted(DOCS)), st.sampled_from(["codepoints", "utf16", "utf8"]), st.data())
def test_tool_offsets_map_to_canonical_offsets_or_are_refused(doc, units, data):
    """Raw file text (CRLF, NFD) and any units: a converted span holds the same text canonicalised."""
    raw = DOCS[doc]
    size = {"codepoints": len(raw), "utf16": utf16(raw, len(raw)), "utf8": utf8(raw, len(raw))}[units]
    a = data.draw(st.integers(0, size - 1))
    b = data.draw(st.integers(a + 1, size))
    try:
        start, end = to_codepoints(raw, [a, b], units)
        assert from_codepoints(raw, [start, end], units) == [a, b]
        cs, ce = canonical_range(raw, start, end)
    except SpanProblem as exc:
        assert exc.kind == "bad_offset" and exc.message
        return
    assert CANON[doc][cs:ce] == canonical_fragment(raw[start:end])
