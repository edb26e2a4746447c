"""The review log: digests, statuses, and surviving a crash in the middle of an append."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import pytest

from labeller.core.models import Question
from labeller.errors import InvalidInput
from labeller.review.log import (ReviewEntry, append_review, build_review_summary, new_entry, read_review_log,
                                 record_digest, unreviewed_or_stale)

from helpers_review import QUESTIONS, make_project

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def q(i: int) -> Question:
    return Question.model_validate(QUESTIONS[i])


def edited(question: Question, **changes) -> Question:
    return Question.model_validate(question.as_json() | changes)


def test_digest_is_sha256_of_sorted_canonical_json():
    # {"expected_answer":..,"id":..,"locators":[{"doc":..,"quote":..}],"query":..,"split":..,"tags":[..]}
    # compact separators, keys sorted, defaults (hop single) left out as questions.jsonl leaves them out.
    want = hashlib.sha256(('{"expected_answer":"Every ninety days.","id":"q1","locators":[{"doc":"ops.md",'
                           '"quote":"every ninety days"}],"query":"How often is the API key rotated?",'
                           '"split":"dev","tags":["ops"]}').encode()).hexdigest()
    assert record_digest(q(0)) == want
    shuffled = dict(reversed(list(QUESTIONS[0].items())))
    assert record_digest(Question.model_validate(shuffled | {"hop": "single"})) == want
    assert record_digest(edited(q(0), query="How often do keys rotate?")) != want


def test_status_follows_latest_decision_and_current_digest(tmp_path):
    path = tmp_path / "reviews.jsonl"
    q1, q2, q3, q4 = q(0), q(1), q(2), q(3)
    append_review(path, new_entry(q1, "alice", "accept", now=T0))
    append_review(path, new_entry(q2, "alice", "flag", "wrong paragraph", now=T0))
    append_review(path, new_entry(q3, "alice", "accept", now=T0))
    log = read_review_log(path)
    assert log.problems == []
    assert log.statuses([q1, q2, q3, q4]) == {"q1": "reviewed", "q2": "flagged", "q3": "reviewed",
                                              "q4": "unreviewed"}
    # the record changed after its review: the review no longer speaks for it
    assert log.status(edited(q3, query="How long do backups stay?")) == "needs_rereview"
    # ... and a flag on an older version is stale too (the author has presumably acted on it)
    assert log.status(edited(q2, expected_answer="At 02:00 UTC every night.")) == "needs_rereview"
    # an edit decision pins the version before the edit, so it is stale by construction
    append_review(path, new_entry(q1, "bob", "edit", now=T0))
    assert read_review_log(path).status(q1) == "needs_rereview"
    counts = read_review_log(path).counts([q1, q2, q3, q4])
    assert counts == {"records": 4, "reviewed": 1, "needs_rereview": 1, "flagged": 1, "unreviewed": 1}


def test_file_order_decides_not_the_reviewers_clocks(tmp_path):
    path = tmp_path / "reviews.jsonl"
    append_review(path, new_entry(q(0), "alice", "flag", "too short", now=datetime(2030, 1, 1, tzinfo=timezone.utc)))
    append_review(path, new_entry(q(0), "bob", "accept", now=T0))  # bob's clock is behind; he decided later
    log = read_review_log(path)
    assert log.latest("q1").reviewer == "bob"
    assert log.status(q(0)) == "reviewed"
    assert [e.decision for e in log.history("q1")] == ["flag", "accept"]


def test_entry_line_format(tmp_path):
    path = tmp_path / "golden" / "reviews.jsonl"
    append_review(path, new_entry(q(1), "alice", "flag", "  wrong paragraph ", now=T0))
    line = path.read_text(encoding="utf-8")
    assert line.endswith("\n") and line.count("\n") == 1
    assert json.loads(line) == {"record_id": "q2", "record_digest": record_digest(q(1)), "reviewer": "alice",
                                "decision": "flag", "comment": "wrong paragraph", "timestamp": "2026-01-02T03:04:05Z"}


def test_a_flag_needs_a_comment_and_decisions_are_closed():
    with pytest.raises(InvalidInput, match="flag needs a comment"):
        new_entry(q(0), "alice", "flag", "   ")
    with pytest.raises(InvalidInput, match="not one of"):
        new_entry(q(0), "alice", "approve")
    with pytest.raises(InvalidInput, match="reviewer name"):
        new_entry(q(0), "al\x1bice", "accept")


def test_truncated_last_line_is_reported_ignored_and_left_alone(tmp_path):
    path = tmp_path / "reviews.jsonl"
    append_review(path, new_entry(q(0), "alice", "accept", now=T0))
    append_review(path, new_entry(q(1), "alice", "accept", now=T0))
    whole = path.read_bytes()
    torn = whole[: len(whole) - 20]  # the second line cut mid-object, no newline
    path.write_bytes(torn)
    log = read_review_log(path)
    assert [e.record_id for e in log.entries] == ["q1"]
    assert len(log.problems) == 1
    assert log.problems[0].line == 2
    assert str(log.problems[0]).startswith(f"{path}:2: truncated last line")
    assert path.read_bytes() == torn  # reading never repairs

    # the next append starts on a line of its own and leaves the torn bytes where they were
    assert append_review(path, new_entry(q(2), "bob", "accept", now=T0)) is True
    assert path.read_bytes().startswith(torn + b"\n")
    log = read_review_log(path)
    assert [e.record_id for e in log.entries] == ["q1", "q3"]
    assert [(p.line, p.message.split(" (")[0]) for p in log.problems] == [(2, "not a valid review entry")]
    assert log.status(q(1)) == "unreviewed"


def test_invalid_lines_anywhere_are_reported_with_their_numbers(tmp_path):
    path = tmp_path / "reviews.jsonl"
    good = json.dumps(new_entry(q(0), "alice", "accept", now=T0).as_json())
    bad_decision = json.dumps(new_entry(q(1), "alice", "accept", now=T0).as_json() | {"decision": "approve"})
    head = f"{good}\n\n[1, 2]\n{bad_decision}\n".encode()
    path.write_bytes(head + b"\xff\xfe\n")
    log = read_review_log(path)
    assert [e.record_id for e in log.entries] == ["q1"]
    assert [p.line for p in log.problems] == [3, 4, 5]
    assert "must be a JSON object" in log.problems[0].message
    assert "decision 'approve'" in log.problems[1].message
    assert f"not valid UTF-8 at byte {len(head)})" in log.problems[2].message  # the offset in the file


def test_extra_keys_from_later_versions_are_accepted():
    obj = new_entry(q(0), "alice", "accept", now=T0).as_json() | {"session": "round-2"}
    assert ReviewEntry.from_json(obj).record_id == "q1"


CHILD = textwrap.dedent("""
    import os, signal, sys
    from labeller.core.models import Question
    from labeller.review import log as review_log

    def write_half_then_die(fd, data):
        os.write(fd, bytes(data[: len(data) // 2]))
        os.kill(os.getpid(), signal.SIGKILL)

    review_log.write_all = write_half_then_die
    question = Question.model_validate_json(sys.argv[2])
    review_log.append_review(sys.argv[1], review_log.new_entry(question, "crasher", "accept"))
""")


def test_a_process_killed_mid_append_loses_only_its_own_line(tmp_path):
    """Deterministic crash: the child writes half its line and SIGKILLs itself."""
    path = tmp_path / "reviews.jsonl"
    append_review(path, new_entry(q(0), "alice", "accept", now=T0))
    before = path.read_bytes()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path), json.dumps(QUESTIONS[1])], capture_output=True)
    assert proc.returncode == -signal.SIGKILL
    after = path.read_bytes()
    assert after.startswith(before) and len(after) > len(before) and not after.endswith(b"\n")
    log = read_review_log(path)
    assert [e.record_id for e in log.entries] == ["q1"]
    assert [p.line for p in log.problems] == [2]
    # the log stays usable: the next reviewer's decision lands and is read back
    append_review(path, new_entry(q(1), "bob", "accept", now=T0))
    log = read_review_log(path)
    assert log.status(q(1)) == "reviewed" and len(log.problems) == 1


def test_symlinked_log_is_refused(tmp_path):
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("", encoding="utf-8")
    link = tmp_path / "reviews.jsonl"
    os.symlink(target, link)
    with pytest.raises(InvalidInput):
        read_review_log(link)
    with pytest.raises(InvalidInput):
        append_review(link, new_entry(q(0), "alice", "accept"))
    assert target.read_text(encoding="utf-8") == ""


def test_require_reviewed_lists_every_record_not_reviewed_as_it_stands(tmp_path):
    project = make_project(tmp_path)
    cfg = project.config
    qs = project.load_questions().questions
    assert unreviewed_or_stale(cfg, qs) == {"q1": "unreviewed", "q2": "unreviewed", "q3": "unreviewed",
                                            "q4": "unreviewed"}
    for question in qs:
        append_review(cfg.layout.review_log, new_entry(question, "alice", "accept"))
    assert unreviewed_or_stale(cfg, qs) == {}
    append_review(cfg.layout.review_log, new_entry(qs[1], "bob", "flag", "the table row answers this better"))
    changed = [qs[0], qs[1], edited(qs[2], expected_answer="Thirty days."), qs[3]]
    assert unreviewed_or_stale(cfg, changed) == {"q2": "flagged", "q3": "needs_rereview"}
    counts = read_review_log(cfg.layout.review_log).counts(changed)
    assert counts == {"records": 4, "reviewed": 2, "needs_rereview": 1, "flagged": 1, "unreviewed": 0}


def test_build_summary_counts_never_fail_the_build(tmp_path):
    project = make_project(tmp_path)
    cfg = project.config
    qs = project.load_questions().questions
    assert build_review_summary(cfg, qs)[:2] == ({"records": 4, "reviewed": 0, "needs_rereview": 0, "flagged": 0,
                                                  "unreviewed": 4}, [])
    cfg.layout.review_log.write_text('{"torn', encoding="utf-8")
    counts, warnings, log = build_review_summary(cfg, qs)
    assert log is not None and log.problems.total == 1
    assert counts["unreviewed"] == 4 and len(warnings) == 1 and ":1: truncated" in warnings[0]
    cfg.layout.review_log.unlink()
    os.symlink(tmp_path / "nowhere", cfg.layout.review_log)
    counts, warnings, log = build_review_summary(cfg, qs)
    assert counts is None and log is None and "review counts skipped" in warnings[0]
    assert Path(cfg.layout.review_log).is_symlink()


def test_review_queue_puts_stale_reviews_first(tmp_path):
    path = tmp_path / "reviews.jsonl"
    q1, q2, q3, q4 = q(0), q(1), q(2), q(3)
    append_review(path, new_entry(q1, "alice", "accept", now=T0))
    append_review(path, new_entry(q2, "alice", "flag", "which backups?", now=T0))
    append_review(path, new_entry(q4, "alice", "accept", now=T0))
    log = read_review_log(path)
    current = [q1, q2, q3, edited(q4, expected_answer="Nobody: budgets are not in the corpus.")]
    # q4 changed since its review, q2 is flagged, q3 never reviewed; q1 is done
    assert log.queue(current) == ["q4", "q2", "q3"]
    assert log.queue(current, status="flagged") == ["q2"]
    assert log.queue(current, everything=True) == ["q1", "q2", "q3", "q4"]


def test_build_check_require_reviewed(tmp_path, capsys):
    from labeller.cli import main

    project = make_project(tmp_path)
    root = str(tmp_path)
    assert main(["build", "--root", root]) == 0
    capsys.readouterr()
    assert main(["build", "--root", root, "--check"]) == 0  # the log is never required without the flag
    assert main(["build", "--root", root, "--check", "--require-reviewed"]) == 1
    err = capsys.readouterr().err
    assert "4 record(s) are unreviewed" in err and "q4: unreviewed" in err
    qs = project.load_questions().questions
    for question in qs:
        append_review(project.config.layout.review_log, new_entry(question, "alice", "accept"))
    append_review(project.config.layout.review_log, new_entry(qs[2], "bob", "flag", "wrong row"))
    assert main(["build", "--root", root, "--check", "--require-reviewed", "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and out["drift"]["ok"] is True and out["not_reviewed"] == {"q3": "flagged"}
    assert out["summary"]["review"] == {"records": 4, "reviewed": 3, "needs_rereview": 0, "flagged": 1,
                                        "unreviewed": 0}
    append_review(project.config.layout.review_log, new_entry(qs[2], "bob", "accept"))
    assert main(["build", "--root", root, "--check", "--require-reviewed"]) == 0


def test_require_reviewed_reads_the_review_log_once(tmp_path, monkeypatch, capsys):
    """``build --check --require-reviewed`` judges the log the summary counted: one read of a
    file a pull request may have made 64 MiB, not two; an unreadable log still fails the gate."""
    import labeller.review.log as review_log
    from labeller.cli import main

    project = make_project(tmp_path)
    root = str(project.config.root)
    assert main(["build", "--root", root]) == 0
    reads = []
    real = review_log.read_review_log
    monkeypatch.setattr(review_log, "read_review_log", lambda path: reads.append(path) or real(path))
    assert main(["build", "--check", "--require-reviewed", "--root", root]) == 1  # every record unreviewed
    assert len(reads) == 1
    project.config.layout.review_log.unlink(missing_ok=True)
    os.symlink(tmp_path / "nowhere", project.config.layout.review_log)  # refused: the counts are skipped
    capsys.readouterr()
    assert main(["build", "--check", "--require-reviewed", "--root", root]) == 2
    assert "symlink" in capsys.readouterr().err
