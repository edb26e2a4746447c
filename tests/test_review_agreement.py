"""Agreement measures against values computed by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import json

import pytest

from labeller.cli import main
from labeller.core.models import Locator
from labeller.core.resolve import Span
from labeller.review.agreement import (KappaTable, agreement, block_units, char_overlap, compare_record, jaccard,
                                       kappa_table, resolve_pair)
from labeller.review.annotations import load_annotations

from helpers_review import make_project


def span(doc: str, start: int, end: int) -> Span:
    return Span(doc, start, end, "paragraph", start, end)


def test_char_f1_counts_positions_as_sets():
    # A: x[0,10) and x[5,15) overlap inside A -> A covers x[0,15): 15 positions.
    # B: x[10,20) and y[0,5) -> 10 + 5 = 15 positions.
    # Shared: x[10,15) = 5 positions.  F1 = 2*5 / (15+15) = 1/3.
    ov = char_overlap([span("x", 0, 10), span("x", 5, 15)], [span("x", 10, 20), span("y", 0, 5)])
    assert (ov.both, ov.chars_a, ov.chars_b) == (5, 15, 15)
    assert ov.f1 == pytest.approx(1 / 3)
    # The same offsets in another document share nothing.
    assert char_overlap([span("x", 0, 10)], [span("y", 0, 10)]).f1 == 0
    assert char_overlap([span("x", 0, 10)], [span("x", 0, 10)]).f1 == 1
    assert char_overlap([], []).f1 is None  # nothing on either side: undefined, not 0 or 1


def test_kappa_textbook_value():
    # both 20, A only 5, B only 10, neither 15 (n = 50):
    # p_o = 35/50 = 0.7; P(A yes) = 25/50 = 0.5; P(B yes) = 30/50 = 0.6
    # p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    assert KappaTable(20, 5, 10, 15).kappa == pytest.approx(0.4)
    assert KappaTable(3, 0, 0, 7).kappa == pytest.approx(1.0)
    assert KappaTable(0, 0, 0, 0).kappa is None
    assert KappaTable(4, 0, 0, 0).kappa is None  # both always say yes: p_e = 1


def test_kappa_without_joint_negatives_can_never_be_positive():
    # Why the item universe holds blocks nobody labelled: with neither = 0,
    # p_o - p_e = -2*b*c / n^2.  both 8, A only 1, B only 1: p_o = 0.8,
    # p_e = 0.9*0.9 + 0.1*0.1 = 0.82, kappa = -0.02 / 0.18 = -1/9, for annotators who agree on 8 of 10.
    assert KappaTable(8, 1, 1, 0).kappa == pytest.approx(-1 / 9)


def test_kappa_table_uses_overlap_with_blocks():
    units = [(0, 10), (10, 20), (20, 30), (30, 40)]
    # A labels [5,15) -> touches blocks 1 and 2; B labels [10,20) and [35,36) -> blocks 2 and 4.
    # block 1: A only; block 2: both; block 3: neither; block 4: B only.
    assert kappa_table(units, [(5, 15)], [(10, 20), (35, 36)]) == KappaTable(both=1, a_only=1, b_only=1, neither=1)


def test_jaccard():
    assert jaccard({"c1", "c2"}, {"c2", "c3"}) == pytest.approx(1 / 3)  # |{c2}| / |{c1,c2,c3}|
    assert jaccard(set(), {"c1"}) == 0
    assert jaccard(set(), set()) is None


def test_block_units_are_the_expansion_units(tmp_path):
    project = make_project(tmp_path)
    doc = project.corpus["ops.md"]
    got = [doc.text[s:e] for s, e in block_units(project, "ops.md")]
    assert got == ["# Operations\n",
                   "Rotate the API key every ninety days. Run keys rotate, then redeploy.\n",
                   "## Backups\n",
                   "Backups run nightly at 02:00 UTC.\nRestores are tested monthly.\n",
                   "- snapshots are taken hourly\n",
                   "- retention is set per bucket\n  - nested detail on retention\n",
                   "  - nested detail on retention\n",
                   "- encryption uses the project key\n",
                   "| setting | value |\n",  # the delimiter row |---|---| is no unit of its own
                   "| retention | 30 days |\n",
                   "| region | eu-west-1 |\n"]


def test_block_units_leave_out_front_matter_and_rules(tmp_path):
    project = make_project(tmp_path)
    (tmp_path / "corpus" / "edge.md").write_text("---\ntitle: Edge\n---\nIntro paragraph.\n\n***\n\n"
                                                 "> quoted one\n> quoted two\n\n```sh\necho hi\n```\n",
                                                 encoding="utf-8")
    doc = project.corpus["edge.md"]
    assert [doc.text[s:e] for s, e in block_units(project, "edge.md")] == [
        "Intro paragraph.\n", "> quoted one\n> quoted two\n", "```sh\necho hi\n```\n"]


BOB = [
    {"record_id": "q1", "locators": [{"quote": "Run keys rotate"}]},
    {"record_id": "q2", "locators": [{"quote": "Restores are tested monthly"},
                                     {"quote": "snapshots are taken hourly"}]},
    {"record_id": "q3", "locators": [{"doc": "ops.md", "quote": "retention is set per bucket"}]},
    {"record_id": "q4", "locators": []},
]


def write_annotations(project, name: str, rows: list[dict]) -> None:
    path = project.config.questions.parent / "annotations" / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_agreement_per_record_and_overall(tmp_path):
    project = make_project(tmp_path)
    write_annotations(project, "bob", BOB)
    report = agreement(project, project.load_questions().questions, load_annotations(project.config, "bob"))
    rows = {r.record_id: r for r in report.records}
    # ops.md has 11 block units (see test_block_units_are_the_expansion_units).
    # q1: "Run keys rotate" expands to the same paragraph [14,84) as A's quote: identical.
    assert rows["q1"].exact_match and rows["q1"].chars.f1 == 1 and rows["q1"].kappa == KappaTable(1, 0, 0, 10)
    # q2: A = paragraph [97,160) (63 chars); B = that paragraph + list item [161,190) (29 chars).
    # F1 = 2*63 / (63 + 92) = 126/155.  Blocks: both 1, B only 1, neither 9:
    # p_o = 10/11, p_e = (1/11)(2/11) + (10/11)(9/11) = 92/121, kappa = (110-92)/(121-92) = 18/29.
    r2 = rows["q2"]
    assert (r2.chars.both, r2.chars.chars_a, r2.chars.chars_b) == (63, 63, 92)
    assert r2.chars.f1 == pytest.approx(126 / 155)
    assert not r2.exact_match and r2.blocks_matched == 1
    assert r2.kappa.kappa == pytest.approx(18 / 29)
    assert r2.chunk_jaccard == 1  # both spans lie in ops.md chunk #1
    # q3: A = table row [316,340); B = the "retention" list item, which holds a nested item (2 units).
    # No shared character: F1 = 0.  both 0, A only 1, B only 2, neither 8:
    # p_e = (1/11)(2/11) + (10/11)(9/11) = 92/121, p_o = 8/11, kappa = (88-92)/(121-92) = -4/29.
    assert rows["q3"].chars.f1 == 0 and rows["q3"].kappa.kappa == pytest.approx(-4 / 29)
    # q4: both say "no answer": identical, but F1, kappa and Jaccard have nothing to measure.
    r4 = rows["q4"]
    assert r4.exact_match and r4.chars.f1 is None and r4.kappa.n == 0 and r4.chunk_jaccard is None

    overall = report.overall()
    assert overall["records"] == 4
    # mean F1 over the 3 records where it is defined: (1 + 126/155 + 0) / 3
    assert overall["char_f1"] == {"value": round((1 + 126 / 155) / 3, 4), "n": 3}
    assert overall["exact_block_match"] == {"value": 0.5, "n": 4}  # q1 and q4
    # pooled items: both 2, A only 1, B only 3, neither 27 (n = 33):
    # p_o = 29/33, p_e = (3/33)(5/33) + (30/33)(28/33) = 855/1089, kappa = (957-855)/(1089-855) = 102/234
    assert overall["kappa"] == {"value": round(102 / 234, 4), "n": 33,
                                "items": {"both": 2, "a_only": 1, "b_only": 3, "neither": 27}}
    assert overall["chunk_jaccard"] == {"value": 1.0, "n": 3}


def test_chunk_jaccard_sees_answers_in_other_documents(tmp_path):
    project = make_project(tmp_path)
    question = project.load_questions().questions[0]
    # A: the ops.md paragraph (ops.md chunk #0). B: that paragraph plus guide.md's last paragraph
    # (guide.md chunk #0).  Jaccard = 1/2.  Characters: A 70, B 70 + 28 = 98, shared 70: F1 = 140/168.
    a, b = resolve_pair(project, question, [Locator(quote="Run keys rotate"), Locator(quote="Deploys happen")])
    rec = compare_record(project, a, b)
    assert rec.chunk_jaccard == pytest.approx(1 / 2)
    assert rec.chars.f1 == pytest.approx(140 / 168)
    # the universe now spans both documents: ops.md 11 units + guide.md 3 units
    assert rec.kappa == KappaTable(both=1, a_only=0, b_only=1, neither=12)


def test_unresolvable_labels_are_left_out_and_listed(tmp_path):
    project = make_project(tmp_path)
    write_annotations(project, "bob", [{"record_id": "q1", "locators": [{"quote": "no such words here"}]},
                                       {"record_id": "gone", "locators": []}])
    report = agreement(project, project.load_questions().questions, load_annotations(project.config, "bob"))
    assert report.records == []
    assert [(u["record_id"], u["side"], u["kind"]) for u in report.unresolved] == [("q1", "b", "not_found")]
    assert report.not_annotated == ["q2", "q3", "q4"]
    assert report.not_in_questions == ["gone"]
    assert report.overall()["char_f1"] == {"value": None, "n": 0}


def test_agreement_command_json(tmp_path, capsys):
    project = make_project(tmp_path)
    write_annotations(project, "bob", BOB)
    assert main(["agreement", "--root", str(tmp_path), "--with", "bob", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["annotator"] == "bob" and out["hit_rule"] == "any_overlap"
    assert out["overall"]["kappa"]["value"] == round(102 / 234, 4)
    assert [r["record_id"] for r in out["records"]] == ["q1", "q2", "q3", "q4"]
    assert out["records"][1]["char_f1"] == round(126 / 155, 4)
    # --split filters the records compared
    assert main(["agreement", "--root", str(tmp_path), "--with", "bob", "--split", "test", "--format", "json"]) == 0
    assert [r["record_id"] for r in json.loads(capsys.readouterr().out)["records"]] == ["q2"]


def test_agreement_with_nobody_is_an_input_error(tmp_path, capsys):
    make_project(tmp_path)
    assert main(["agreement", "--root", str(tmp_path), "--with", "carol"]) == 2
    assert "no annotations by 'carol'" in capsys.readouterr().err
    assert main(["agreement", "--root", str(tmp_path), "--with", "../etc/passwd"]) == 2

