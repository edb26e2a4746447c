"""``labeller diff``: what changed between two versions of a golden set, in a real git repository.

Each kind of change is made on purpose (a query re-worded, a quote edited, text inserted
above a span, text added beside it in the same chunk, a tag changed, a record added and one
removed) and the diff must name exactly those records with exactly those kinds; spans and
chunk ids come from real builds of each version."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import q, write_project
from helpers_interop import cli, cli_json

INTRO = "# Intro\n\nThe quick brown fox jumps over the lazy dog.\n\nA second paragraph about cats.\n"
GUIDE = "# Guide\n\nInstall the tool with pip install labeller.\n\n## Usage\n\nRun labeller build in the root.\n"
QUESTIONS = [
    q("r-fox", {"doc": "intro.md", "quote": "quick brown fox"}, query="which animal jumps?"),
    q("r-cat", {"doc": "intro.md", "quote": "about cats"}, query="what is the second paragraph about?"),
    q("r-pip", {"doc": "guide.md", "quote": "pip install labeller"}, query="how do I install it?"),
    q("r-run", {"doc": "guide.md", "quote": "labeller build"}, query="how do I build?", tags=["cli"]),
    q("r-old", {"doc": "guide.md", "quote": "in the root"}, query="where do I run the build?"),
]


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path, capsys) -> Path:
    root = write_project(tmp_path / "proj", {"intro.md": INTRO, "guide.md": GUIDE}, QUESTIONS)
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    commit(root, capsys, "first")
    return root


def commit(root: Path, capsys, message: str) -> None:
    rc, _, err = cli(capsys, "build", "--root", root)
    assert rc == 0, err
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def edit_questions(root: Path, change) -> None:
    path = root / "golden/questions.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    path.write_text("".join(json.dumps(r) + "\n" for r in change(records)), encoding="utf-8")


def artifact_of(root: Path) -> dict[str, dict]:
    lines = (root / "golden/golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines()
    return {rec["query_id"]: rec for rec in map(json.loads, lines)}


def make_every_change(root: Path) -> None:
    def change(records):
        by_id = {r["id"]: r for r in records}
        by_id["r-fox"]["query"] = "which animal leaps?"
        by_id["r-pip"]["locators"] = [{"doc": "guide.md", "quote": "Install the tool"}]
        by_id["r-run"]["tags"] = ["cli", "build"]
        return [r for r in records if r["id"] != "r-old"] + [
            q("r-new", {"doc": "guide.md", "quote": "Run labeller build"}, query="a new question?")]

    edit_questions(root, change)
    # a paragraph inserted above r-cat's span moves it; r-fox's span, above it, stays where it is
    (root / "corpus/intro.md").write_text(INTRO.replace("A second", "An inserted paragraph.\n\nA second"),
                                          encoding="utf-8")


def kinds_of(report: dict) -> dict[str, list[str]]:
    return {c["id"]: c["kinds"] for c in report["changes"]}


def test_each_kind_of_change_is_named_on_its_record(repo, capsys):
    make_every_change(repo)
    rc, report = cli_json(capsys, "diff", "--root", repo)
    assert rc == 0
    # r-fox's span stays, but the inserted paragraph is in its chunk (intro.md is one chunk): re-chunked too
    assert kinds_of(report) == {"r-fox": ["reworded", "rechunked"], "r-cat": ["moved"], "r-pip": ["reanchored"],
                                "r-run": ["retagged"], "r-new": ["added"], "r-old": ["removed"]}
    assert report["summary"] == {"added": 1, "removed": 1, "reworded": 1, "answer": 0, "reanchored": 1,
                                 "moved": 1, "rechunked": 1, "retagged": 1}
    # the spans on each side are the two builds' own (HEAD's committed artifact, then a fresh build)
    before = artifact_of(repo)
    cli(capsys, "build", "--root", repo)
    after = artifact_of(repo)
    cat = next(c for c in report["changes"] if c["id"] == "r-cat")
    assert cat["before"]["spans"] == [{k: s[k] for k in ("char_end", "char_start", "doc_id")}
                                      for s in before["r-cat"]["answer_spans"]]
    assert cat["after"]["spans"] == [{k: s[k] for k in ("char_end", "char_start", "doc_id")}
                                     for s in after["r-cat"]["answer_spans"]]
    assert cat["after"]["spans"][0]["char_start"] == cat["before"]["spans"][0]["char_start"] + len(
        "An inserted paragraph.\n\n")
    added = next(c for c in report["changes"] if c["id"] == "r-new")
    assert added["before"] is None and added["after"]["answer_bearing_chunk_ids"] == \
        after["r-new"]["answer_bearing_chunk_ids"]


def test_same_spans_in_another_chunk_is_rechunked(repo, capsys):
    # text added after the span, in the same section: the span stays, its chunk's text (and id) changes
    (repo / "corpus/guide.md").write_text(GUIDE + "\nOne more line in the usage section.\n", encoding="utf-8")
    _, report = cli_json(capsys, "diff", "--root", repo)
    assert kinds_of(report) == {"r-run": ["rechunked"], "r-old": ["rechunked"]}
    run = report["changes"][0]
    assert run["before"]["spans"] == run["after"]["spans"]
    assert run["before"]["answer_bearing_chunk_ids"] != run["after"]["answer_bearing_chunk_ids"]


def test_two_revisions_read_their_committed_artifacts(repo, capsys):
    make_every_change(repo)
    _, worktree = cli_json(capsys, "diff", "--root", repo)
    commit(repo, capsys, "second")
    _, revisions = cli_json(capsys, "diff", "HEAD~1", "HEAD", "--root", repo)
    assert revisions["changes"] == worktree["changes"] and revisions["summary"] == worktree["summary"]
    assert revisions["old"].startswith("HEAD~1 (") and revisions["new"].startswith("HEAD (")
    # deterministic: the same two versions give the same bytes
    assert cli(capsys, "diff", "HEAD~1", "HEAD", "--root", repo, "--format", "json")[1] == \
        cli(capsys, "diff", "HEAD~1", "HEAD", "--root", repo, "--format", "json")[1]


def test_two_questions_files_are_built_against_the_current_corpus(repo, capsys, tmp_path):
    old = tmp_path / "old.jsonl"
    old.write_bytes((repo / "golden/questions.jsonl").read_bytes())
    edit_questions(repo, lambda rs: [dict(r, expected_answer="changed") if r["id"] == "r-cat" else r for r in rs])
    rc, report = cli_json(capsys, "diff", old, repo / "golden/questions.jsonl", "--root", repo)
    assert rc == 0 and kinds_of(report) == {"r-cat": ["answer"]}
    assert report["old"] == str(old)


def test_exit_code_and_no_change(repo, capsys):
    assert cli(capsys, "diff", "--root", repo, "--exit-code")[0] == 0
    edit_questions(repo, lambda rs: rs[:-1])
    rc, out, _ = cli(capsys, "diff", "--root", repo, "--exit-code")
    assert rc == 1 and "- r-old  removed" in out


def test_a_commit_without_a_rebuild_is_refused_not_diffed_wrongly(repo, capsys):
    edit_questions(repo, lambda rs: [dict(r, query="re-worded without a build?") if r["id"] == "r-fox" else r
                                     for r in rs])
    git(repo, "commit", "-q", "-am", "questions only")
    rc, _, err = cli(capsys, "diff", "HEAD~1", "HEAD", "--root", repo)
    assert rc == 2 and "not rebuilt" in err and "r-fox" in err


def test_a_revision_without_a_golden_set_counts_every_record_added(repo, capsys):
    git(repo, "checkout", "-q", "--orphan", "empty")
    git(repo, "rm", "-rq", "--cached", ".")
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty")
    _, report = cli_json(capsys, "diff", "empty", "--root", repo)
    assert report["summary"]["added"] == len(QUESTIONS) and report["change_count"] == len(QUESTIONS)


@pytest.mark.parametrize("rev", ["--help", "-x", "no-such-branch", "HEAD:golden"])
def test_a_bad_revision_is_exit_2_never_an_option(repo, capsys, rev):
    rc, out, err = cli(capsys, "diff", f"{rev}", "--root", repo) if not rev.startswith("-") else \
        cli(capsys, "diff", "--root", repo, "--", rev)
    assert rc == 2 and "neither a file nor a revision" in err and out == ""


def test_markdown_is_a_bounded_escaped_table(repo, capsys):
    hostile = "<script>alert(1)</script> | [link](http://x) @team"
    edit_questions(repo, lambda rs: [dict(r, query=hostile) if r["id"] == "r-fox" else r for r in rs]
                   + [q(f"r-{i:03}", {"doc": "intro.md", "quote": "quick brown fox"}, query=f"q {i}?")
                      for i in range(30)])
    rc, out, _ = cli(capsys, "diff", "--root", repo, "--format", "markdown")
    assert rc == 0
    lines = out.splitlines()
    table = [line for line in lines if line.startswith("| ")]
    assert table[0] == "| id | change | before | after |" and len(table) == 1 + 20
    assert "<script>" not in out and "](http" not in out and " @team" not in out
    assert all(line.count(" | ") == 3 for line in table)  # the query's pipe is escaped, not a new column
    assert "11 more changed records" in out
