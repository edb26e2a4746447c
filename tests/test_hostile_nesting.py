"""Every reader of a file a user (or a tool) can hand labeller survives hostile nesting.

A line of 100,000 ``[`` fits every size bound and overflows a recursive decoder's stack
(``json``, ``tomllib``, PyYAML's composer). Each reader must turn it into its documented
outcome: invalid input (exit 2) naming the file and, for a line-oriented file, the line; a
committed artifact or manifest that does not parse is drift (exit 1); a cache or journal that
does not parse is set aside or rebuilt. Never a ``RecursionError`` traceback.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import q, write_project

from labeller.cli import main

DEEP = "[" * 100_000


def small_project(root: Path) -> Path:
    return write_project(root, {"a.md": "# A\n\nalpha beta gamma.\n\ndelta epsilon.\n"},
                         [q("q1", {"doc": "a.md", "quote": "alpha beta"}), q("q2", {"doc": "a.md", "quote": "delta"})])


def run(capsys, root: Path, *args: str) -> tuple[int, str]:
    capsys.readouterr()
    rc = main([*args, "--root", str(root)])
    out = capsys.readouterr()
    return rc, out.out + out.err


def names_line_1(text: str, name: str) -> bool:
    """The message names the file and its line 1 (``file:1`` or ``file ... line 1``)."""
    return bool(re.search(re.escape(name) + r"(:1\b|\D*line 1\b)", " ".join(text.split())))


# (what is planted, where, the command that reads it, exit code, the file the message must name, line-oriented)
CASES = [
    ("questions", "golden/questions.jsonl", ["build"], 2, "questions.jsonl", True),
    ("review log, --summary", "golden/reviews.jsonl", ["review", "--summary"], 2, "reviews.jsonl", True),
    ("review log, --require-reviewed", "golden/reviews.jsonl", ["build", "--check", "--require-reviewed"], 2,
     "reviews.jsonl", True),
    ("annotations", "golden/annotations/bob.jsonl", ["agreement", "--with", "bob"], 2, "bob.jsonl", True),
    ("configuration", "labeller.toml", ["build"], 2, "labeller.toml", False),
    ("eval baseline", "baseline.json", ["eval", "--no-history", "--baseline", "{root}/baseline.json"], 2,
     "baseline.json", False),
]


@pytest.mark.parametrize("what,where,command,code,name,by_line", CASES, ids=[c[0] for c in CASES])
def test_a_deeply_nested_input_file_is_refused_with_its_name(tmp_path, capsys, what, where, command, code, name,
                                                              by_line):
    root = small_project(tmp_path / "p")
    assert main(["build", "--root", str(root)]) == 0  # the artifact --check compares with
    path = root / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(("k = " + DEEP if where.endswith(".toml") else DEEP) + "\n", encoding="utf-8")
    rc, said = run(capsys, root, *[a.format(root=root) for a in command])
    assert rc == code, said
    assert name in said
    if by_line:
        assert names_line_1(said, name), said


@pytest.mark.parametrize("where,problem", [("golden/golden-set.v1.jsonl", "line 1"),
                                           ("golden/golden-set.v1.manifest.json", "manifest")],
                         ids=["artifact", "manifest"])
def test_a_deeply_nested_committed_artifact_is_drift(tmp_path, capsys, where, problem):
    root = small_project(tmp_path / "p")
    assert main(["build", "--root", str(root)]) == 0
    (root / where).write_text(DEEP + "\n", encoding="utf-8")
    rc, said = run(capsys, root, "build", "--check")
    assert rc == 1, said
    assert problem in said


@pytest.mark.parametrize("fmt,name,content", [
    ("jsonl", "d.jsonl", DEEP + "\n"),
    ("yaml", "d.yaml", DEEP + "\n"),
    ("pages-json", "d.json", DEEP),
], ids=["jsonl", "yaml", "pages-json"])
def test_a_deeply_nested_import_is_refused_with_its_name(tmp_path, capsys, fmt, name, content):
    root = small_project(tmp_path / "p")
    (tmp_path / name).write_text(content, encoding="utf-8")
    rc, said = run(capsys, root, "import", fmt, str(tmp_path / name), "--dry-run")
    assert rc == 2 and name in said, said


def test_a_deeply_nested_beir_folder_is_refused_with_its_name(tmp_path, capsys):
    """(Import reads queries.jsonl and the qrels; corpus.jsonl is not read at all.)"""
    root = small_project(tmp_path / "p")
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "queries.jsonl").write_text('{"_id": "q", "text": "alpha?"}\n', encoding="utf-8")
    (beir / "corpus.jsonl").write_text('{"_id": "d", "title": "", "text": "alpha beta"}\n', encoding="utf-8")
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq\td\t1\n", encoding="utf-8")
    (beir / "queries.jsonl").write_text(DEEP + "\n", encoding="utf-8")
    rc, said = run(capsys, root, "import", "beir", str(beir), "--dry-run")
    assert rc == 2 and names_line_1(said, "queries.jsonl"), said


def test_a_deeply_nested_journal_is_unreadable_not_a_crash(tmp_path):
    from labeller.app.journal import Journal, JournalError

    journal = Journal(tmp_path / "journal.json")  # Journal takes the file (config.layout.journal)
    journal.path.write_text(DEEP, encoding="utf-8")
    with pytest.raises(JournalError) as refused:
        journal.read()
    assert "journal.json" in str(refused.value) and "nested too deeply" in str(refused.value)


def test_a_deeply_nested_index_manifest_is_a_corrupt_cache(tmp_path):
    from labeller.eval.retrievers.bm25 import MANIFEST, load_storage

    (tmp_path / MANIFEST).write_text(DEEP, encoding="utf-8")
    # whatever the secret: the manifest is refused before its MAC is even checked
    assert load_storage(tmp_path, {"any": "key"}, b"secret") == (None, "corrupt")
