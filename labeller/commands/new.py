"""``labeller new DIR``: scaffold an empty project."""

from __future__ import annotations

import argparse
from pathlib import Path

from labeller.config import load_config
from labeller.display import visible_line
from labeller.errors import InvalidInput
from labeller.io import atomic_write_text
from labeller.layout import CACHE_DIR, STATE_DIR

CONFIG = """\
# labeller project settings; every key is optional (defaults shown).
[corpus]
root = "corpus"
include = ["**/*.md"]
exclude = []

[golden]
questions = "golden/questions.jsonl"
out = "golden"

[build]
chunker = "md-struct-v1"
max_chars = 1800
hit_rule = "any_overlap"

[eval]
k = [1, 5, 10, 20, 50]
shipped_k = 5
analyzer = "auto"
"""

QUESTIONS = """\
// One JSON object per line. Lines starting with // are comments and are kept on save.
// Example (remove the leading // to use it):
// {"id": "q001", "query": "How do I rotate the API key?", "expected_answer": "Run keys rotate, then redeploy.", "locators": [{"doc": "welcome.md", "quote": "keys rotate"}], "tags": ["ops"], "split": "dev"}
"""

# What labeller writes next to the project that is not the project: the digest-keyed cache
# (safe to delete) and local state (the app's autosave journal, the eval run history).
GITIGNORE = f"# labeller's caches and local state; never commit them.\n{CACHE_DIR}/\n{STATE_DIR}/\n"

# git merges these files by record with `labeller merge-driver` once `merge.labeller.driver` is
# configured (README); without that configuration git falls back to its line merge.
GITATTRIBUTES = """\
# labeller's merge driver: two branches that add different questions merge cleanly.
# Enable it once per clone: git config merge.labeller.driver "labeller merge-driver %O %A %B"
golden/questions.jsonl merge=labeller
golden/judgments.jsonl merge=labeller
golden/reviews.jsonl merge=labeller
"""

WELCOME = """\
---
title: Welcome
---
# Welcome

Put your Markdown knowledge base in this folder. Every `.md` file below it is a document.
"""


def register(sub) -> None:
    p = sub.add_parser("new")
    p.add_argument("dir", help="folder to create (must not exist or be empty)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = Path(args.dir)
    if root.exists() and any(root.iterdir()):
        raise InvalidInput("folder exists and is not empty; nothing was written", path=str(root))
    layout = load_config(root).layout  # the default layout: there is no labeller.toml yet
    atomic_write_text(layout.config_file, CONFIG)
    atomic_write_text(layout.questions, QUESTIONS)
    atomic_write_text(layout.corpus / "welcome.md", WELCOME)
    atomic_write_text(layout.root / ".gitignore", GITIGNORE)
    atomic_write_text(layout.root / ".gitattributes", GITATTRIBUTES)
    print(f"created {visible_line(str(root))}/: labeller.toml, corpus/welcome.md, golden/questions.jsonl, .gitignore, "
          ".gitattributes")
    print(f"next: cd {visible_line(str(root))} && labeller")
    return 0
