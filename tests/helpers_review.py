"""A small project for the review, annotation and agreement tests (built in tmp_path)."""

from __future__ import annotations

import json
from pathlib import Path

from labeller.config import load_config
from labeller.core.project import Project

OPS = """\
# Operations

Rotate the API key every ninety days. Run keys rotate, then redeploy.

## Backups

Backups run nightly at 02:00 UTC.
Restores are tested monthly.

- snapshots are taken hourly
- retention is set per bucket
  - nested detail on retention
- encryption uses the project key

| setting | value |
|---|---|
| retention | 30 days |
| region | eu-west-1 |
"""

GUIDE = """\
# Guide

Welcome to the guide. Ask the on-call engineer for access.

Deploys happen on Tuesdays.
"""

QUESTIONS = [
    {"id": "q1", "query": "How often is the API key rotated?", "expected_answer": "Every ninety days.",
     "locators": [{"doc": "ops.md", "quote": "every ninety days"}], "tags": ["ops"], "split": "dev"},
    {"id": "q2", "query": "When do backups run?", "expected_answer": "Nightly at 02:00 UTC.",
     "locators": [{"quote": "nightly at 02:00"}], "tags": ["ops", "backup"], "split": "test"},
    {"id": "q3", "query": "How long are backups kept?", "expected_answer": "30 days.",
     "locators": [{"doc": "ops.md", "quote": "30 days"}], "split": "dev"},
    {"id": "q4", "query": "Who approves a budget?", "expected_answer": "", "locators": [], "unanswerable": True},
]


def make_project(root: Path, questions: list[dict] | None = None) -> Project:
    (root / "corpus").mkdir(parents=True)
    (root / "golden").mkdir()
    (root / "corpus" / "ops.md").write_text(OPS, encoding="utf-8")
    (root / "corpus" / "guide.md").write_text(GUIDE, encoding="utf-8")
    lines = [json.dumps(q, ensure_ascii=False) for q in (QUESTIONS if questions is None else questions)]
    (root / "golden" / "questions.jsonl").write_text("// review test project\n" + "\n".join(lines) + "\n",
                                                     encoding="utf-8")
    return Project(load_config(root))
