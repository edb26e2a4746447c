"""The app's state and journal, without a terminal: the rules the screens rely on."""

from __future__ import annotations

import json

import pytest

from helpers_app import write_small_project
from labeller.app.journal import Journal, JournalEntry, JournalError
from labeller.core.nudge import nudge_range, quote_from_range
from labeller.app.session.drafts import Draft, LocatorDraft, next_record_id
from labeller.app.session.filters import QuestionFilter
from labeller.app.session.preview import (COPY_WARN_THRESHOLD, copy_score, locator_statuses,
                                          resolve_locators)
from labeller.app.session.session import AuthoringSession
from labeller.app.widgets.document_view import display_text, line_starts
from labeller.core.corpus import make_document


@pytest.fixture
def session(tmp_path):
    s = AuthoringSession.open(write_small_project(tmp_path / "proj"))
    s.prepare()
    s.store(s.compute(s.snapshot()))
    return s


def test_next_record_id_follows_the_last_numbered_style():
    assert next_record_id(["q001", "q013", "q002"]) == "q014"  # the last id's prefix, its highest number + 1
    assert next_record_id(["ops-7", "ops-12"]) == "ops-13"
    assert next_record_id([]) == "q001"
    assert next_record_id(["intro", "faq"]) == "q001"
    assert next_record_id(["q9"]) == "q10"


def test_nudge_range_moves_by_whitespace_words():
    text = "alpha beta  gamma\ndelta"
    s, e = text.index("beta"), text.index("beta") + 4
    assert text.__getitem__(slice(*nudge_range(text, s, e, "grow_start"))) == "alpha beta"
    assert text.__getitem__(slice(*nudge_range(text, s, e, "grow_end"))) == "beta  gamma"
    g = text.index("gamma")
    assert text.__getitem__(slice(*nudge_range(text, g, g + 5, "grow_end"))) == "gamma\ndelta"
    assert nudge_range(text, s, e, "shrink_start") is None, "the quote keeps at least one word"
    assert nudge_range(text, 0, 5, "grow_start") is None, "nothing left to add"
    two = (0, text.index("beta") + 4)
    assert text.__getitem__(slice(*nudge_range(text, *two, "shrink_start"))) == "beta"
    assert text.__getitem__(slice(*nudge_range(text, *two, "shrink_end"))) == "alpha"


def test_quote_from_range_is_the_folded_canonical_text():
    doc = make_document("d.md", "one\n  two\u2028three\n")
    assert quote_from_range(doc, 0, len(doc.text)) == "one two three"


def test_display_text_keeps_lengths_and_lf_lines():
    raw = "a\u2028b\x1b[31mc\td\x0ce\u202ef\n\ng\u2029"
    shown = display_text(raw)
    assert len(shown) == len(raw)
    assert shown.splitlines() == shown.split("\n"), "str.splitlines (TextArea's rows) now breaks at LF only"
    assert "\x1b" not in shown and "\u2028" not in shown and "\u202e" not in shown
    assert shown.index("\t") == raw.index("\t")
    assert line_starts("ab\ncd\n") == [0, 3, 6]


def test_copy_score_threshold():
    span = "Run `keys rotate` to issue a new API key, then redeploy every service."
    assert copy_score("issue a new API key then redeploy", span) >= COPY_WARN_THRESHOLD
    assert copy_score("How do I rotate the API key?", span) < COPY_WARN_THRESHOLD


def test_filter_matches_text_tag_split_status():
    d = Draft(id="q1", query="Where is the VPN guide?", expected_answer="wiki", tags=("it",), split="dev")
    assert QuestionFilter(text="vpn WIKI").matches(d, "resolved")
    assert not QuestionFilter(text="printer").matches(d, "resolved")
    assert QuestionFilter(tag="it", split="dev", status="resolved").matches(d, "resolved")
    assert not QuestionFilter(status="stale").matches(d, "resolved")
    assert not QuestionFilter(tag="hr").matches(d, "resolved")


def test_statuses(session):
    assert [session.status(i)[0] for i in session.order] == ["resolved", "resolved", "resolved", "unanswerable"]
    session.set_locator("q001", 0, LocatorDraft(quote="keys rotate"))
    assert session.status("q001")[0] == "…", "a result computed for another draft is never shown"
    session.store_record(resolve_locators(session.project, session.draft("q001"))[0])
    assert session.status("q001")[0] == "ambiguous"
    rid = session.new_record()
    assert session.status(rid)[0] == "incomplete"


def test_locator_statuses_map_refusals_to_locators(session):
    draft = session.update("q001", locators=(LocatorDraft(doc="guide/rotate.md", quote="issue a new API key"),
                                             LocatorDraft(quote="no such words anywhere"),
                                             LocatorDraft(doc="guide/rotate.md", quote="issue a new API key"),
                                             LocatorDraft()))
    record, statuses = resolve_locators(session.project, draft)
    assert record is None  # an empty locator makes the draft incomplete
    assert statuses == ["resolved", "not found", "duplicate span", "invalid"]
    assert locator_statuses(draft, None)[3] == "invalid"


def test_every_edit_is_journaled_and_restorable(session):
    session.update("q002", query="Edited?")
    rid = session.new_record()
    session.delete_record("q003")
    entry = session.journal.read()
    assert {d["id"] for d in entry.drafts} == {"q002", rid}
    assert entry.deleted == ["q003"]
    fresh = AuthoringSession.open(session.config.root)
    assert fresh.restore(entry) == ["q002", rid]
    assert fresh.draft("q002").query == "Edited?"
    assert "q003" not in fresh.drafts
    assert fresh.order == ["q001", "q002", "q004", rid]
    session.update("q002", query="How fast must on-call answer a page?")
    session.delete_record(rid)
    session.restore(JournalEntry(questions="", base_sha256=None, drafts=[session.baseline["q003"].as_json()]))
    assert not session.dirty and not session.journal.exists(), "back to the file: no journal left"


def test_dirty_answers_follow_the_file_after_a_save(session):
    session.update("q002", query="Edited?")
    assert session.is_dirty("q002") and session.dirty
    session.save_questions()
    assert not session.is_dirty("q002") and not session.dirty  # the remembered answer went with the old file


def test_unreadable_journal_is_reported_and_set_aside(tmp_path):
    j = Journal(tmp_path / "journal.json")
    j.path.parent.mkdir(parents=True, exist_ok=True)
    j.path.write_text('{"format": "labeller-journal-v1", "drafts": [', encoding="utf-8")
    with pytest.raises(JournalError):
        j.read()
    aside = j.set_aside()
    assert aside.exists() and not j.path.exists()
    j.path.write_text(json.dumps({"format": "other"}), encoding="utf-8")
    with pytest.raises(JournalError):
        j.read()


def test_save_keeps_comments_order_and_refuses_what_the_loader_would(session):
    qpath = session.config.questions
    session.update("q003", query="How fast must on-call answer a page?")  # same query as q002
    out = session.save_questions()
    assert not out.written and "same query" in out.file_problems[0]["message"]
    assert qpath.read_text().count("How fast must") == 1, "nothing written"
    session.update("q003", query="Which day is the eu window?")
    out = session.save_questions()
    assert out.written
    lines = qpath.read_text().splitlines()
    assert lines[0].startswith("//")
    assert [json.loads(ln)["id"] for ln in lines[1:]] == ["q001", "q002", "q003", "q004"]
    assert not session.disk_changed()
    assert session.rebuild(out).artifact_written


def test_save_reports_label_errors_and_leaves_the_artifact(session):
    out = session.save_questions()
    session.rebuild(out)
    artifact = session.config.layout.artifact.read_bytes()
    session.set_locator("q001", 0, LocatorDraft(quote="keys rotate"))
    out = session.rebuild(session.save_questions())
    assert out.written and not out.artifact_written
    assert "q001" in out.artifact_reason and "left as it was" in out.message()
    assert session.config.layout.artifact.read_bytes() == artifact


def test_apply_suggestion(session):
    session.set_locator("q001", 0, LocatorDraft(doc="guide/rotate.md", quote="keys rotate"))
    occ = {"doc": "guide/rotate.md", "char_start": 219, "char_end": 230, "extension": "keys rotate on",
           "context": {"suffix": " on"}}
    assert session.apply_suggestion("q001", 0, occ) == LocatorDraft(doc="guide/rotate.md", quote="keys rotate",
                                                                  suffix=" on"), "picking never widens the quote"
    no_context = {**occ, "context": None}  # no context singles it out: the longer quote is the fallback
    assert session.apply_suggestion("q001", 0, no_context).quote == "keys rotate on"
    near = {"doc": "ops/oncall.md", "quote": "answers pages", "unique": False}
    session.set_locator("q001", 0, LocatorDraft(quote="answer pages"))
    assert session.apply_suggestion("q001", 0, near) == LocatorDraft(doc="ops/oncall.md", quote="answers pages")
    section = {"doc": "guide/rotate.md", "heading": "Checklist"}
    assert session.apply_suggestion("q001", 0, section) == LocatorDraft(doc="guide/rotate.md", heading="Checklist")


def test_coverage_adds_tags_to_the_build_summary(session):
    result = session.compute(session.snapshot())
    cov = session.coverage(result)
    assert cov["labels_per_doc"] == result.summary["labels_per_doc"]
    assert cov["labels_per_tag"] == {"(no tag)": {"records": 1, "spans": 0}, "oncall": {"records": 1, "spans": 1},
                                     "ops": {"records": 2, "spans": 2}}
    assert (cov["single"], cov["multi"], cov["negative"]) == (3, 0, 1)


def test_drafts_have_exactly_the_core_models_fields():
    """Drafts mirror no field of their own: a field added to ``Question`` or ``Locator``
    must be added to the draft, or the draft would silently drop it on save."""
    from dataclasses import fields

    from labeller.core.models import Locator, Question

    assert {f.name for f in fields(Draft)} == set(Question.model_fields)
    # ``whole``: the editor's explicit "label the whole document" (a {doc} on disk), not a field
    assert {f.name for f in fields(LocatorDraft)} - {"whole"} == set(Locator.model_fields)


def test_the_app_imports_no_command_module():
    """Layers point one way: the app may use commands' building blocks only through the
    layers below them (``labeller.review.reviewers``, the core), never ``labeller.commands``."""
    import ast
    from pathlib import Path

    import labeller.app

    bad = []
    for path in Path(labeller.app.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            bad += [f"{path.name}:{node.lineno} {n}" for n in names if n.startswith("labeller.commands")]
    assert not bad, bad


def test_a_record_with_context_survives_an_edit_and_a_save(tmp_path):
    """A locator's prefix/suffix is part of the label: an app that dropped it on save would
    silently move the label to another copy of the passage (or refuse it as ambiguous)."""
    root = write_small_project(tmp_path / "proj")
    qpath = root / "golden" / "questions.jsonl"
    locators = [{"doc": "guide/rotate.md", "quote": "keys rotate", "suffix": " on"}]
    rec = {"id": "ctx-1", "query": "Which region is rotated first?", "expected_answer": "the primary region",
           "locators": locators}
    before = qpath.read_text(encoding="utf-8") + json.dumps(rec) + "\n"
    qpath.write_text(before, encoding="utf-8")
    s = AuthoringSession.open(root)
    s.prepare()
    s.store(s.compute(s.snapshot()))
    assert s.status("ctx-1")[0] == "resolved"
    s.update("ctx-1", query="Which region has its keys rotated first?")
    assert s.save_questions().written
    after = qpath.read_text(encoding="utf-8").splitlines(keepends=True)
    assert after[:-1] == before.splitlines(keepends=True)[:-1], "untouched records stay byte-identical"
    assert json.loads(after[-1])["locators"] == locators


def test_a_selection_of_one_copy_labels_that_copy(session):
    """Selecting one of two identical passages writes the shortest context that picks it,
    pinned to its document; the quote (and so the span) stays what was selected."""
    text = session.project.corpus["guide/rotate.md"].text
    second = text.index("keys rotate", text.index("keys rotate") + 1)
    loc = session.locator_for_range(LocatorDraft(), "guide/rotate.md", second - 1, second + len("keys rotate") + 1)
    assert (loc.doc, loc.quote, loc.prefix, loc.suffix) == ("guide/rotate.md", "keys rotate", None, " on")
    found = session.project.resolver.locate(loc.to_locator())
    assert (found.doc, found.start, found.end) == ("guide/rotate.md", second, second + len("keys rotate"))
    first = text.index("keys rotate")
    assert session.locator_for_range(LocatorDraft(), "guide/rotate.md", first, first + 11).suffix == "`"


def test_undo_of_a_saved_delete_puts_the_record_back_in_its_place(tmp_path):
    """Delete, save, undo, save: the file is byte-identical to where it started and the
    golden set built from it is up to date (the restored record used to land at the end)."""
    from labeller.cli import main

    root = write_small_project(tmp_path / "proj")
    qpath = root / "golden" / "questions.jsonl"
    assert main(["build", "--root", str(root)]) == 0
    before = qpath.read_bytes()
    s = AuthoringSession.open(root)
    s.prepare()
    s.store(s.compute(s.snapshot()))
    first = s.rows()[0][0].id
    s.delete_record(first)
    s.finish_save(s.rebuild(s.save_questions()))
    assert qpath.read_bytes() != before
    s.undo()
    s.finish_save(s.rebuild(s.save_questions()))
    assert qpath.read_bytes() == before
    assert main(["build", "--check", "--root", str(root)]) == 0
