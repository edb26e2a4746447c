"""Red-team pass over ``labeller diff``, ``eval --html``, ``judge --verdicts`` and the
``[retriever.*]`` settings, attacked as a fork's pull request would attack them in CI.

Each test is one attack that worked (or would have) before its fix: a planted file that
shadows a revision, a committed symlink or submodule read as the golden set, a folder that
looks like a bare repository, a branch name that is Markdown, a tag that stalls the chart
renderer, a verdicts file that repeats itself, a model folder linking out of the project,
a megabyte prefix embedded with every chunk."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers_interop import cli, cli_json
from test_golden_diff import QUESTIONS, commit, git, repo  # noqa: F401 - repo is a fixture

# -- labeller diff --------------------------------------------------------------------------


def test_a_planted_file_named_like_a_revision_is_refused_not_diffed(repo, capsys, monkeypatch):  # noqa: F811
    # a pull request commits a file named HEAD holding the questions it wants reviewers to see as the base
    planted = repo / "HEAD"
    planted.write_text((repo / "golden/questions.jsonl").read_text(encoding="utf-8").replace(
        "which animal jumps?", "planted base"), encoding="utf-8")
    monkeypatch.chdir(repo)
    rc, out, err = cli(capsys, "diff", "HEAD", "--root", repo)
    assert rc == 2 and out == "" and "'HEAD' names both a file and the revision" in err
    # either reading is still there, spelled unambiguously
    _, as_file = cli_json(capsys, "diff", "./HEAD", "--root", repo)
    _, as_rev = cli_json(capsys, "diff", "HEAD^{commit}", "--root", repo)
    assert [c["id"] for c in as_file["changes"]] == ["r-fox"] and as_rev["changes"] == []


def _commit_tree_entry(root: Path, mode: str, sha: str, path: str) -> None:
    git(root, "update-index", "--add", "--cacheinfo", f"{mode},{sha},{path}")
    git(root, "commit", "-q", "-m", f"{path} as {mode}")


@pytest.mark.parametrize("what", ["symlink", "submodule", "folder", "symlinked folder"])
def test_a_committed_symlink_or_submodule_is_never_read_as_the_golden_set(repo, capsys, what):  # noqa: F811
    link = subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin"], input=b"/etc/passwd",
                          capture_output=True, check=True).stdout.decode().strip()
    if what == "symlink":
        git(repo, "rm", "-q", "--cached", "golden/questions.jsonl")
        _commit_tree_entry(repo, "120000", link, "golden/questions.jsonl")
    elif what == "submodule":
        git(repo, "rm", "-q", "--cached", "golden/questions.jsonl")
        _commit_tree_entry(repo, "160000", git(repo, "rev-parse", "HEAD").strip(), "golden/questions.jsonl")
    elif what == "folder":
        git(repo, "rm", "-q", "--cached", "golden/questions.jsonl")
        _commit_tree_entry(repo, "100644", link, "golden/questions.jsonl/x")
    else:
        git(repo, "rm", "-rq", "--cached", "golden")
        _commit_tree_entry(repo, "120000", link, "golden")
    rc, out, err = cli(capsys, "diff", "HEAD~1", "HEAD", "--root", repo)
    kind = {"symlink": "a symlink", "submodule": "a submodule", "folder": "a folder",
            "symlinked folder": "a symlink"}[what]
    assert rc == 2 and out == "", out
    assert f"is {kind} in that commit" in err and "labeller reads a revision's files only as committed" in err


def test_a_folder_that_looks_like_a_bare_repository_is_not_read_as_one(tmp_path, capsys):
    """A project outside any clone (an unpacked archive of a fork) holding HEAD, objects/, refs/:
    git would take the folder itself for a bare repository, with the fork's config and refs."""
    from conftest import q, write_project
    root = tmp_path / "unpacked"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "--bare", str(root)], check=True)
    work = tmp_path / "w"
    write_project(work, {"intro.md": "# Intro\n\nThe quick brown fox.\n"},
                  [q("r-1", {"doc": "intro.md", "quote": "quick brown fox"}, query="planted base?")])
    assert cli(capsys, "build", "--root", work)[0] == 0
    env = ["git", f"--git-dir={root}", f"--work-tree={work}", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*env, "add", "-A"], check=True)
    subprocess.run([*env, "commit", "-q", "-m", "planted"], check=True)
    write_project(root, {"intro.md": "# Intro\n\nThe quick brown fox.\n"},
                  [q("r-1", {"doc": "intro.md", "quote": "quick brown fox"}, query="the real question?")])
    rc, out, err = cli(capsys, "diff", "HEAD", "--root", root)
    assert rc == 2 and out == "" and "neither a file nor a revision" in err


def test_git_runs_nothing_the_repository_configures(repo, capsys, tmp_path):  # noqa: F811
    marks = tmp_path / "marks"
    marks.mkdir()
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("post-checkout", "post-index-change", "reference-transaction", "pre-auto-gc"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {marks}/hook-{hook}\n")
        (hooks / hook).chmod(0o755)
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    commit(repo, capsys, "second")  # before the configuration: the test's own git would run it
    for key, value in (("core.fsmonitor", f"touch {marks}/fsmonitor; false"), ("core.pager", f"touch {marks}/pager"),
                       ("filter.evil.smudge", f"touch {marks}/smudge; cat"), ("filter.evil.clean", "cat"),
                       ("diff.evil.textconv", f"touch {marks}/textconv; cat"), ("core.hooksPath", str(hooks)),
                       ("core.sshCommand", f"touch {marks}/ssh"), ("alias.cat-file", f"!touch {marks}/alias")):
        git(repo, "config", key, value)
    assert cli(capsys, "diff", "HEAD~1", "HEAD", "--root", repo)[0] == 0
    assert cli(capsys, "diff", "--root", repo)[0] == 0
    assert sorted(p.name for p in marks.iterdir()) == []


def test_a_branch_name_in_the_markdown_headline_is_text(repo, capsys):  # noqa: F811
    # a fork's branch may be called "<details>" or "`x`|y" (git allows both); workflows pass github.head_ref
    git(repo, "branch", "<details>`x`|y")
    rc, out, _ = cli(capsys, "diff", "<details>`x`|y", "HEAD", "--root", repo, "--format", "markdown")
    assert rc == 0 and "<details>" not in out and "`x`" not in out
    assert out.startswith("### labeller diff: \\<details\\>\\`x\\`\\|y")
