"""The leak report ``golden-queries-quoted``: one test per rule of SPEC §7, then the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labeller.cli import main
from labeller.core.build import RecordResult
from labeller.core.chunkers import Chunk
from labeller.core.chunkers.md_struct_v1 import MdStructV1
from labeller.core.corpus import make_document
from labeller.core.models import Locator, Question
from labeller.core.resolve import Span
from labeller.eval.leaks import LEAK_CHECK, find_leaks, format_warning, leak_locations, needles, normalise

# Queries of 12+ code points that the documents below quote or avoid.
ROTATE = "How do I rotate the API key?"
BACKUP = "Where are nightly backups stored?"
VPN = "Why does the VPN drop on hotel wifi?"


def chunks_of(docs: dict[str, str], max_chars: int = 1800) -> list[Chunk]:
    """Chunk documents with the real chunker, in corpus order."""
    chunker = MdStructV1(max_chars)
    return [c for doc_id in sorted(docs) for c in chunker.chunk(make_document(doc_id, docs[doc_id]))]


def record(qid: str, query: str, answer_docs: tuple[str, ...] = ()) -> RecordResult:
    """A built record; with ``answer_docs`` it has one span in each, else it is unanswerable."""
    if not answer_docs:
        return RecordResult(Question(id=qid, query=query, expected_answer="", locators=[], unanswerable=True))
    q = Question(id=qid, query=query, expected_answer="", locators=[Locator(quote="x")] * len(answer_docs),
                 hop="multi" if len(answer_docs) > 1 else "single")
    return RecordResult(q, spans=[Span(d, 0, 1, "paragraph", 0, 1) for d in answer_docs])


def paths(findings: list[dict]) -> list[str]:
    return [f["path"] for f in findings]


def quoted_ids(finding: dict) -> list[str]:
    return [q["query_id"] for q in finding["quoted"]]


def test_minimum_is_twelve_code_points_not_bytes():
    twelve = "経費精算の締め日はいつですか"[:12]
    eleven = "出張旅費の日当はいくらです"[:11]
    assert len(twelve) == 12 and len(twelve.encode("utf-8")) == 36 and len(eleven) == 11
    docs = {"a.md": f"# メモ\n\n{twelve}\n\n{eleven}\n\n{ROTATE}\n",
            "b.md": f"# メモ\n\n{eleven}\n\n{ROTATE}\n"}
    recs = [record("q1", twelve), record("q2", eleven), record("q3", ROTATE)]
    assert [n.query_id for n in needles(recs)] == ["q1", "q3"]
    findings = find_leaks(chunks_of(docs), recs)
    assert paths(findings) == ["a.md"]
    assert quoted_ids(findings[0]) == ["q1", "q3"]


def test_whitespace_and_case_are_normalised_including_ideographic_space():
    assert normalise("\u3000 Rotate\u3000\u3000the\tAPI\n key ") == "rotate the api key"
    docs = {"note.md": "# Notes\n\nhow DO i\u3000rotate the\napi  KEY?\n\nWHERE are nightly\tbackups stored?\n"}
    recs = [record("q1", "How do I   rotate the API key?"), record("q2", "Where are nightly\u3000backups stored?")]
    findings = find_leaks(chunks_of(docs), recs)
    assert findings == [{"check": LEAK_CHECK, "path": "note.md",
                         "quoted": [{"query_id": "q1", "rank_in_top_k": None},
                                    {"query_id": "q2", "rank_in_top_k": None}]}]


def test_queries_with_the_same_normalised_text_fold_into_one_needle():
    docs = {"note.md": f"# Notes\n\n{ROTATE}\n"}
    twins = [record("q2", ROTATE), record("q1", "how do i rotate  the api KEY?")]
    assert find_leaks(chunks_of(docs), twins) == []  # one quotation, one needle: under the threshold
    docs["note.md"] += f"\n{BACKUP}\n"
    findings = find_leaks(chunks_of(docs), [*twins, record("q3", BACKUP)])
    assert quoted_ids(findings[0]) == ["q2", "q3"]  # the first record in file order names the needle


def test_a_needle_contained_in_another_found_needle_is_dropped():
    short, long = "cross-encoder reranking", "How does cross-encoder reranking work?"
    recs = [record("q1", short), record("q2", long), record("q3", BACKUP)]
    only_long = {"note.md": f"# Notes\n\n{long}\n"}
    assert find_leaks(chunks_of(only_long), recs) == []
    long_and_other = {"note.md": f"# Notes\n\n{long}\n\n{BACKUP}\n"}
    assert quoted_ids(find_leaks(chunks_of(long_and_other), recs)[0]) == ["q2", "q3"]
    # Dropping comes before the exemption: the exempt long quote still explains the short one.
    recs[1] = record("q2", long, ("note.md",))
    assert find_leaks(chunks_of(long_and_other), recs) == []


def test_a_document_answering_a_query_is_exempt_for_it_as_a_whole():
    docs = {"guide.md": f"# Keys\n\n{ROTATE}\n\n# Storage\n\n{BACKUP}\n"}
    chunks = chunks_of(docs)
    assert len(chunks) == 2  # the two quotes sit in different sections
    assert paths(find_leaks(chunks, [record("q1", ROTATE), record("q2", BACKUP)])) == ["guide.md"]
    assert find_leaks(chunks, [record("q1", ROTATE, ("guide.md",)), record("q2", BACKUP)]) == []
    assert find_leaks(chunks, [record("q1", ROTATE, ("other.md",)), record("q2", BACKUP)]) != []
    # a folded needle is exempt when any record sharing the wording answers in the document
    folded = [record("q1", ROTATE), record("q1b", ROTATE.upper(), ("guide.md",)), record("q2", BACKUP)]
    assert find_leaks(chunks, folded) == []


def test_two_distinct_quoted_queries_are_needed():
    recs = [record("q1", ROTATE), record("q2", BACKUP), record("q3", VPN)]
    once = {"note.md": f"# Notes\n\n{ROTATE}\n\n{ROTATE}\n\n## Again\n\n{ROTATE}\n"}
    assert find_leaks(chunks_of(once), recs) == []
    twice = {"note.md": f"# Notes\n\n{ROTATE}\n\n## Later\n\n{VPN}\n", "clean.md": "# Clean\n\nNothing here.\n"}
    assert find_leaks(chunks_of(twice), recs) == [
        {"check": LEAK_CHECK, "path": "note.md",
         "quoted": [{"query_id": "q1", "rank_in_top_k": None}, {"query_id": "q3", "rank_in_top_k": None}]}]


def test_a_quote_split_across_heading_and_body_is_not_seen():
    docs = {"note.md": f"# Notes\n\n## How do I rotate\n\nthe API key?\n\n{BACKUP}\n"}
    chunks = chunks_of(docs)
    assert any(c.heading == "How do I rotate" for c in chunks)
    assert find_leaks(chunks, [record("q1", ROTATE), record("q2", BACKUP)]) == []


def test_a_quote_split_across_two_chunks_is_not_seen():
    filler = "x" * 30
    docs = {"note.md": f"{filler} How do I rotate\n\nthe API key? {filler}\n\n{BACKUP}\n"}
    chunks = chunks_of(docs, max_chars=60)
    assert len(chunks) == 3
    assert normalise(ROTATE) in normalise(" ".join(c.text for c in chunks))  # joined, it would match
    assert find_leaks(chunks, [record("q1", ROTATE), record("q2", BACKUP)]) == []


def test_heading_and_breadcrumb_fields_are_scanned():
    # A YAML-escaped title: the parsed title quotes the query, the raw front matter does not.
    docs = {"note.md": "---\ntitle: 'Don''t rotate the API key at night'\n---\n\n## Where are nightly backups "
                       "stored?\n\nBody text.\n"}
    chunks = chunks_of(docs)
    dont = "don't rotate the API key at night"
    assert all(normalise(dont) not in normalise(c.text) for c in chunks)
    assert any(c.breadcrumb.startswith("Don't rotate") for c in chunks)
    findings = find_leaks(chunks, [record("q1", dont), record("q2", BACKUP)])
    assert paths(findings) == ["note.md"] and quoted_ids(findings[0]) == ["q1", "q2"]


def test_ranks_are_the_best_of_the_records_sharing_a_needle_and_the_warning_names_both_causes():
    docs = {"note.md": f"# Notes\n\n{ROTATE}\n\n{BACKUP}\n"}
    recs = [record("q1", ROTATE), record("q1b", ROTATE.lower()), record("q2", BACKUP)]
    ranks = {"q1": {"note.md": 4}, "q1b": {"note.md": 2}, "q2": {"other.md": 1}}
    findings = find_leaks(chunks_of(docs), recs, ranks)
    assert findings[0]["quoted"] == [{"query_id": "q1", "rank_in_top_k": 2}, {"query_id": "q2", "rank_in_top_k": None}]
    warning = format_warning(findings, k=5)
    assert "note.md" in warning and "q1 (rank 2)" in warning and "q2 (not in top 5)" in warning
    assert "note about the evaluation" in warning and "expected answer" in warning
    assert "rank" not in format_warning(findings).split("\n")[1]  # no retrieval: no ranks claimed
    assert format_warning([]) == ""


def test_leak_locations_point_at_the_quoted_text_in_the_document():
    raw = f"# Notes\n\n## {VPN}\n\nSee: where are NIGHTLY\u3000backups\n stored? (twice)\n"
    doc = make_document("note.md", raw)
    chunks = chunks_of({"note.md": raw})
    recs = [record("q1", VPN), record("q2", BACKUP)]
    finding = find_leaks(chunks, recs)[0]
    locs = leak_locations(chunks, finding, recs, docs={"note.md": doc})
    placed = {(loc.query_id, loc.field): doc.text[loc.doc_start:loc.doc_end] for loc in locs
              if loc.doc_start is not None}
    assert placed == {("q1", "heading"): VPN, ("q2", "body"): "where are NIGHTLY\u3000backups\n stored?"}
    crumb = [loc for loc in locs if loc.field == "breadcrumb"]
    assert [(loc.query_id, loc.text[loc.start:loc.end]) for loc in crumb] == [("q1", VPN)]
    assert crumb[0].doc_start is None
    assert all(normalise(loc.text[loc.start:loc.end]) == normalise(r.question.query)
               for loc in locs for r in recs if r.question.id == loc.query_id)


def test_leak_locations_survive_case_mappings_that_change_length():
    query = "İstanbul office backup policy"  # "İ".lower() is two code points
    raw = f"# Notes\n\nOur İstanbul  Office backup policy.\n\n{BACKUP}\n"
    chunks = chunks_of({"note.md": raw})
    recs = [record("q1", query), record("q2", BACKUP)]
    finding = find_leaks(chunks, recs)[0]
    body = [loc for loc in leak_locations(chunks, finding, recs) if loc.field == "body"]
    assert [loc.text[loc.start:loc.end] for loc in body] == ["İstanbul  Office backup policy", BACKUP]


# --- the command ---------------------------------------------------------------------------------------------

def make_project(root: Path, docs: dict[str, str], questions: list[dict]) -> Path:
    for doc_id, text in docs.items():
        path = root / "corpus" / doc_id
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "golden").mkdir()
    (root / "golden" / "questions.jsonl").write_text(
        "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")
    return root


QUESTIONS = [
    {"id": "q1", "query": ROTATE, "expected_answer": "Run keys rotate.",
     "locators": [{"doc": "ops/keys.md", "quote": "Run keys rotate"}]},
    {"id": "q2", "query": BACKUP, "expected_answer": "In the cold bucket.",
     "locators": [{"doc": "ops/backups.md", "quote": "kept in the cold bucket"}]},
    {"id": "q3", "query": VPN, "expected_answer": "", "locators": [], "unanswerable": True},
]
SOURCES = {
    "ops/keys.md": "# Keys\n\nRun keys rotate, then redeploy.\n",
    "ops/backups.md": "# Backups\n\nNightly backups are kept in the cold bucket.\n",
}


def test_cli_clean_corpus_reports_an_empty_findings_list(tmp_path, capsys):
    root = make_project(tmp_path, SOURCES, QUESTIONS)
    assert main(["leaks", "--root", str(root), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {"findings": []}
    assert err == ""


def test_cli_one_note_quoting_two_queries_is_one_finding_and_exit_zero(tmp_path, capsys):
    note = f"# Eval notes\n\n## {ROTATE}\n\nWe also ask: `{VPN}`\n"
    root = make_project(tmp_path, {**SOURCES, "notes/eval.md": note}, QUESTIONS)
    assert main(["leaks", "--root", str(root), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {"findings": [
        {"check": LEAK_CHECK, "path": "notes/eval.md",
         "quoted": [{"query_id": "q1", "rank_in_top_k": None}, {"query_id": "q3", "rank_in_top_k": None}]}]}
    assert len(err.splitlines()) == 1 and "1 document quotes two or more" in err  # JSON lists it: one line
    assert main(["leaks", "--root", str(root)]) == 0
    out, err = capsys.readouterr()
    assert "notes/eval.md" in out and "note about the evaluation" in err
    assert "notes/eval.md" in err and "q1, q3" in err and "expected answer" in err


def test_cli_refuses_to_scan_when_the_build_has_label_errors(tmp_path, capsys):
    broken = [{**QUESTIONS[0], "locators": [{"doc": "ops/keys.md", "quote": "no such text"}]}]
    root = make_project(tmp_path, SOURCES, broken)
    assert main(["leaks", "--root", str(root), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["errors"][0]["id"] == "q1" and "findings" not in report


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_cli_invalid_questions_exit_two(tmp_path, capsys, fmt):
    root = make_project(tmp_path, SOURCES, [])
    (root / "golden" / "questions.jsonl").write_text("{not json\n", encoding="utf-8")
    assert main(["leaks", "--root", str(root), "--format", fmt]) == 2
