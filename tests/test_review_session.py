"""The review round's models (``labeller.app.session.review``), driven without Textual: what each
decision reads and writes, and what the screens are told when something is refused."""

from __future__ import annotations

import pytest

from labeller.app.session.review import (AdjudicateSession, AnnotateSession, RecordCursor, ReviewSession,
                                         checked_reviewer, review_queue, reviewer_from_environment)
from labeller.core.models import Locator, Question
from labeller.errors import LabellerError
from labeller.review.annotations import load_annotations
from labeller.review.log import append_review, new_entry, read_review_log

from helpers_review import make_project


def by_id(project) -> dict[str, Question]:
    return {q.id: q for q in project.load_questions().questions}


def test_the_cursor_never_moves_past_either_end():
    cursor = RecordCursor(["a", "b"])
    cursor.step(-1)
    assert (cursor.index, cursor.record_id) == (0, "a")
    cursor.step(1)
    cursor.step(1)
    assert (cursor.index, cursor.record_id) == (1, "b")
    empty = RecordCursor([])
    empty.step(1)
    assert (empty.index, empty.record_id) == (0, None)


def test_a_decision_is_appended_for_the_current_record_and_read_back(tmp_path):
    project = make_project(tmp_path)
    review = ReviewSession(project, ["q1", "q2"], "alice")
    review.reload()
    decided = review.decide("accept")
    assert decided == by_id(project)["q1"]
    assert review.status(decided) == "reviewed"  # the log was read again
    [entry] = read_review_log(project.layout.review_log).entries
    assert (entry.record_id, entry.reviewer, entry.decision) == ("q1", "alice", "accept")
    review.step(1)
    with pytest.raises(LabellerError, match="a flag needs a comment"):
        review.decide("flag", "  ")
    assert review.decide("flag", "wrong span").id == "q2"
    assert review.latest("q2").comment == "wrong span"


def test_an_unreadable_file_keeps_the_last_good_state_and_says_why(tmp_path):
    project = make_project(tmp_path)
    review = ReviewSession(project, ["q1", "gone"], "alice")
    review.reload()
    q1 = review.current()
    questions = project.config.questions
    questions.write_bytes(questions.read_bytes() + b"{not json\n")
    review.reload()
    assert "problem(s) in the questions file" in review.load_error and review.current() == q1
    review.step(1)
    assert review.current() is None and review.decide("accept") is None  # a record no longer in the file


def test_an_edit_is_written_and_needs_review_again(tmp_path):
    project = make_project(tmp_path)
    review = ReviewSession(project, ["q3"], "alice")
    review.reload()
    review.decide("accept")
    q3 = review.current()
    edited = Question.model_validate(q3.as_json() | {"locators": [{"doc": "ops.md", "quote": "| retention |"}]})
    review.save_edit(q3, edited)
    review.reload()
    assert review.current() == edited and review.status(edited) == "needs_rereview"


def test_the_queue_puts_the_urgent_first_and_falls_back_to_every_record(tmp_path):
    project = make_project(tmp_path)
    assert review_queue(project, {}) == ["q1", "q2", "q3", "q4"]  # none reviewed: all, in file order
    qs = by_id(project)
    log = project.layout.review_log
    append_review(log, new_entry(qs["q3"], "alice", "flag", "which row?"))
    for rid in ("q1", "q2", "q4"):
        append_review(log, new_entry(qs[rid], "alice", "accept"))
    assert review_queue(project, {}) == ["q3"]
    append_review(log, new_entry(qs["q3"], "alice", "accept"))
    assert review_queue(project, {}) == ["q1", "q2", "q3", "q4"]  # nothing left: every record


def test_the_reviewer_comes_from_the_environment_or_a_checked_name(monkeypatch):
    monkeypatch.delenv("LABELLER_REVIEWER", raising=False)
    assert reviewer_from_environment() is None
    monkeypatch.setenv("LABELLER_REVIEWER", "Ada Reviewer")
    assert reviewer_from_environment() == "Ada Reviewer"
    monkeypatch.setenv("LABELLER_REVIEWER", "bad\x1bname")
    with pytest.raises(LabellerError, match="reviewer name"):
        reviewer_from_environment()
    assert checked_reviewer("  Bo  ") == "Bo"
    with pytest.raises(LabellerError):
        checked_reviewer("   ")


def test_annotation_adds_only_what_resolves_to_a_new_block_and_saves_each_change(tmp_path):
    project = make_project(tmp_path)
    annotate = AnnotateSession(project, ["q1", "q2"], "bob")
    annotate.load()
    assert annotate.query().query == by_id(project)["q1"].query and annotate.locators() is None
    assert annotate.add(Locator(quote="keys rotate")) is None
    assert annotate.add(Locator(quote="Run keys rotate")) == "not added: same block as locator 1"
    assert annotate.add(Locator(quote="words that are nowhere")) == "not added: not_found"
    assert annotate.where(annotate.resolve(Locator(quote="keys rotate"))) == "paragraph ops.md:3"
    assert annotate.add(Locator(quote="Deploys happen")) is None
    assert [loc.quote for loc in load_annotations(project.config, "bob").get("q1")] == ["keys rotate",
                                                                                      "Deploys happen"]
    assert annotate.toggle_no_answer() == "remove the locators first (d) to mark this record as having no answer"
    assert annotate.remove(0) and not annotate.remove(None)
    assert annotate.remove(0) and annotate.locators() is None  # the last one removed: not annotated
    assert annotate.toggle_no_answer() is None and annotate.locators() == []
    assert annotate.done == 1
    annotate.step(1)
    assert annotate.toggle_no_answer() is None
    assert load_annotations(project.config, "bob").records == {"q1": [], "q2": []}


def test_adjudication_decides_on_annotated_records_and_starts_a_rewrite_from_the_union(tmp_path):
    project = make_project(tmp_path)
    b2 = [Locator(quote="Restores are tested monthly"), Locator(quote="snapshots are taken hourly")]
    ann = load_annotations(project.config, "bob")
    ann.set("q2", b2)
    ann.save()
    adjudicate = AdjudicateSession(project, "bob", "carol", ["q1", "q2"])
    adjudicate.reload()
    assert adjudicate.current() is None and adjudicate.decide("merge") is None  # q1: not annotated
    adjudicate.step(1)
    q2, b = adjudicate.current()
    a_res, b_res = adjudicate.sides(q2, b)
    assert adjudicate.agreement(a_res, b_res).exact_match is False
    start = adjudicate.rewrite_start(q2, b)
    assert [loc.quote for loc in start.locators] == ["nightly at 02:00", "snapshots are taken hourly"]
    assert adjudicate.decide("keep_b").id == "q2"
    assert [loc.quote for loc in by_id(project)["q2"].locators] == [loc.quote for loc in b2]
    assert adjudicate.last_adjudication("q2").comment == "adjudicated against bob: keep_b"
    assert adjudicate.last_adjudication("q2").reviewer == "carol"
