"""Adjudication and review edits writing questions.jsonl; the annotation store; review --summary."""

from __future__ import annotations

import json

import pytest

from labeller.cli import main
from labeller.core.models import Locator, Question
from labeller.errors import InvalidInput
from labeller.review.adjudicate import adjudicate, apply_edit, save_record
from labeller.review.annotations import annotation_path, load_annotations
from labeller.review.log import append_review, new_entry, read_review_log, record_digest

from helpers_review import make_project


def by_id(project) -> dict[str, Question]:
    return {q.id: q for q in project.load_questions().questions}


def locs(question: Question) -> list[dict]:
    return [loc.as_json() for loc in question.locators]


B2 = [Locator(quote="Restores are tested monthly"), Locator(quote="snapshots are taken hourly")]


def test_merge_is_the_union_with_one_locator_per_span(tmp_path):
    project = make_project(tmp_path)
    q2 = by_id(project)["q2"]
    result = adjudicate(project, q2, B2, "merge", "carol", "bob")
    # "Restores are tested monthly" expands to the paragraph A's quote already labels: dropped.
    assert locs(result) == [{"quote": "nightly at 02:00"}, {"quote": "snapshots are taken hourly"}]
    assert by_id(project)["q2"] == result
    log = read_review_log(project.config.layout.review_log)
    assert log.latest("q2").comment == "adjudicated against bob: merge"
    assert log.latest("q2").reviewer == "carol" and log.status(result) == "reviewed"


def test_keep_a_writes_nothing_but_logs_the_decision(tmp_path):
    project = make_project(tmp_path)
    before = project.config.questions.read_bytes()
    q2 = by_id(project)["q2"]
    assert adjudicate(project, q2, B2, "keep_a", "carol", "bob") == q2
    assert project.config.questions.read_bytes() == before
    assert read_review_log(project.config.layout.review_log).status(q2) == "reviewed"


def test_keep_b_and_an_empty_b_makes_a_negative(tmp_path):
    project = make_project(tmp_path)
    qs = by_id(project)
    assert locs(adjudicate(project, qs["q2"], B2, "keep_b", "carol", "bob")) == [b.as_json() for b in B2]
    negative = adjudicate(project, qs["q3"], [], "keep_b", "carol", "bob")
    assert negative.unanswerable is True and negative.locators == []
    text = project.config.questions.read_text(encoding="utf-8")
    assert text.startswith("// review test project\n")  # comments survive the rewrite
    assert json.loads(text.splitlines()[3]) == negative.as_json()


def test_nothing_is_written_when_the_outcome_would_not_build(tmp_path):
    project = make_project(tmp_path)
    before = project.config.questions.read_bytes()
    q1 = by_id(project)["q1"]
    with pytest.raises(InvalidInput, match="not_found"):
        adjudicate(project, q1, [Locator(quote="words that are nowhere")], "keep_b", "carol", "bob")
    new = Question.model_validate(q1.as_json() | {"query": "When do backups run?"})  # q2's query
    with pytest.raises(InvalidInput, match="would not load after this change .line 3: same query as record 'q1'"):
        adjudicate(project, q1, [], "new", "carol", "bob", new=new)
    multi = Question.model_validate(q1.as_json() | {"hop": "multi", "locators": [{"quote": "every ninety days"},
                                                                                  {"quote": "Deploys happen"}]})
    with pytest.raises(InvalidInput, match="multi-hop record needs at least two locators"):
        adjudicate(project, multi, [Locator(quote="Run keys rotate")], "keep_b", "carol", "bob")
    assert project.config.questions.read_bytes() == before
    assert not project.config.layout.review_log.exists()


def test_a_record_changed_on_disk_meanwhile_is_not_overwritten(tmp_path):
    project = make_project(tmp_path)
    seen = by_id(project)["q1"]
    meanwhile = Question.model_validate(seen.as_json() | {"expected_answer": "Ninety days."})
    save_record(project.config, meanwhile, seen)
    mine = Question.model_validate(seen.as_json() | {"query": "How often must the API key rotate?"})
    with pytest.raises(InvalidInput, match="changed on disk since it was opened"):
        save_record(project.config, mine, seen)
    assert by_id(project)["q1"] == meanwhile
    with pytest.raises(InvalidInput, match="ids are stable"):
        save_record(project.config, Question.model_validate(seen.as_json() | {"id": "q1b"}), meanwhile)


def test_an_edit_in_review_leaves_the_record_needing_review(tmp_path):
    project = make_project(tmp_path)
    q3 = by_id(project)["q3"]
    append_review(project.config.layout.review_log, new_entry(q3, "alice", "accept"))
    new = Question.model_validate(q3.as_json() | {"locators": [{"doc": "ops.md", "quote": "| retention |"}]})
    assert apply_edit(project, q3, new, "alice", "quote the row key") is True
    log = read_review_log(project.config.layout.review_log)
    assert log.latest("q3").decision == "edit" and log.latest("q3").record_digest == record_digest(q3)
    assert log.status(by_id(project)["q3"]) == "needs_rereview"
    assert apply_edit(project, new, new, "alice") is False  # no change, no entry
    assert len(read_review_log(project.config.layout.review_log).entries) == 2


def test_annotation_store_round_trip_and_errors(tmp_path):
    project = make_project(tmp_path)
    ann = load_annotations(project.config, "bob")
    assert ann.records == {} and not ann.path.exists()
    ann.set("q2", [Locator(quote="nightly at 02:00")])
    ann.set("q1", [])
    ann.save()
    assert ann.path == tmp_path / "golden" / "annotations" / "bob.jsonl"
    assert ann.path.read_text(encoding="utf-8") == ('{"locators": [{"quote": "nightly at 02:00"}], "record_id": "q2"}\n'
                                                    '{"locators": [], "record_id": "q1"}\n')
    again = load_annotations(project.config, "bob")
    assert again.get("q2") == [Locator(quote="nightly at 02:00")] and again.get("q1") == [] and again.get("q3") is None
    ann.path.write_text('{"record_id": "q1", "locators": []}\n{"record_id": "q1", "locators": []}\n'
                        '{"record_id": "q2", "locators": [{"quote": ""}]}\nnot json\n'
                        '{"record_id": "q3", "locators": [], "doc": "x"}\n', encoding="utf-8")
    with pytest.raises(InvalidInput) as exc:
        load_annotations(project.config, "bob")
    assert [(d["line"], d["id"]) for d in exc.value.details] == [(2, "q1"), (3, "q2"), (4, None), (5, None)]
    for bad in ("", "../x", ".hidden", "a/b", "x" * 65):
        with pytest.raises(InvalidInput, match="annotator name"):
            annotation_path(project.config, bad)


def test_review_summary_json(tmp_path, capsys):
    project = make_project(tmp_path)
    qs = by_id(project)
    log = project.config.layout.review_log
    append_review(log, new_entry(qs["q1"], "alice", "accept"))
    append_review(log, new_entry(qs["q2"], "alice", "flag", "the answer is the schedule table"))
    append_review(log, new_entry(qs["q3"], "alice", "accept"))
    save_record(project.config, Question.model_validate(qs["q3"].as_json() | {"expected_answer": "Thirty days."}),
                qs["q3"])
    assert main(["review", "--root", str(tmp_path), "--summary", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == {"records": 4, "reviewed": 1, "needs_rereview": 1, "flagged": 1, "unreviewed": 1,
                                "needs_review": 0, "answer_changed": 0}
    assert out == json.dumps(json.loads(out), sort_keys=True) + "\n"  # one line, stable key order
    assert main(["review", "--root", str(tmp_path), "--summary", "--format", "json", "--tag", "ops"]) == 0
    assert json.loads(capsys.readouterr().out) == {"records": 2, "reviewed": 1, "needs_rereview": 0, "flagged": 1,
                                                   "unreviewed": 0, "needs_review": 0, "answer_changed": 0}
    # a torn log line is a warning on stderr, never a failure, and the file is left as it was
    with log.open("ab") as fh:
        fh.write(b'{"record_id": "q4", "rec')
    torn = log.read_bytes()
    assert main(["review", "--root", str(tmp_path), "--summary"]) == 0
    captured = capsys.readouterr()
    assert f"{log}:4: truncated last line" in captured.err
    assert "flagged: q2" in captured.out and "the answer is the schedule table" in captured.out
    assert log.read_bytes() == torn


def test_review_with_no_matching_records_does_not_open_the_app(tmp_path, capsys):
    make_project(tmp_path)
    assert main(["review", "--root", str(tmp_path), "--status", "reviewed", "--as", "alice"]) == 0
    assert "nothing to review" in capsys.readouterr().out


def test_giving_a_negative_an_answer_drops_unanswerable(tmp_path):
    project = make_project(tmp_path)
    q4 = by_id(project)["q4"]
    assert q4.unanswerable is True
    result = adjudicate(project, q4, [Locator(quote="Deploys happen")], "keep_b", "carol", "bob")
    assert result.unanswerable is None and "unanswerable" not in result.as_json()
    assert by_id(project)["q4"] == result
