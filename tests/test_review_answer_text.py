"""A review pins the answer text it read (candidate 20): a label whose paragraph is rewritten under
an intact quote needs re-review, in the log's status, ``review --summary``, ``build --check
--require-reviewed`` (text, JSON, Markdown), the review queue and the review screen's model."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from helpers_review import GUIDE, OPS, make_project
from labeller.cli import main
from labeller.core.build import answers_now, resolve_record
from labeller.core.answer_text import answer_digest
from labeller.app.session.review import ReviewSession, review_queue
from labeller.review.adjudicate import adjudicate
from labeller.review.log import ReviewEntry, append_review, new_entry, read_review_log, unreviewed_or_stale

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
# q1's quote "every ninety days" kept, the rest of its paragraph rewritten
REWRITTEN = OPS.replace("Run keys rotate, then redeploy.", "Never redeploy after a rotation.")


def reviewed_project(tmp_path):
    """The review project with every record accepted in the review screen's model."""
    project = make_project(tmp_path)
    review = ReviewSession(project, ["q1", "q2", "q3", "q4"], "alice")
    review.reload()
    for _ in range(4):
        review.decide("accept")
        review.step(1)
    return project


def summary(root, capsys) -> dict:
    capsys.readouterr()
    assert main(["review", "--root", str(root), "--summary", "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_an_accept_pins_the_answer_text_and_an_unanswerable_record_has_none(tmp_path):
    project = reviewed_project(tmp_path)
    log = read_review_log(project.layout.review_log)
    qs = {q.id: q for q in project.load_questions().questions}
    q1 = log.latest("q1")
    assert q1 is not None and q1.answer_digest == answer_digest(resolve_record(project, qs["q1"]), project.corpus)
    assert len(q1.answer_digest) == 64
    unanswerable = log.latest("q4")
    assert unanswerable is not None and unanswerable.answer_digest == ""
    assert "answer_digest" not in unanswerable.as_json()  # written as entries were before it was kept


def test_a_paragraph_rewritten_under_an_intact_quote_needs_re_review(tmp_path, capsys):
    project = reviewed_project(tmp_path)
    root = project.config.root
    assert summary(root, capsys) == {"records": 4, "reviewed": 4, "needs_rereview": 0, "flagged": 0,
                                     "unreviewed": 0, "needs_review": 0, "answer_changed": 0}
    (root / "corpus" / "ops.md").write_text(REWRITTEN, encoding="utf-8")
    assert summary(root, capsys) == {"records": 4, "reviewed": 3, "needs_rereview": 1, "flagged": 0,
                                     "unreviewed": 0, "needs_review": 0, "answer_changed": 1}
    assert main(["review", "--root", str(root), "--summary"]) == 0
    assert "needs re-review: its answer text changed since the review: q1  (last accept by alice)" in \
        capsys.readouterr().out
    assert main(["build", "--root", str(root)]) == 0  # the artifact regenerated: the review still stands apart
    capsys.readouterr()
    assert main(["build", "--root", str(root), "--check", "--require-reviewed", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["not_reviewed"] == {"q1": "answer_changed"}
    assert main(["build", "--root", str(root), "--check", "--require-reviewed"]) == 1
    assert "q1: needs re-review: its answer text changed since the review" in capsys.readouterr().err
    assert main(["build", "--root", str(root), "--check", "--require-reviewed", "--format", "markdown"]) == 1
    assert "| q1 | needs re\\-review\\: its answer text changed since the review |" in capsys.readouterr().out


def test_re_wrapped_or_elsewhere_edited_text_keeps_the_review(tmp_path, capsys):
    """Whitespace is folded as a quote matches it, and text no label covers is nobody's answer."""
    project = reviewed_project(tmp_path)
    root = project.config.root
    (root / "corpus" / "ops.md").write_text(OPS.replace("ninety days. Run keys", "ninety days.\nRun   keys"),
                                            encoding="utf-8")
    (root / "corpus" / "guide.md").write_text(GUIDE.replace("Tuesdays", "Thursdays"), encoding="utf-8")
    assert main(["build", "--root", str(root)]) == 0
    assert summary(root, capsys)["reviewed"] == 4
    assert main(["build", "--root", str(root), "--check", "--require-reviewed"]) == 0


def test_accepting_again_pins_the_new_text_and_the_queue_puts_it_first(tmp_path):
    project = reviewed_project(tmp_path)
    (project.config.root / "corpus" / "ops.md").write_text(REWRITTEN, encoding="utf-8")
    project = make_project_again(project)
    questions = project.load_questions().questions
    answers = answers_now(project, questions)
    assert review_queue(project, answers) == ["q1"]
    assert review_queue(project, {}) == ["q1", "q2", "q3", "q4"]  # nothing compared: all reviewed, every record
    review = ReviewSession(project, ["q1"], "bob")
    review.reload()
    q1 = review.current()
    assert review.status(q1) == "needs_rereview"
    assert review.status_label(q1) == "needs re-review: its answer text changed since the review"
    review.decide("accept")
    assert review.status(q1) == "reviewed" and review.status_label(q1) == "reviewed"
    assert unreviewed_or_stale(project.config, questions, answers=answers_now(project, questions)) == {}


def make_project_again(project):
    """The same project read afresh (a ``Project`` keeps the corpus it read first)."""
    from labeller.core.project import Project

    return Project(project.config)


def test_old_entries_and_unresolved_records_are_judged_by_the_record_alone(tmp_path):
    project = make_project(tmp_path)
    qs = {q.id: q for q in project.load_questions().questions}
    old = new_entry(qs["q1"], "alice", "accept", now=T0)  # written before answer digests were kept
    append_review(project.layout.review_log, old)
    log = read_review_log(project.layout.review_log)
    assert log.status(qs["q1"], {"q1": "0" * 64}) == "reviewed"
    pinned = new_entry(qs["q1"], "alice", "accept", now=T0, answer="a" * 64)
    append_review(project.layout.review_log, pinned)
    log = read_review_log(project.layout.review_log)
    assert log.status(qs["q1"], {}) == "reviewed"  # refused today: nothing to compare, the build refuses it
    assert log.status(qs["q1"], {"q1": "a" * 64}) == "reviewed"
    assert log.status(qs["q1"], {"q1": "b" * 64}) == "needs_rereview"
    edit = new_entry(qs["q1"], "alice", "edit", now=T0, answer="a" * 64)
    assert not read_review_log(project.layout.review_log).answer_changed(qs["q1"], {"q1": "a" * 64})
    append_review(project.layout.review_log, edit)
    log = read_review_log(project.layout.review_log)
    assert log.status(qs["q1"], {"q1": "a" * 64}) == "needs_rereview"
    assert not log.answer_changed(qs["q1"], {"q1": "b" * 64})


def test_an_answer_digest_round_trips_and_a_bad_one_is_an_ignored_line(tmp_path):
    project = make_project(tmp_path)
    qs = {q.id: q for q in project.load_questions().questions}
    entry = new_entry(qs["q1"], "alice", "flag", "which paragraph?", now=T0, answer="c" * 64)
    assert ReviewEntry.from_json(json.loads(json.dumps(entry.as_json()))) == entry
    path = project.layout.review_log
    append_review(path, entry)
    with path.open("a", encoding="utf-8") as f:
        for bad in ("x" * 64, 7, None):
            f.write(json.dumps(entry.as_json() | {"answer_digest": bad}) + "\n")
    log = read_review_log(path)
    assert log.entries == [entry]
    assert [p.line for p in log.problems] == [2, 3, 4]
    assert all("answer_digest is not a sha256 hex digest" in p.message for p in log.problems)


def test_an_adjudicated_accept_pins_the_text_of_the_record_it_wrote(tmp_path):
    project = make_project(tmp_path)
    q1 = next(q for q in project.load_questions().questions if q.id == "q1")
    result = adjudicate(project, q1, [], "keep_a", "carol", "bob")
    entry = read_review_log(project.layout.review_log).latest("q1")
    assert entry is not None and entry.decision == "accept"
    assert entry.answer_digest == answer_digest(resolve_record(project, result), project.corpus)


def test_the_review_screen_says_the_answer_text_changed_and_a_accepts_the_new_text(tmp_path):
    import asyncio

    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.review import ReviewScreen
    from test_review_app import SIZE, text_of

    project = reviewed_project(tmp_path)
    (project.config.root / "corpus" / "ops.md").write_text(REWRITTEN, encoding="utf-8")
    project = make_project_again(project)

    async def session() -> None:
        app = ScreenApp(lambda: ReviewScreen(project, ["q1"], "bob"))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert "needs re-review: its answer text changed since the review" in text_of(app.screen, "#rv-head")
            assert "Never redeploy after a rotation." in text_of(app.screen, "#rv-record")
            await pilot.press("a")
            await pilot.pause()
            assert "reviewed" in text_of(app.screen, "#rv-head")
            assert "answer text changed" not in text_of(app.screen, "#rv-head")

    asyncio.run(session())
    q1 = next(q for q in project.load_questions().questions if q.id == "q1")
    assert read_review_log(project.layout.review_log).status(q1, answers_now(project, [q1])) == "reviewed"


def test_only_the_records_whose_review_pinned_a_text_are_read(tmp_path, monkeypatch):
    """The build asks for today's digests lazily: a log without pinned texts folds no span (a
    10 MB golden set's took ``build --check`` 0.3 s), one pinned entry folds one record's."""
    from labeller.core import answer_text

    project = make_project(tmp_path)
    qs = project.load_questions().questions
    for q in qs:
        append_review(project.layout.review_log, new_entry(q, "alice", "accept", now=T0))
    read = []
    real = answer_text.answer_digest
    monkeypatch.setattr(answer_text, "answer_digest",
                        lambda rec, corpus, memo: read.append(rec.question.id) or real(rec, corpus, memo))
    answers = answers_now(project, qs)
    assert unreviewed_or_stale(project.config, qs, answers=answers) == {} and read == []
    append_review(project.layout.review_log, new_entry(qs[1], "alice", "accept", now=T0, answer="d" * 64))
    assert unreviewed_or_stale(project.config, qs, answers=answers) == {"q2": "answer_changed"}
    assert read == ["q2"]
    assert dict(answers).keys() == {"q1", "q2", "q3"}  # q4 is unanswerable: no spans, no digest


def test_records_sharing_a_span_fold_it_once(tmp_path, monkeypatch):
    """A planted questions file may point ten thousand records at one huge table: each distinct
    span is folded once, whatever the number of records over it."""
    from labeller.core import answer_text

    same = [{"id": f"s{i}", "query": f"Where is the key rotated, take {i}?", "expected_answer": "x",
             "locators": [{"doc": "ops.md", "quote": "every ninety days"}]} for i in range(40)]
    project = make_project(tmp_path, same)
    qs = project.load_questions().questions
    folds = []
    real = answer_text.folded
    monkeypatch.setattr(answer_text, "folded", lambda text: folds.append(len(text)) or real(text))
    answers = answers_now(project, qs)
    assert len({answers[q.id] for q in qs}) == 1 and len(folds) == 1
