"""Hostile projects fail closed, with exit codes that mean one thing (issue 18, items 4-6).

0 ok, 1 refused / drift / regression, 2 invalid input or an environment error (naming the
path), 3 an internal error (one line and the path of a traceback file). Every fixture is
built here; nothing binary is committed.
"""

from __future__ import annotations

import errno
import json
import os
import unicodedata
from pathlib import Path

import pytest

from conftest import q, write_project
from labeller.cli import main
from labeller.display import json_dumps

DOCS = {"a.md": "# Alpha\n\nThe alpha paragraph explains retention of nine days.\n\n## Sub\n\nMore text here.\n",
        "guide/b.md": "# Beta\n\nBeta keeps a separate fact about the lighthouse keeper.\n"}
GOOD = q("r1", {"quote": "retention of nine days"})


def build(root: Path, *args: str) -> int:
    return main(["build", "--root", str(root), *args])


def project(tmp_path, questions=(GOOD,), docs=DOCS) -> Path:
    return write_project(tmp_path / "p", docs, list(questions))


def write_raw(root: Path, line: str) -> None:
    (root / "golden" / "questions.jsonl").write_text(line + "\n", encoding="utf-8")


# -- fail closed: the corpus walk ------------------------------------------------------------

def test_an_unreadable_corpus_folder_is_a_refusal_naming_it(tmp_path, monkeypatch, capsys):
    root = project(tmp_path)
    guide = root / "corpus" / "guide"
    real = os.scandir

    def scandir(path="."):
        if Path(path) == guide:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)  # what chmod 000 does, even for root
    assert build(root) == 2
    err = capsys.readouterr().err
    assert str(guide) in err and "Permission denied" in err
    assert not (root / "golden" / "golden-set.v1.jsonl").exists()


def test_a_file_vanishing_mid_walk_is_a_refusal_naming_it(tmp_path, monkeypatch, capsys):
    root = project(tmp_path)
    victim = root / "corpus" / "guide" / "b.md"
    real = Path.lstat

    def lstat(self):
        if self == victim:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(self))
        return real(self)

    monkeypatch.setattr(Path, "lstat", lstat)
    assert build(root) == 2
    err = capsys.readouterr().err
    assert str(victim) in err and "vanished" in err


def test_a_file_vanishing_between_walk_and_read_is_a_refusal_naming_it(tmp_path, monkeypatch, capsys):
    from labeller.core import corpus

    root = project(tmp_path)
    victim = root / "corpus" / "a.md"
    real = corpus.walk_corpus

    def walk_then_delete(*args, **kw):
        found = real(*args, **kw)
        victim.unlink()
        return found

    monkeypatch.setattr(corpus, "walk_corpus", walk_then_delete)
    assert build(root) == 2
    assert str(victim) in capsys.readouterr().err


@pytest.mark.parametrize("names", [("Guide.md", "guide.md"),
                                   (unicodedata.normalize("NFC", "café.md"), unicodedata.normalize("NFD", "café.md"))])
def test_names_differing_only_in_case_or_normalisation_are_refused_naming_both(tmp_path, names, capsys):
    docs = {names[0]: "# One\n\nThe first text.\n", names[1]: "# Two\n\nThe second text.\n"}
    root = write_project(tmp_path / "p", docs, [q("r1", {"quote": "The first text."})])
    if len({p.name for p in (root / "corpus").iterdir()}) < 2:
        pytest.skip("this file system folds these names into one")
    assert build(root) == 2
    err = capsys.readouterr().err
    assert repr(names[0]) in err and repr(names[1]) in err


def test_a_corpus_file_is_read_bounded(tmp_path, monkeypatch):
    """A file over the bound is refused on its open descriptor; one that grows after that
    check is read one byte past the bound, never whole, and refused."""
    from labeller.core import corpus
    from labeller.errors import InvalidInput
    from labeller.io import open_untrusted, read_open

    path = tmp_path / "big.md"
    path.write_bytes(b"x" * 5000)
    with pytest.raises(InvalidInput, match="over the bound of 100"):
        corpus.read_file_nofollow(path, 100)
    path.write_bytes(b"x" * 50)
    read: list[int] = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: read.append(n) or real_read(fd, n))
    with open_untrusted(path, max_bytes=100) as (fd, _):
        path.write_bytes(b"x" * 5000)  # the same inode grows after the fstat
        with pytest.raises(InvalidInput, match="grew past the bound of 100"):
            read_open(fd, path, max_bytes=100)
    assert sum(read) <= 101


# -- exit codes ----------------------------------------------------------------------------

def test_an_internal_error_exits_3_with_one_line_and_a_traceback_file(tmp_path, monkeypatch, capsys):
    from labeller.core import project as project_module

    root = project(tmp_path)

    def broken(*args, **kw):
        raise ZeroDivisionError("a bug deep inside")

    monkeypatch.setattr(project_module.Project, "__init__", broken)
    assert build(root) == 3
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "internal error" in lines[0] and "Traceback" not in captured.err
    report = Path(lines[0].rsplit("traceback in ", 1)[1])
    assert report.is_file() and "ZeroDivisionError: a bug deep inside" in report.read_text()
    assert root not in report.parents
    assert build(root, "--format", "json") == 3
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and out["errors"][0]["kind"] == "internal"


def test_a_full_disk_exits_2_naming_the_path(tmp_path, monkeypatch, capsys):
    from labeller.core import build as build_module

    root = project(tmp_path)
    target = root / "golden" / "golden-set.v1.jsonl"

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(build_module, "atomic_write_bytes", full)
    assert build(root) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and str(root / "golden") in err
    assert not target.exists()


@pytest.mark.parametrize("record", [
    {"id": "r1", "query": "q?", "expected_answer": "a\\ud800", "locators": [{"quote": "retention"}]},
    {"id": "r1", "query": "q?", "expected_answer": "a", "tags": ["\\udc00"], "locators": [{"quote": "retention"}]},
    {"id": "r1", "query": "q?", "expected_answer": "a", "locators": [{"doc": "a\\ud800.md", "quote": "x"}]},
    {"id": "r1", "query": "q?", "expected_answer": "a", "locators": [{"doc": "a.md", "heading": "S\\udbff"}]},
])
def test_a_lone_surrogate_anywhere_is_invalid_input(tmp_path, record, capsys):
    root = project(tmp_path)
    write_raw(root, json.dumps(record).replace("\\\\u", "\\u"))
    assert build(root) == 2
    assert "lone surrogate" in capsys.readouterr().err


def test_a_surrogate_pair_is_one_character_and_fine(tmp_path):
    root = project(tmp_path)
    write_raw(root, '{"id": "r1", "query": "q \\ud83d\\ude00?", "expected_answer": "a", '
                    '"locators": [{"quote": "retention of nine days"}]}')
    assert build(root) == 0


def test_a_5000_digit_integer_is_invalid_input(tmp_path, capsys):
    root = project(tmp_path)
    write_raw(root, '{"id": "r1", "query": "q?", "expected_answer": "a", "hop": ' + "9" * 5000 +
              ', "locators": [{"quote": "retention"}]}')
    assert build(root) == 2


@pytest.mark.parametrize("toml", ["[build]\nmax_chars = 0\n", "[eval]\nseed = -1\n", '[eval]\nk = ["a"]\n'])
def test_bad_config_types_are_invalid_input(tmp_path, toml, capsys):
    root = project(tmp_path)
    (root / "labeller.toml").write_text(toml)
    assert build(root) == 2
    assert "labeller.toml" in capsys.readouterr().err


@pytest.mark.parametrize("keep", [0.5, 0.0])
def test_a_truncated_run_history_is_invalid_input(tmp_path, keep):
    from labeller.errors import InvalidInput
    from labeller.eval import history

    path = tmp_path / "runs.duckdb"
    history.connect(path, create=True).close()
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * keep)])
    for create in (True, False):
        with pytest.raises(InvalidInput, match="run history"):
            history.connect(path, create=create)


# -- ambiguous input -------------------------------------------------------------------------

@pytest.mark.parametrize("rid", [" ", "\t", "r1 ", " r1", "a\u0007b", "a\u0085b", "a\u202eb", "a\u200bb", "a\nb"])
def test_ids_must_be_printable(tmp_path, rid, capsys):
    root = project(tmp_path, [q(rid, {"quote": "retention of nine days"})])
    assert build(root) == 2
    assert "id" in capsys.readouterr().err


def test_an_id_with_inner_spaces_and_unicode_letters_is_fine(tmp_path):
    assert build(project(tmp_path, [q("réponse 1", {"quote": "retention of nine days"})])) == 0


HOSTILE = "a\u009b31mred\u202eevil\u2066x\u2028y\u0085z"


def test_json_output_escapes_c1_controls_and_bidi_overrides():
    text = json_dumps({"q": HOSTILE, "k": "ü ✓ 日本"})
    assert json.loads(text) == {"q": HOSTILE, "k": "ü ✓ 日本"}
    assert all(ch not in text for ch in "\u009b\u202e\u2066\u2028\u0085")
    assert "ü ✓ 日本" in text


def test_build_json_report_and_exports_carry_no_raw_control(tmp_path, capsys):
    root = project(tmp_path, [q("r1", {"quote": "retention of nine days"}, query=f"why {HOSTILE}?",
                                expected_answer=HOSTILE, tags=[HOSTILE]),
                              q("r2", {"quote": f"missing {HOSTILE}"})])
    assert build(root, "--format", "json") == 1
    out = capsys.readouterr().out
    assert json.loads(out)["errors"] and all(ch not in out for ch in "\u009b\u202e\u2066\u2028\u0085")
    write_raw(root, json.dumps(q("r1", {"quote": "retention of nine days"}, query=f"why {HOSTILE}?",
                                 expected_answer=HOSTILE, tags=[HOSTILE]), ensure_ascii=False))
    for fmt in ("jsonl", "pages-json"):
        target = tmp_path / f"out.{fmt}"
        assert main(["export", fmt, "--root", str(root), "--out", str(target)]) == 0, fmt
        data = target.read_text(encoding="utf-8")
        assert all(ch not in data for ch in "\u009b\u202e\u2066\u2028\u0085"), fmt
    assert main(["export", "beir", "--root", str(root), "--out", str(tmp_path / "beir")]) == 0
    data = (tmp_path / "beir" / "queries.jsonl").read_text(encoding="utf-8")
    assert all(ch not in data for ch in "\u009b\u202e\u2066\u2028\u0085") and "why" in data


def test_rich_emoji_codes_and_markup_in_records_print_as_text(tmp_path, capsys):
    root = project(tmp_path, [q("r1", {"quote": "missing :smile: [bold]x[/bold]"})])
    assert build(root) == 1
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert ":smile:" in text and "\U0001f604" not in text and "[bold]x[/bold]" in text
