"""A git repository whose corpus was reorganised after its last build (tests of moves and repair).

Built and committed once, then: ``ch01.md`` renamed to ``ch02.md`` and one of its labelled
sentences edited (so only git's pairing or the quotes' evidence pair it, not its sha256), a paragraph moved from
``guide.md`` into ``faq.md``, a paragraph of ``guide.md`` deleted, and ``notes.md`` deleted
with its sentence now in two other documents (ambiguous).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from conftest import q, write_project
from helpers_interop import cli, cli_json

CH01 = ("# Chapter one\n\nThe quick brown fox jumps over the lazy dog.\n\n"
        "A second paragraph about cats and their habits.\n\nCats sleep sixteen hours a day.\n")
CH02 = CH01.replace("sleep sixteen hours", "sleep up to sixteen hours")
GUIDE = ("# Guide\n\nInstall the tool with pip install labeller.\n\n## Usage\n\nRun labeller build in the root.\n\n"
         "The cache lives under the XDG cache folder.\n")
GUIDE_AFTER = "# Guide\n\nInstall the tool with pip install labeller.\n\n## Usage\n\nA shared note about limits.\n"
FAQ = "# FAQ\n\nWhere do things go?\n"
FAQ_AFTER = FAQ + "\nThe cache lives under the XDG cache folder.\n\nA shared note about limits.\n"
NOTES = "# Notes\n\nA shared note about limits.\n"
QUESTIONS = [
    q("r-fox", {"doc": "ch01.md", "quote": "quick brown fox"}, query="which animal jumps?"),
    q("r-cat", {"doc": "ch01.md", "quote": "about cats", "suffix": " and their"}, query="what is it about?"),
    q("r-sleep", {"doc": "ch01.md", "quote": "Cats sleep sixteen hours a day."}, query="how long do cats sleep?"),
    q("r-pip", {"doc": "guide.md", "quote": "pip install labeller"}, query="how do I install it?"),
    q("r-cache", {"doc": "guide.md", "quote": "cache lives under the XDG"}, query="where is the cache?"),
    q("r-run", {"doc": "guide.md", "quote": "Run labeller build in the root."}, query="how do I build?"),
    q("r-note", {"doc": "notes.md", "quote": "A shared note about limits."}, query="what about limits?"),
]
MOVED_IDS = ["r-fox", "r-cat", "r-cache"]  # the moves the reorganisation makes
# a page renamed and rewritten so that it holds the labelled sentence twice (in its own section and a copy)
AUTHORS = "a list of authors and should contain at least one"
MANIFEST = (f"# The manifest\n\nEach field of the manifest file is described below.\n\n## Authors\n\nThe package "
            f"authors. This is {AUTHORS} author, in the form of a name and an address.\n\n## Urls\n\nLinks shown "
            "on the package index.\n")
MANIFEST_NOW = (f"# The manifest\n\nEach field of the manifest file is described below.\n\n## The project table\n\n"
                f"The standard fields come first, read by every packaging tool in the same way.\n\nThis is {AUTHORS} "
                f"author, and so on for the standard table.\n\n## The tool table\n\n### Authors\n\nThe package "
                f"authors. This is {AUTHORS} author, in the form of a name and an address.\n\n### Urls\n\nLinks "
                "shown on the package index.\n")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def commit_all(root: Path, message: str) -> None:
    """The project committed as it is, in a git work tree made for it on the first call."""
    if not (root / ".git").exists():
        git(root, "init", "-q")
        git(root, "config", "user.email", "t@example.com")
        git(root, "config", "user.name", "t")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def reorganised(tmp_path: Path, capsys, *, use_git: bool = True) -> Path:
    """The project after the reorganisation, its last build committed before it (with
    ``use_git`` false: the same files, no repository)."""
    root = write_project(tmp_path / "proj", {"ch01.md": CH01, "guide.md": GUIDE, "faq.md": FAQ, "notes.md": NOTES},
                         QUESTIONS)
    rc, _, err = cli(capsys, "build", "--root", root)
    assert rc == 0, err
    if use_git:
        commit_all(root, "built")
        git(root, "mv", "corpus/ch01.md", "corpus/ch02.md")
    else:
        shutil.move(root / "corpus/ch01.md", root / "corpus/ch02.md")
    (root / "corpus/ch02.md").write_text(CH02, encoding="utf-8")
    (root / "corpus/guide.md").write_text(GUIDE_AFTER, encoding="utf-8")
    (root / "corpus/faq.md").write_text(FAQ_AFTER, encoding="utf-8")
    (root / "corpus/notes.md").unlink()
    if use_git:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "reorganised")
    return root


def renamed_manifest(tmp_path: Path, capsys, questions: list) -> Path:
    """A git work tree whose ``questions`` label ``docs/manifest.md``, built and committed, then
    the page renamed ``manifest.md`` as ``MANIFEST_NOW`` (``AUTHORS`` twice) and committed."""
    root = write_project(tmp_path / "proj", {"docs/manifest.md": MANIFEST}, questions)
    assert cli_json(capsys, "build", "--root", root)[0] == 0
    commit_all(root, "built")
    git(root, "mv", "corpus/docs/manifest.md", "corpus/manifest.md")
    (root / "corpus/manifest.md").write_text(MANIFEST_NOW, encoding="utf-8")
    commit_all(root, "renamed")
    return root


def edited_project(tmp_path: Path, capsys, monkeypatch, before: str, after: str, quote: str, doc: str = "page.md",
                   rid: str = "r-1"):
    """A git work tree whose last build (committed) labels ``quote`` in ``doc``, then the
    page edited to ``after`` and committed; and the build's report of the refused label."""
    monkeypatch.setenv("LABELLER_REVIEWER", "repair-bot")
    root = write_project(tmp_path / "proj", {doc: before}, [q(rid, {"doc": doc, "quote": quote})])
    assert cli_json(capsys, "build", "--root", root)[0] == 0
    commit_all(root, "built")
    (root / "corpus" / doc).write_text(after, encoding="utf-8")
    git(root, "commit", "-q", "-am", "edited")
    _, built = cli_json(capsys, "build", "--root", root)
    (error,) = built["errors"]
    return root, error
