"""A project's questions file is parsed once per content (issue 37 point 7): an eval reads it
twice (the run reader's golden ids, then the build). The second read must give what a parse
gives, and a file changed on disk in between must be parsed again."""

from __future__ import annotations

import json

import labeller.core.questions as questions_module
from labeller.core.questions import load_questions
from tests.conftest import q

DOCS = {"ops.md": "# Ops\n\nRotate the key every 90 days.\n"}


def _parses(monkeypatch) -> list[int]:
    """Counts the parses ``load_questions`` makes."""
    calls: list[int] = []
    parse = questions_module.parse_questions

    def counting(*args, **kwargs):
        calls.append(1)
        return parse(*args, **kwargs)

    monkeypatch.setattr(questions_module, "parse_questions", counting)
    return calls


def test_a_second_read_of_the_same_file_is_the_first_parse(make_project, monkeypatch):
    project = make_project(DOCS, [q("q1", {"doc": "ops.md", "quote": "Rotate the key"}),
                                  q("q2", {"doc": "ops.md", "quote": "every 90 days"})])
    calls = _parses(monkeypatch)
    first, second = project.load_questions(), project.load_questions()
    assert len(calls) == 1
    fresh = load_questions(project.config.questions, project.config.limits)  # the path it replaces
    for got in (first, second):
        assert (got.questions, got.render(), got.source_sha256, got.bom, got.path) == \
               (fresh.questions, fresh.render(), fresh.source_sha256, fresh.bom, fresh.path)
    assert second.entries is not first.entries  # each caller its own list
    second.entries.clear()
    assert project.load_questions().questions == fresh.questions


def test_a_file_changed_on_disk_is_parsed_again(make_project, monkeypatch):
    project = make_project(DOCS, [q("q1", {"doc": "ops.md", "quote": "Rotate the key"})])
    calls = _parses(monkeypatch)
    assert [x.id for x in project.load_questions().questions] == ["q1"]
    path = project.config.questions
    path.write_text(path.read_text() + json.dumps(q("q2", {"doc": "ops.md", "quote": "every 90 days"})) + "\n")
    assert [x.id for x in project.load_questions().questions] == ["q1", "q2"]
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # the same text, now with a BOM
    again = project.load_questions()
    assert again.bom and [x.id for x in again.questions] == ["q1", "q2"]
    assert len(calls) == 3
