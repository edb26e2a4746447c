"""A small corpus and golden set exercising every label kind, for the interop tests.

Every document here has one section covering all its text, so a whole-document label
round-trips; ``UNCOVERABLE`` holds the two shapes that cannot (a preamble before the first
heading, two top-level sections).
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import q, write_project
from labeller.cli import main

DOCS = {
    "guide/install.md": "---\ntitle: Installing\n---\n# Install\n\nInstall the tool with the package manager of "
                        "your system.\n\n## Linux\n\n- download the tarball\n- unpack it into /opt\n\n"
                        "## Windows\n\n| step | action |\n|---|---|\n| 1 | run the installer |\n| 2 | reboot twice |\n",
    "ops/backup.md": "# Backup\n\nBackups run nightly at 02:00 and are kept for nine days.\n\n```sh\nbackup --all\n```\n\n"
                     "Restores need a ticket from the storage team.\n",
    "faq.md": "Frequently asked\n================\n\nWhy is the sky blue? Rayleigh scattering of sunlight.\n\n"
              "## Tides\n\nTides follow the moon around the harbour.\n",
}
UNCOVERABLE = {
    "notes/preamble.md": "Loose intro text before any heading.\n\n# Title\n\nBody of the preamble document.\n",
    "notes/two-tops.md": "# First\n\nFirst top section text.\n\n# Second\n\nSecond top section text.\n",
}
QUESTIONS = [
    "// authored by hand; this comment must survive merges",
    q("q1", {"quote": "kept for nine days"}, tags=["ops", "backup"], split="dev",
      expected_answer="nine days"),
    q("q2", {"doc": "guide/install.md", "quote": "reboot twice"}, split="test"),
    q("q3", {"doc": "guide/install.md", "heading": "Linux"}, tags=["install"]),
    q("q4", {"quote": "unpack it into /opt"}, {"doc": "faq.md", "quote": "Rayleigh scattering"}, hop="multi",
      split="holdout"),
    q("q5", {"doc": "ops/backup.md", "quote": "backup --all", "exact": True}),
    q("q6", unanswerable=True, query="what colour is the storage team's van?", tags=["negative"]),
    q("q7", {"doc": "faq.md", "heading": "Frequently asked"}),
]


def make(root: Path, docs: dict | None = None, questions=QUESTIONS, toml: str | None = None) -> Path:
    return write_project(root, DOCS if docs is None else docs, questions, toml)


def cli(capsys, *args) -> tuple[int, str, str]:
    """Run ``labeller ARGS`` in-process; return (exit code, stdout, stderr)."""
    capsys.readouterr()
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def cli_json(capsys, *args) -> tuple[int, dict]:
    rc, out, err = cli(capsys, *args, "--format", "json")
    return rc, json.loads(out)


def artifact(root: Path) -> list[dict]:
    text = (root / "golden/golden-set.v1.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def questions_of(root: Path) -> list[dict]:
    lines = (root / "golden/questions.jsonl").read_text(encoding="utf-8").split("\n")  # not splitlines: U+2028
    return [json.loads(line) for line in lines if line.strip() and not line.lstrip().startswith("//")]
