"""Offset labels on a passage repeated with long identical surroundings import exactly (issue 36).

A financial filing repeats a whole section: the two copies of a labelled passage agree on
both sides for well over a thousand characters. A label given by offsets must still import
and build to those offsets (the context bound rises when the passage occurs only a few
times, the work staying within a fixed budget); a passage repeated to both document edges
is refused with the real reason — how often it occurs and the bound for that many.
"""

from __future__ import annotations

import json

from conftest import write_project
from helpers_interop import artifact, cli, cli_json, questions_of

# A section of varied text (no word repeats inside it), some 4,800 characters.
SECTION = "\n\n".join(" ".join(f"w{p}x{i}" for i in range(60)) + "." for p in range(12)) + "\n"
DOC = "Intro one.\n\n" + SECTION + "\nTail one.\n\nIntro two.\n\n" + SECTION + "\nTail two.\n"
RUN = "x " * 5000 + "\n"  # one word 5,000 times: the middle one is the same to both edges as its neighbours


def test_a_label_on_a_long_repeated_section_imports_to_exactly_its_offsets(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"filing.md": DOC}, [])
    middle = SECTION.index("w6x0")  # half the section on each side: 2,400 characters agree around both copies
    length = len("w6x0 w6x1 w6x2")
    first = DOC.index(SECTION) + middle
    second = DOC.index(SECTION, first) + middle
    assert DOC[first:first + length] == DOC[second:second + length] == "w6x0 w6x1 w6x2"
    rows = [{"id": f"r{n}", "query": f"which copy {n}?", "spans": [{"doc": "filing.md", "start": s, "end": s + length}]}
            for n, s in enumerate((first, second))]
    src = tmp_path / "o.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rc, report = cli_json(capsys, "import", "offsets", src, "--root", root)
    assert rc == 0 and report["kept_out"] == [], report
    assert cli(capsys, "build", "--root", root)[0] == 0
    built = {r["query_id"]: [(s["doc_id"], s["char_start"], s["char_end"]) for s in r["answer_spans"]]
             for r in artifact(root)}
    assert built == {"r0": [("filing.md", first, first + length)], "r1": [("filing.md", second, second + length)]}
    contexts = [len(loc.get("prefix", "")) + len(loc.get("suffix", ""))
                for q in questions_of(root) for loc in q["locators"]]
    assert max(contexts) > 1000  # more context than the old fixed bound allowed


def test_a_passage_the_same_to_both_edges_is_refused_with_the_real_reason(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"run.md": RUN}, [])
    start = 2 * 2500
    src = tmp_path / "o.jsonl"
    src.write_text(json.dumps({"id": "r", "query": "which?", "spans": [
        {"doc": "run.md", "start": start, "end": start + 1}]}) + "\n", encoding="utf-8")
    rc, report = cli_json(capsys, "import", "offsets", src, "--root", root)
    (kept,) = report["kept_out"]
    assert rc == 1 and kept["kind"] == "ambiguous"
    assert "occurs 5000 times in run.md" in kept["message"] and "1,000 characters" in kept["message"]
