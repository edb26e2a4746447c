"""``benchmarks/outside_sets.py``: outside question sets become labeller projects whose every
question resolves, and each question left out is counted with its reason."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import outside_sets  # noqa: E402

from labeller.config import load_config  # noqa: E402
from labeller.core.build import build  # noqa: E402
from labeller.core.project import Project  # noqa: E402

GUIDE = """# Installing the plug-ins

Ansible plug-ins for the hub deliver a portal experience with curated learning paths,
push-button content creation and other opinionated resources.

# Shared notes

This sentence appears in two guides and so names no single place.
"""
OTHER = """# Other guide

This sentence appears in two guides and so names no single place.
"""


def _rhdh_checkout(root: Path, data: list[dict]) -> Path:
    docs = root / "rhdh-product-docs-1.8" / "plugins"
    docs.mkdir(parents=True)
    (docs / "master.txt").write_text(GUIDE, encoding="utf-8")
    (root / "rhdh-product-docs-1.8" / "other").mkdir()
    (root / "rhdh-product-docs-1.8" / "other" / "master.txt").write_text(OTHER, encoding="utf-8")
    (root / "dataset").mkdir()
    (root / "dataset" / "dataset_raw.yaml").write_text(yaml.safe_dump({"data": data}), encoding="utf-8")
    return root


def _item(query: str, context: str, response: str = "", uuid: str = "u") -> dict:
    return {"user_input": query, "context": [context], "response": response, "metadata": {"uuid": uuid}}


def _records(project: Path):
    p = Project(load_config(project))
    return build(p, p.load_questions().questions).records


def test_a_flattened_context_becomes_a_quote_of_the_guides_own_text_that_resolves(tmp_path):
    # the set's contexts run headings into text and drop hyphens: "plug ins", no line breaks
    flat = ("# Installing the plug ins Ansible plug ins for the hub deliver a portal experience with curated "
            "learning paths, push button content creation and other opinionated resources. #")
    checkout = _rhdh_checkout(tmp_path / "c", [_item("what do the ansible plugins give me?", flat,
                                                     "curated learning paths and push-button content creation")])
    reasons = outside_sets.rhdh(checkout, tmp_path / "p")
    assert reasons == {"converted": 1}
    (q,) = [json.loads(line) for line in (tmp_path / "p" / "golden" / "questions.jsonl").read_text().splitlines()]
    (loc,) = q["locators"]
    assert loc["doc"] == "plugins.md"
    assert loc["quote"] in GUIDE and loc["quote"].startswith("Ansible plug-ins") and "#" not in loc["quote"]
    (record,) = _records(tmp_path / "p")
    assert record.chunk_ids


def test_questions_whose_context_names_no_single_place_or_repeat_a_query_are_counted_not_kept(tmp_path):
    shared = "This sentence appears in two guides and so names no single place."
    unknown = "Nothing of this sentence is anywhere in the product documentation at all."
    good = "Ansible plug ins for the hub deliver a portal experience with curated learning paths."
    checkout = _rhdh_checkout(tmp_path / "c", [_item("shared?", shared), _item("unknown?", unknown),
                                               _item("good?", good), _item("good?", good)])
    reasons = outside_sets.rhdh(checkout, tmp_path / "p")
    assert reasons == {"converted": 1, "the context's sentences occur more than once in the docs": 1,
                       "no sentence of the context occurs in the docs": 1,
                       "the same query as an earlier question": 1}
    assert [r.question.query for r in _records(tmp_path / "p")] == ["good?"]


def test_qmd_queries_name_their_note_as_a_whole_document(tmp_path):
    test = tmp_path / "c" / "test"
    (test / "eval-docs").mkdir(parents=True)
    (test / "eval-docs" / "startup-fundraising-memo.md").write_text("# Memo\n\nBurn rate: $350K/month.\n")
    (test / "eval-docs" / "remote-work-policy.md").write_text("# Policy\n\nVPN is required.\n")
    (test / "eval.test.ts").write_text(
        'const evalQueries = [\n  { query: "remote work VPN", expectedDoc: "remote-work", difficulty: "easy" },\n'
        '  { query: "the \\"runway\\" question", expectedDoc: "fundraising", difficulty: "fusion" },\n];\n')
    (test / "eval-deep-research.jsonl").write_text(
        json.dumps({"query": "how much we're burning each month", "expected_doc": "fundraising",
                    "difficulty": "hard"}) + "\n"
        + json.dumps({"query": "a note that is not there", "expected_doc": "missing", "difficulty": "hard"}) + "\n")
    reasons = outside_sets.qmd(tmp_path / "c", tmp_path / "p")
    assert reasons == {"converted": 3, "the expected note matches 0 files": 1}
    records = _records(tmp_path / "p")
    assert [(r.question.query, r.question.locators[0].doc, r.question.tags) for r in records] == [
        ("remote work VPN", "remote-work-policy.md", ["easy"]),
        ('the "runway" question', "startup-fundraising-memo.md", ["fusion"]),
        ("how much we're burning each month", "startup-fundraising-memo.md", ["hard"])]
    assert all(r.chunk_ids for r in records)


def test_bm25_tuning_measures_a_given_project_and_its_small_grid_holds_the_default(tmp_path):
    import bm25_tuning

    from labeller.eval.analysis import get_analyzer
    from labeller.eval.retrievers.bm25 import B, DEFAULT_FIELD_WEIGHTS, K1

    notes = tmp_path / "notes"
    (notes / "corpus").mkdir(parents=True)
    (notes / "corpus" / "memo.md").write_text("# Memo\n\nThe burn rate is $350K a month.\n")
    (notes / "corpus" / "policy.md").write_text("# Policy\n\nA VPN is required when working remotely.\n")
    outside_sets.write_questions(notes, [
        {"id": "n-1", "query": "monthly burn", "expected_answer": "", "locators": [{"doc": "memo.md"}]},
        {"id": "n-2", "query": "vpn remote", "expected_answer": "", "locators": [{"doc": "policy.md"}]}], Counter())
    found = bm25_tuning.sets(tmp_path / "work", [], 0, [0], [notes])
    assert list(found) == ["bundled handbook", "mixed_ja", "notes"]
    copied = found["notes"] / "golden" / "questions.jsonl"
    assert copied.read_text() == (notes / "golden" / "questions.jsonl").read_text()
    chunks, queries, golden = bm25_tuning.load(found["notes"])
    recalls = bm25_tuning.labeller_recalls(chunks, queries, golden, bm25_tuning.SMALL)
    default = (get_analyzer("auto").name, K1, B, DEFAULT_FIELD_WEIGHTS["heading"], DEFAULT_FIELD_WEIGHTS["breadcrumb"])
    small = bm25_tuning.SMALL
    assert len(recalls) == len(small["analyzers"]) * len(small["k1_b"]) * len(small["heading"]) * len(
        small["breadcrumb"]) and default in recalls
