"""Issue 16 leftovers: a task's document hint breaks a tie; file offsets count a BOM.

(a) A Label Studio task whose text occurs in two or more corpus documents is ambiguous. The
task's ``data.doc`` (what labeller's own export writes; ``--doc-field`` names another field)
picks the document when it names one of them that holds the text once; absent, or naming
none of them, the task is still refused ``task_ambiguous``.

(b) ``--offsets-of file`` counts each file as it is on disk, a leading byte order mark
included (one code point, one UTF-16 unit, three UTF-8 bytes), since canon-v1 drops it:
the same span, counted in each ``--units`` over the raw file, builds to the same canonical
offsets.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import write_project
from helpers_interop import artifact, cli, cli_json
from labeller.core.canon import canonicalize

SHARED = "The shared boilerplate paragraph about nightly backups and restores.\n"
DOCS = {
    "a.md": f"# Alpha\n\n{SHARED}\nAlpha only text.\n",
    "b.md": f"# Beta\n\n{SHARED}\nBeta only text.\n",
    "twice.md": f"# Twice\n\n{SHARED}\n{SHARED}",
    "copy-1.md": "# Copy\n\nA whole document copied under two names.\n",
    "copy-2.md": "# Copy\n\nA whole document copied under two names.\n",
}


def task(tid, text: str, passage: str, *, doc=None, field="doc", question="where is it?") -> dict:
    start = text.index(passage)
    data = {"text": text, "question": question}
    if doc is not None:
        data[field] = doc
    return {"id": tid, "data": data, "annotations": [{"result": [
        {"id": f"r{tid}", "from_name": "label", "to_name": "text", "type": "labels",
         "value": {"start": start, "end": start + len(passage), "text": passage, "labels": ["answer"]}}]}]}


def spans(root: Path) -> dict[str, list[tuple[str, int, int]]]:
    return {r["query_id"]: [(s["doc_id"], s["char_start"], s["char_end"]) for s in r["answer_spans"]]
            for r in artifact(root)}


def import_tasks(capsys, tmp_path, tasks, *flags) -> tuple[int, dict, Path]:
    root = write_project(tmp_path / "p", DOCS, [])
    path = tmp_path / "ls.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    rc, report = cli_json(capsys, "import", "label-studio", path, "--root", root, *flags)
    return rc, report, root


def test_the_document_hint_picks_among_documents_that_all_hold_the_task_text(tmp_path, capsys):
    passage = "nightly backups"
    rc, report, root = import_tasks(capsys, tmp_path, [
        task(1, SHARED, passage, doc="b.md"),
        task(2, SHARED, passage, question="no hint?"),
        task(3, SHARED, passage, doc="copy-1.md", question="a hint naming another document?"),
        task(4, SHARED, passage, doc="missing.md", question="a hint naming no document at all?"),
        task(5, SHARED, passage, doc="twice.md", question="a hint naming a document holding it twice?"),
        task(6, "Alpha only text.", "Alpha", doc="b.md", question="a unique text needs no hint"),
    ])
    assert rc == 1 and report["added"] == ["1", "6"]
    kept = {k["id"]: k for k in report["kept_out"]}
    assert {i: k["kind"] for i, k in kept.items()} == {"2": "task_ambiguous", "3": "task_ambiguous",
                                                       "4": "task_ambiguous", "5": "task_ambiguous"}
    assert "data.doc is absent" in kept["2"]["message"]
    assert "'copy-1.md', which is none of them" in kept["3"]["message"]
    assert "'missing.md', which is none of them" in kept["4"]["message"]
    assert "more than once in 'twice.md' itself" in kept["5"]["message"]
    rc, out, err = cli(capsys, "build", "--root", root)
    assert rc == 0, out + err
    canon = canonicalize(DOCS["b.md"])
    start = canon.index(passage)
    built = spans(root)
    assert built["1"] == [("b.md", start, start + len(passage))]  # those offsets, in the hinted document
    assert built["6"][0][0] == "a.md"


def test_doc_field_names_another_task_field(tmp_path, capsys):
    tasks = [task(1, SHARED, "nightly backups", doc="a.md", field="source")]
    rc, report, _ = import_tasks(capsys, tmp_path, tasks)
    assert rc == 1 and report["kept_out"][0]["kind"] == "task_ambiguous"  # data.doc is absent
    rc, report, _ = import_tasks(capsys, tmp_path, tasks, "--doc-field", "source")
    assert rc == 0 and report["added"] == ["1"]


def test_a_hint_that_is_not_a_string_is_invalid_input(tmp_path, capsys):
    rc, out, err = cli(capsys, "import", "label-studio", _write(tmp_path, [task(1, SHARED, "nightly", doc=3)]),
                       "--root", write_project(tmp_path / "p", DOCS, []))
    assert rc == 2 and "doc must be a string" in err


def _write(tmp_path: Path, tasks) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return path


def test_labellers_own_export_of_copied_documents_imports_back_by_its_doc_field(tmp_path, capsys):
    """Two documents with the same text: before the hint, each exported task came back
    ambiguous; its ``data.doc`` now says which copy each label was on."""
    questions = [{"id": "c1", "query": "copied where, first?", "expected_answer": "",
                  "locators": [{"doc": "copy-1.md", "quote": "copied under two names"}]},
                 {"id": "c2", "query": "copied where, second?", "expected_answer": "",
                  "locators": [{"doc": "copy-2.md", "quote": "copied under two names"}]}]
    src = write_project(tmp_path / "src", DOCS, questions)
    assert cli(capsys, "build", "--root", src)[0] == 0
    before = spans(src)
    out = tmp_path / "ls.json"
    assert cli(capsys, "export", "label-studio", "--root", src, "--out", out)[0] == 0
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert [t["data"]["doc"] for t in exported] == ["copy-1.md", "copy-2.md"]
    dst = write_project(tmp_path / "dst", DOCS, [])
    rc, report = cli_json(capsys, "import", "label-studio", out, "--root", dst, "--predictions")
    assert rc == 0 and report["added"] == ["c1", "c2"], report
    assert cli(capsys, "build", "--root", dst)[0] == 0
    assert spans(dst) == before
    # without the field, both are ambiguous again: the gate depends on the hint
    for t in exported:
        del t["data"]["doc"]
    out.write_text(json.dumps(exported), encoding="utf-8")
    dst2 = write_project(tmp_path / "dst2", DOCS, [])
    rc, report = cli_json(capsys, "import", "label-studio", out, "--root", dst2, "--predictions")
    assert rc == 1 and {k["kind"] for k in report["kept_out"]} == {"task_ambiguous"}


# -- (b) --offsets-of file and a byte order mark ----------------------------------------------------

BOM_TEXT = ("\ufeffIntro 🎉 line first.\r\n\r\n# Emoji 🎉\r\n\r\nThe party 🎂 starts at noon 😀 sharp.\r\n\r\n"
            "A second 𝄞 paragraph follows.\r\n")
PASSAGES = ["at noon 😀 sharp", "A second 𝄞 paragraph follows.", "Intro 🎉 line"]


def raw_offsets(text: str, passage: str, units: str) -> tuple[int, int]:
    """Offsets of ``passage`` in the file's decoded text, BOM included, counted in ``units``."""
    start = text.index(passage)
    end = start + len(passage)
    if units == "codepoints":
        return start, end
    if units == "utf16":
        return (len(text[:start].encode("utf-16-le")) // 2, len(text[:end].encode("utf-16-le")) // 2)
    return len(text[:start].encode("utf-8")), len(text[:end].encode("utf-8"))


@pytest.mark.parametrize("units", ["codepoints", "utf16", "utf8"])
def test_file_offsets_count_the_bom_in_every_unit(tmp_path, capsys, units):
    root = write_project(tmp_path / "p", {"bom.md": BOM_TEXT.encode("utf-8")}, [])
    assert (root / "corpus" / "bom.md").read_bytes()[:3] == b"\xef\xbb\xbf"
    rows = []
    for i, passage in enumerate(PASSAGES):
        start, end = raw_offsets(BOM_TEXT, passage, units)
        rows.append({"id": f"s{i}", "query": f"where is {passage}?", "spans": [
            {"doc": "bom.md", "start": start, "end": end, "text": passage}]})
    start, end = raw_offsets(BOM_TEXT, PASSAGES[0], units)
    skipped = 3 if units == "utf8" else 1  # the same span counted as if the BOM were not there
    rows.append({"id": "nobom", "query": "counted without the BOM?", "spans": [
        {"doc": "bom.md", "start": start - skipped, "end": end - skipped, "text": PASSAGES[0]}]})
    rows.append({"id": "bomonly", "query": "only the BOM?", "spans": [
        {"doc": "bom.md", "start": 0, "end": skipped}]})
    rows.append({"id": "onbom", "query": "starting on the BOM?", "spans": [  # the BOM is dropped, like canon-v1 does
        {"doc": "bom.md", "start": 0, "end": raw_offsets(BOM_TEXT, "Intro", units)[1], "text": "Intro"}]})
    path = tmp_path / "o.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    rc, report = cli_json(capsys, "import", "offsets", path, "--offsets-of", "file", "--units", units,
                          "--root", root)
    assert rc == 1 and report["added"] == ["s0", "s1", "s2", "onbom"], report
    kept = {k["id"]: k["kind"] for k in report["kept_out"]}
    assert kept == {"nobom": "offset_mismatch", "bomonly": "bad_offset"}
    rc, out, err = cli(capsys, "build", "--root", root)
    assert rc == 0, out + err
    canon = canonicalize(BOM_TEXT)
    assert not canon.startswith("\ufeff")
    built = spans(root)
    for i, passage in enumerate(PASSAGES):
        (doc, s, e), = built[f"s{i}"]
        assert doc == "bom.md" and passage in canon[s:e]
    s = canon.index(PASSAGES[1])
    assert built["s1"] == [("bom.md", s, s + len(PASSAGES[1]))]  # a whole paragraph: exactly those offsets
    assert built["s2"] == [("bom.md", 0, len("Intro 🎉 line"))]  # right after the BOM: the text's start
    assert built["onbom"] == [("bom.md", 0, len("Intro"))]


def test_canonical_offsets_of_a_bom_file_do_not_count_it(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"bom.md": BOM_TEXT.encode("utf-8")}, [])
    canon = canonicalize(BOM_TEXT)
    start = canon.index(PASSAGES[1])
    path = tmp_path / "o.jsonl"
    path.write_text(json.dumps({"id": "c", "query": "canonical?", "spans": [
        {"doc": "bom.md", "start": start, "end": start + len(PASSAGES[1]), "text": PASSAGES[1]}]},
        ensure_ascii=False) + "\n", encoding="utf-8")
    rc, report = cli_json(capsys, "import", "offsets", path, "--root", root)
    assert rc == 0 and report["added"] == ["c"]
    assert cli(capsys, "build", "--root", root)[0] == 0
    assert spans(root)["c"] == [("bom.md", start, start + len(PASSAGES[1]))]
