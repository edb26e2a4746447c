"""``labeller eval --subset N``: a stable, stratified subset and what it can still detect."""

from __future__ import annotations

import json

from conftest import write_project

from labeller.cli import main

N = 30


def project(tmp_path, extra=()):
    docs = {f"doc{i:02d}.md": f"# Topic {i:02d}\n\nFact {i:02d}: the kestrel alpha{i:02d} nests on ridge "
                              f"number {i:02d}.\n" for i in range(N)}
    questions = [{"id": f"q{i:02d}", "query": f"where does alpha{i:02d} nest" if i % 3 else f"bird ridge {i}",
                  "expected_answer": "", "locators": [{"doc": f"doc{i:02d}.md", "quote": f"alpha{i:02d}"}],
                  "split": "dev" if i < 20 else "test"} for i in range(N)]
    return write_project(tmp_path / "proj", docs, [*questions, *extra])


def run(root, capsys, *args) -> dict:
    assert main(["eval", "--root", str(root), "--format", "json", "--no-history", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_subset_is_stable_stratified_and_states_its_mdd(tmp_path, capsys):
    root = project(tmp_path)
    full = run(root, capsys)
    a = run(root, capsys, "--subset", "12")
    b = run(root, capsys, "--subset", "12")
    ids = [q["query_id"] for q in a["queries"]]
    assert ids == [q["query_id"] for q in b["queries"]] and len(ids) == 12
    assert a["subset"]["strata"] == {"authored|dev|single": [8, 20], "authored|test|single": [4, 10]}
    assert sum(i < "q20" for i in ids) == 8  # dev keeps its two thirds
    assert a["subset"]["mdd"] > 0 and "subset" not in full


def test_a_record_added_elsewhere_leaves_a_stratum_s_picks_alone(tmp_path, capsys):
    before = run(project(tmp_path / "a"), capsys, "--subset", "15")
    neg = {"id": "n1", "query": "how tall are giraffes", "expected_answer": "", "locators": [],
           "unanswerable": True, "split": "dev"}
    after = run(project(tmp_path / "b", [neg]), capsys, "--subset", "15")
    assert [q["query_id"] for q in before["queries"]] == [q["query_id"] for q in after["queries"]]
    assert after["subset"]["strata"]["authored|dev|negative"] == [0, 1]


def test_a_subset_of_the_whole_set_or_more_is_the_whole_set(tmp_path, capsys):
    root = project(tmp_path)
    assert len(run(root, capsys, "--subset", "500")["queries"]) == N
    assert main(["eval", "--root", str(root), "--no-history", "--subset", "0"]) == 2
