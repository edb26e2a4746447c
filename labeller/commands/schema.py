"""``labeller schema``: the JSON Schema of a questions.jsonl record, for editors."""

from __future__ import annotations

import argparse

from labeller.core.models import question_json_schema
from labeller.display import json_dumps


def register(sub) -> None:
    p = sub.add_parser("schema")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print(json_dumps(question_json_schema(), indent=2, sort_keys=True))
    return 0
