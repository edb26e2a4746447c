"""Hostile input: every path attack, every bound, undecodable bytes, terminal escapes, and a
build killed while writing. Each refusal is a clear message naming the file, exit 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import q
from helpers_interop import DOCS, cli, cli_json, make


# -- paths ------------------------------------------------------------------------------------


def test_symlink_as_a_corpus_file_is_refused(tmp_path, capsys):
    root = make(tmp_path / "p")
    outside = tmp_path / "outside.md"
    outside.write_text("# Secret\n\nnot part of the corpus\n")
    os.symlink(outside, root / "corpus/linked.md")
    rc, out, err = cli(capsys, "build", "--root", root)
    assert rc == 2 and "symlink" in err and "linked.md" in err
    assert not (root / "golden/golden-set.v1.jsonl").exists()


def test_symlinked_folder_inside_the_corpus_is_refused(tmp_path, capsys):
    root = make(tmp_path / "p")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere/x.md").write_text("x\n")
    os.symlink(tmp_path / "elsewhere", root / "corpus/sub")
    rc, out, err = cli(capsys, "build", "--root", root)
    assert rc == 2 and "symlink" in err and "sub" in err


def test_symlink_in_a_path_component_of_the_questions_file_is_refused(tmp_path, capsys):
    root = make(tmp_path / "p")
    real = tmp_path / "real-golden"
    (root / "golden").rename(real)
    os.symlink(real, root / "golden")
    rc, out, err = cli(capsys, "build", "--root", root)
    assert rc == 2 and "symlink" in err and "golden" in err
    # the same for a file to import, reached through a symlinked folder
    other = make(tmp_path / "o", questions=[])
    os.symlink(real, tmp_path / "via-link")
    rc, out, err = cli(capsys, "import", "jsonl", tmp_path / "via-link/questions.jsonl", "--root", other)
    assert rc == 2 and "symlink" in err


def test_a_symlinked_import_file_is_refused(tmp_path, capsys):
    root = make(tmp_path / "p", questions=[])
    real = tmp_path / "real.yaml"
    real.write_text("queries: []\n")
    os.symlink(real, tmp_path / "link.yaml")
    rc, out, err = cli(capsys, "import", "yaml", tmp_path / "link.yaml", "--root", root)
    assert rc == 2 and "symlink" in err


@pytest.mark.parametrize("doc", ["../outside.md", "/etc/passwd", "guide/../../x.md", "C:/x.md", "a\\..\\b.md"])
def test_traversal_and_absolute_paths_in_labels_exit_2(tmp_path, capsys, doc):
    root = make(tmp_path / "p", questions=[q("a", {"doc": doc, "quote": "root"})])
    rc, report = cli_json(capsys, "build", "--root", root)
    assert rc == 2 and report["errors"][0]["kind"] == "invalid"
    assert "relative to the corpus root" in report["errors"][0]["message"]
    # and in every import format
    other = make(tmp_path / "o", questions=[])
    before = (other / "golden/questions.jsonl").read_bytes()
    files = {"yaml": f"queries:\n  - id: a\n    query: q\n    expected:\n      - path: {json.dumps(doc)}\n",
             "pages-json": json.dumps([{"id": "a", "query": "q", "expected_pages": [doc]}]),
             "jsonl": json.dumps(q("a", {"doc": doc, "quote": "root"})) + "\n"}
    for fmt, text in files.items():
        path = tmp_path / f"in.{fmt}"
        path.write_text(text)
        rc, out, err = cli(capsys, "import", fmt, path, "--root", other)
        assert rc == 2 and "relative to the corpus root" in err, (fmt, err)
    qrels, topics = tmp_path / "q.txt", tmp_path / "t.tsv"
    qrels.write_text(f"a 0 {doc} 1\n")
    topics.write_text("a\tq\n")
    rc, out, err = cli(capsys, "import", "trec-qrels", qrels, "--queries", topics, "--root", other)
    assert rc == 2 and "relative to the corpus root" in err
    assert (other / "golden/questions.jsonl").read_bytes() == before


def test_non_regular_files_are_refused_without_blocking(tmp_path, capsys):
    root = make(tmp_path / "p")
    os.mkfifo(root / "corpus/pipe.md")
    rc, out, err = cli(capsys, "build", "--root", root)
    assert rc == 2 and "not a regular file" in err and "pipe.md" in err
    os.unlink(root / "corpus/pipe.md")
    os.mkfifo(tmp_path / "in.yaml")  # opening a FIFO would block: it must be refused from its lstat
    rc, out, err = cli(capsys, "import", "yaml", tmp_path / "in.yaml", "--root", root)
    assert rc == 2 and "not a regular file" in err


def test_undecodable_bytes_name_the_file_and_byte_offset(tmp_path, capsys):
    root = make(tmp_path / "p", {**DOCS, "bad.md": b"# Bad\n\nok so far \xc3\x28 broken\n"})
    rc, out, err = cli(capsys, "build", "--root", root)
    assert rc == 2 and "bad.md" in err and "byte offset 17" in err
    good = make(tmp_path / "g", questions=[])
    (good / "golden/questions.jsonl").write_bytes(b'{"id": "a"}\n\xff\n')
    rc, out, err = cli(capsys, "build", "--root", good)
    assert rc == 2 and "questions.jsonl" in err and "byte offset 12" in err
    (tmp_path / "in.yaml").write_bytes(b"queries: []\n# \xfe\n")
    rc, out, err = cli(capsys, "import", "yaml", tmp_path / "in.yaml", "--root", make(tmp_path / "h",
                                                                                     questions=[]))
    assert rc == 2 and "in.yaml" in err and "byte offset 14" in err


# -- bounds -------------------------------------------------------------------------------------


def record(i: int, query: str | None = None, n_locators: int = 1) -> str:
    quotes = ["nine days", "Restores need a ticket"] + [f"no such quote {j}" for j in range(n_locators)]
    locs = [{"doc": "ops/backup.md", "quote": quote} for quote in quotes[:n_locators]]
    return json.dumps({"id": f"r{i}", "query": query or f"q{i}", "expected_answer": "", "locators": locs})


def negative(i: int, pad: int = 0) -> str:
    return json.dumps({"id": str(i), "query": f"{i} {'x' * pad}", "expected_answer": "", "locators": [],
                       "unanswerable": True})


BOUNDS = {
    # name: (toml key, file over the default bound, value letting it pass, exit code then,
    #        small file within the default, value making it fail, message)
    "file": ("max_file_bytes", [negative(i, 6_000) for i in range(200)], 2_000_000, 0,
             [negative(1)], 10, "bytes, over the bound"),
    "records": ("max_records", [negative(i) for i in range(10_001)], 10_001, 0,
                [negative(1), negative(2)], 1, "more than"),
    "query": ("max_query_chars", [record(0, "é" * 8_001)], 8_001, 0, [record(0, "é" * 8)], 7, "over"),
    # 65 locators pass the raised bound, then most of their quotes do not resolve: a label error
    "locators": ("max_locators", [record(0, n_locators=65)], 65, 1, [record(0, n_locators=2)], 1,
                 "over the bound"),
}


@pytest.mark.parametrize("name", list(BOUNDS))
def test_each_bound_exits_2_and_is_configurable(tmp_path, capsys, name):
    key, big, raised, rc_raised, small, lowered, message = BOUNDS[name]
    root = make(tmp_path / "p", questions=big)
    rc, out, err = cli(capsys, "build", "--root", root)
    assert rc == 2 and message in err and f"limits] {key}" in err, err[:500]  # names the setting to raise
    (root / "labeller.toml").write_text(f"[limits]\n{key} = {raised}\n")
    rc, out, err = cli(capsys, "build", "--root", root)
    assert rc == rc_raised and message not in err, err[:500]
    small_root = make(tmp_path / "s", questions=small, toml=f"[limits]\n{key} = {lowered}\n")
    assert cli(capsys, "build", "--root", make(tmp_path / "d", questions=small))[0] == 0
    rc, out, err = cli(capsys, "build", "--root", small_root)
    assert rc == 2 and message in err


def test_query_bound_counts_characters_after_nfc_and_trimming(tmp_path, capsys):
    decomposed = "  " + "e\u0301" * 8_000 + "  "  # 16,004 code points raw, 8,000 after NFC and trim
    root = make(tmp_path / "p", questions=[record(0, decomposed)])
    assert cli(capsys, "build", "--root", root)[0] == 0


def test_import_files_obey_the_same_bounds(tmp_path, capsys):
    toml = "[limits]\nmax_file_bytes = 400\nmax_records = 2\nmax_query_chars = 10\nmax_locators = 2\n"
    root = make(tmp_path / "p", questions=[], toml=toml)
    cases = {
        "bytes": [{"id": "a", "query": "q" * 500, "expected_pages": []}],
        "records": [{"id": str(i), "query": f"q{i}", "expected_pages": []} for i in range(3)],
        "query": [{"id": "a", "query": "q" * 11, "expected_pages": []}],
        "labels": [{"id": "a", "query": "q", "expected_pages": ["faq.md", "ops/backup.md", "guide/install.md"]}],
    }
    messages = {"bytes": "over the bound of 400", "records": "over the bound of 2", "query": "over 10 characters",
                "labels": "3 labels, over the bound of 2"}
    for name, data in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        rc, out, err = cli(capsys, "import", "pages-json", path, "--root", root)
        assert rc == 2 and messages[name] in err and "limits] max_" in err, (name, err)


def test_corpus_file_size_bound_is_configurable(tmp_path, capsys):
    root = make(tmp_path / "p", questions=[], toml="[corpus]\nmax_file_bytes = 60\n")
    rc, out, err = cli(capsys, "build", "--root", root)
    assert rc == 2 and "over the bound of 60" in err and "max_file_bytes" in err
    (root / "labeller.toml").write_text("[corpus]\nmax_file_bytes = 1000\n")
    assert cli(capsys, "build", "--root", root)[0] == 0


# -- terminal safety ----------------------------------------------------------------------------

ESC_DOCS = {"alert.md": "# Alert\n\nThe \x1b[31mred alert\x1b[0m sounds at noon.\n\nA second \x1b[31mred alert\x1b[0m "
                        "sounds at dusk.\n"}
ESC_QUESTIONS = [
    q("evil-id", {"quote": "\x1b[31mred alert"}, query="why \x1b[31mred\x1b[0m?"),  # ambiguous: context shown
    q("nf", {"quote": "\x1b]0;pwned\x07 missing"}, query="title \x1b]0;x\x07?"),  # not found: suggestions shown
    q("dup", {"quote": "sounds at noon"}, query="why \x1b[31mred\x1b[0m?"),  # same query: invalid input
]


def run_labeller(*args, cwd=None) -> subprocess.CompletedProcess:
    code = "import sys; from labeller.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, cwd=cwd,
                          timeout=120)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_escape_sequences_never_reach_the_terminal(tmp_path, fmt):
    root = make(tmp_path / "p", ESC_DOCS, ESC_QUESTIONS[:2])
    proc = run_labeller("build", "--root", root, "--format", fmt)
    assert proc.returncode == 1
    assert b"\x1b" not in proc.stdout + proc.stderr and b"\x07" not in proc.stdout + proc.stderr
    shown = (proc.stdout + proc.stderr).decode()
    if fmt == "text":
        assert "␛[31m" in shown
    else:
        assert "\\u001b[31m" in shown
    # an id holding an escape sequence is itself refused (issue 18: ids must be printable), shown visibly
    root = make(tmp_path / "i", ESC_DOCS, [q("evil\x1b[2Jid", {"quote": "sounds at noon"})])
    proc = run_labeller("build", "--root", root, "--format", fmt)
    assert proc.returncode == 2 and b"\x1b" not in proc.stdout + proc.stderr
    assert "U+001B" in (proc.stdout + proc.stderr).decode()
    # an invalid-input refusal (duplicate query) quotes the record id, also made visible
    root = make(tmp_path / "q", ESC_DOCS, [ESC_QUESTIONS[0], ESC_QUESTIONS[2]])
    proc = run_labeller("build", "--root", root, "--format", fmt)
    assert proc.returncode == 2 and b"\x1b" not in proc.stdout + proc.stderr


def test_import_report_shows_hostile_ids_safely(tmp_path):
    root = make(tmp_path / "p", questions=[])
    path = tmp_path / "in.json"
    path.write_text(json.dumps([{"id": "x\x1b[31m", "query": "q\x1b[0m", "expected_pages": ["nope\x1b[5m.md"]}]))
    proc = run_labeller("import", "pages-json", path, "--root", root)
    assert proc.returncode == 1 and b"\x1b" not in proc.stdout + proc.stderr
    assert "␛[31m" in proc.stderr.decode()


# -- crash safety ----------------------------------------------------------------------------------

KILLER = textwrap.dedent("""
    # Test-only wrapper: SIGKILL this process at one chosen point of labeller.io's atomic write.
    import os, signal, sys
    from pathlib import Path
    import labeller.io as io

    point, target = sys.argv[1], sys.argv[2]
    real_replace, real_fsync = io.os.replace, io.os.fsync

    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    def replace(src, dst, *a, **k):
        if point == "replace" and Path(dst).name == target:
            die()  # the new bytes are complete and synced in the temp file; the rename never happens
        return real_replace(src, dst, *a, **k)

    def fsync(fd):
        if point == "fsync" and Path(os.readlink(f"/proc/self/fd/{fd}")).name.startswith("." + target + "."):
            die()  # killed while the temp file is being flushed to disk
        return real_fsync(fd)

    io.os.replace, io.os.fsync = replace, fsync  # io.os is the os module: patched process-wide
    from labeller.cli import main
    sys.exit(main(sys.argv[3:]))
""")


def run_killed(tmp_path, point, target, *args) -> subprocess.CompletedProcess:
    script = tmp_path / "killer.py"
    script.write_text(KILLER)
    return subprocess.run([sys.executable, str(script), point, target, *map(str, args)], capture_output=True,
                          timeout=120)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc to name the fsynced file")
@pytest.mark.parametrize("point", ["replace", "fsync"])
def test_a_build_killed_mid_write_leaves_the_previous_artifact_intact(tmp_path, capsys, point):
    root = make(tmp_path / "p")
    golden = root / "golden"
    assert cli(capsys, "build", "--root", root)[0] == 0
    before = snapshot(golden)
    with open(golden / "questions.jsonl", "a", encoding="utf-8") as fh:  # the next build has new bytes to write
        fh.write(json.dumps(q("q8", {"quote": "Restores need a ticket"})) + "\n")
    proc = run_killed(tmp_path, point, "golden-set.v1.jsonl", "build", "--root", root)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    after = snapshot(golden)
    for name in ("golden-set.v1.jsonl", "golden-set.v1.manifest.json"):
        assert after[name] == before[name], name  # byte-identical: old, whole
    leftovers = [n for n in after if n not in before]
    assert leftovers and all(n.startswith(".golden-set.v1.jsonl.") and n.endswith(".tmp") for n in leftovers)
    # nothing reads the leftover as the artifact: --check compares the real file and sees the old build
    rc, out, err = cli(capsys, "build", "--root", root, "--check")
    assert rc == 1 and "q8" in err and ".tmp" not in err
    assert cli(capsys, "build", "--root", root)[0] == 0
    assert cli(capsys, "build", "--root", root, "--check")[0] == 0


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc")
def test_a_kill_between_artifact_and_manifest_leaves_two_whole_files_that_check_flags(tmp_path, capsys):
    """Each file is replaced atomically, one after the other: a kill between the two renames
    leaves the new artifact beside the old manifest. Neither is torn, and --check says so."""
    root = make(tmp_path / "p")
    golden = root / "golden"
    assert cli(capsys, "build", "--root", root)[0] == 0
    before = snapshot(golden)
    with open(golden / "questions.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(q("q8", {"quote": "Restores need a ticket"})) + "\n")
    proc = run_killed(tmp_path, "replace", "golden-set.v1.manifest.json", "build", "--root", root)
    assert proc.returncode == -signal.SIGKILL
    rc, out, err = cli(capsys, "build", "--root", root, "--check")
    assert rc == 1  # the mismatch is caught, never trusted
    after = snapshot(golden)
    assert after["golden-set.v1.manifest.json"] == before["golden-set.v1.manifest.json"]
    assert after["golden-set.v1.jsonl"].count(b"\n") == before["golden-set.v1.jsonl"].count(b"\n") + 1


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc")
def test_an_import_killed_mid_write_leaves_questions_jsonl_intact(tmp_path, capsys):
    root = make(tmp_path / "p")
    path = tmp_path / "in.json"
    path.write_text(json.dumps([{"id": "p1", "query": "restores?", "expected_pages": ["ops/backup.md"]}]))
    before = (root / "golden/questions.jsonl").read_bytes()
    proc = run_killed(tmp_path, "replace", "questions.jsonl", "import", "pages-json", path, "--root", root)
    assert proc.returncode == -signal.SIGKILL
    assert (root / "golden/questions.jsonl").read_bytes() == before
    assert cli(capsys, "build", "--root", root)[0] == 0
