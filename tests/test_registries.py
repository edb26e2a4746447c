"""Hit rules and retrievers are reached by name through a registry of one-line entries.

A toy of each, registered in one line the way the shipped ones are, must work in a build
and an eval exactly as a shipped one does; the shipped ones have no branch of their own.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import write_project
from labeller.cli import main
from labeller.config import load_config
from labeller.core import hitrules
from labeller.core.build import build
from labeller.core.project import Project
from labeller.core.hitrules import REGISTRY, hit_rule_forms, parse_hit_rule
from labeller.errors import InvalidInput
from labeller.eval import retrievers
from labeller.eval.runner import run_eval

# One chunk of two paragraphs (a quote expands to its paragraph, SPEC §3): the long one is
# most of the chunk, the short one a sliver of it.
DOC = "# A\n\nshort fact here\n\n" + "long " * 30 + "tail\n"
TOML = '[build]\nhit_rule = "chunk_share>=0.5"\n'
LONG = {"id": "long", "query": "long tail", "expected_answer": "x",
        "locators": [{"doc": "a.md", "quote": "long tail"}]}
SLIVER = {"id": "sliver", "query": "short fact", "expected_answer": "x",
          "locators": [{"doc": "a.md", "quote": "short fact here"}]}


@pytest.fixture
def toy_rule(monkeypatch):
    monkeypatch.setitem(REGISTRY, "chunk_share", "toys.toy_hitrule:ChunkShare")  # the one registration line


def test_a_rule_registered_in_one_line_is_parsed_like_a_shipped_one(toy_rule):
    rule = parse_hit_rule(" chunk_share>=0.50 ")
    assert rule.name == "chunk_share>=0.5" and rule.threshold == 0.5
    assert "chunk_share>=T" in hit_rule_forms()
    for bad in ("chunk_share", "chunk_share>=1.5", "chunk_shares>=0.5"):
        with pytest.raises(InvalidInput, match=r"unknown hit rule .*chunk_share>=T"):
            parse_hit_rule(bad)


def test_a_registered_rule_decides_the_build(tmp_path, toy_rule):
    root = write_project(tmp_path / "p", {"a.md": DOC}, [LONG, SLIVER], TOML)
    project = Project(load_config(root))
    result = build(project, project.load_questions().questions)
    [only] = project.chunks["a.md"]  # the layout the test relies on
    assert [r.kind for r in result.refusals] == ["no_hit"] and result.refusals[0].record_id == "sliver"
    assert [r.chunk_ids for r in result.records if r.question.id == "long"] == [[only.chunk_id]]
    assert result.manifest["build_hit_rule"] == "chunk_share>=0.5"
    # the same labels under a shipped rule: the sliver hits (so the refusal above is the toy's)
    assert main(["build", "--root", str(root), "--hit-rule", "any_overlap"]) == 0
    manifest = json.loads((root / "golden" / "golden-set.v1.manifest.json").read_text())
    assert manifest["build_hit_rule"] == "any_overlap"
    assert main(["build", "--root", str(root), "--hit-rule", "chunk_share>=0.5"]) == 1  # refused, as in-process


def test_a_registered_rule_decides_the_eval(tmp_path, toy_rule):
    root = write_project(tmp_path / "p", {"a.md": DOC}, [LONG], TOML)
    project = Project(load_config(root))
    at_half = run_eval(project, ks=[1])
    assert at_half.report["fingerprint"]["hit_rule"] == "chunk_share>=0.5"
    assert [q["hit_ranks"] for q in at_half.report["queries"]] == [[1]]
    # the long paragraph is most of the chunk but not all of it: under >=1 no chunk ever hits it
    at_one = run_eval(project, ks=[1], hit_rule="chunk_share>=1")
    assert at_one.report["fingerprint"]["hit_rule"] == "chunk_share>=1"
    assert [q["hit_ranks"] for q in at_one.report["queries"]] == [[None]]


def test_a_registry_line_must_name_the_class_it_points_at(monkeypatch):
    monkeypatch.setitem(REGISTRY, "not_the_kind", "toys.toy_hitrule:ChunkShare")
    with pytest.raises(TypeError, match="says 'chunk_share'"):
        hitrules.hit_rule_class("not_the_kind")


# -- retrievers ------------------------------------------------------------------------------------


def test_the_shipped_retrievers_are_registry_lines_imported_on_first_use():
    assert retrievers.REGISTRY["bm25"] == "bm25:BM25Retriever.for_project"
    assert retrievers.REGISTRY["run"] == "run_file:RunFileRetriever.for_project"
    code = ("import sys, labeller.eval.retrievers as r; "
            "print('labeller.eval.retrievers.bm25' in sys.modules, 'whoosh' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_a_retriever_registered_in_one_line_is_reached_by_the_cli(tmp_path, capsys, monkeypatch):
    root = write_project(tmp_path / "p", {"a.md": DOC}, [LONG])
    monkeypatch.setitem(retrievers.REGISTRY, "toy", "toys.toy_retriever:Reversed.for_project")
    assert "toy" in retrievers.known_retrievers()
    assert main(["eval", "--root", str(root), "--format", "json", "--no-history", "--retriever", "toy"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["fingerprint"]["retriever"] == {"name": "toy-reversed"}


def test_bm25_has_no_branch_of_its_own(tmp_path, capsys, monkeypatch):
    """Replacing the bm25 line replaces what every caller gets, the eval's default included."""
    root = write_project(tmp_path / "p", {"a.md": DOC}, [LONG])
    monkeypatch.setitem(retrievers.REGISTRY, "bm25", "toys.toy_retriever:Reversed.for_project")
    assert main(["eval", "--root", str(root), "--format", "json", "--no-history"]) == 0
    assert json.loads(capsys.readouterr().out)["fingerprint"]["retriever"] == {"name": "toy-reversed"}


def test_loading_every_shipped_rule_leaves_the_measures_in_place():
    """A rule module named like a measure (``coverage.py`` beside ``coverage()``) would replace
    the measure on the package the moment it is imported."""
    for form in hit_rule_forms():
        parse_hit_rule(form.replace("T", "0.5"))
    for measure in ("any_overlap", "span_containment", "coverage", "union_coverage"):
        assert callable(getattr(hitrules, measure)) and getattr(hitrules, measure).__module__.endswith(".measures")
