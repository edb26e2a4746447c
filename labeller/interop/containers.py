"""What kind of file a label file is — CSV, a JSON object, a JSON list or JSON Lines — and the
error that says so when a format is handed a file of another kind.

Teams save the same set in many shapes (ragas as CSV, LlamaIndex as one JSON object), and a
file given to the wrong importer used to fail on its first character ("malformed JSON at
column 1") or its first key ("unknown key 'examples'"), which tells nobody what to do. Every
importer of JSON-like files asks ``sniff`` first, so the refusal names what the file is, what
the format reads and, from the keys it found, the format that probably reads it.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labeller.errors import InvalidInput
from labeller.io import parse_json

CSV = "csv"
JSON_OBJECT = "json-object"
JSON_LIST = "json-list"
JSONL = "jsonl"
TEXT = "text"
EMPTY = "empty"

# Keys that give a file's format away, most specific first: (keys all present, format, what it is).
SIGNATURES: tuple[tuple[frozenset[str], str, str], ...] = (
    (frozenset({"examples"}), "llamaindex", "a LlamaIndex LabelledRagDataset"),
    (frozenset({"queries", "corpus", "relevant_docs"}), "llamaindex", "a LlamaIndex EmbeddingQAFinetuneDataset"),
    (frozenset({"samples"}), "ragas", "a ragas test set"),
    (frozenset({"user_input"}), "ragas", "a ragas test set"),
    (frozenset({"question", "contexts"}), "ragas", "a ragas 0.1 test set"),
    (frozenset({"input", "context"}), "deepeval", "DeepEval goldens"),
    (frozenset({"input", "expected_output"}), "deepeval", "DeepEval goldens"),
    (frozenset({"locators"}), "jsonl", "labeller's own questions.jsonl"),
    (frozenset({"expected_pages"}), "pages-json", "a pages-json query file"),
    (frozenset({"query", "spans"}), "offsets", "labeller's offsets JSONL"),
    (frozenset({"text", "spans"}), "prodigy", "Prodigy annotations"),
    (frozenset({"text", "entities"}), "doccano", "a doccano export"),
    (frozenset({"text", "label"}), "doccano", "a doccano export"),
    (frozenset({"data", "annotations"}), "label-studio", "a Label Studio export"),
    (frozenset({"_id", "text"}), "beir", "a BEIR corpus or queries file (import the dataset's folder)"),
)


@dataclass(frozen=True)
class Container:
    """A label file's text and its kind; ``value`` is the parsed JSON of a JSON object or list
    (parsed once, by the strict parser), ``keys`` the object's keys, the first JSON Lines
    record's or the first list item's, or the CSV header's columns."""

    kind: str
    text: str
    value: Any = None
    keys: tuple[str, ...] = ()

    def describe(self) -> str:
        names = ", ".join(repr(k) for k in self.keys[:12]) + (", …" if len(self.keys) > 12 else "")
        return {
            CSV: f"CSV with the columns {names}" if self.keys else "CSV",
            JSON_OBJECT: f"a JSON object with the keys {names}" if self.keys else "an empty JSON object",
            JSON_LIST: f"a JSON list whose first item has the keys {names}" if self.keys else "a JSON list",
            JSONL: f"JSON Lines whose first record has the keys {names}" if self.keys else "JSON Lines",
            EMPTY: "empty",
            TEXT: "plain text (neither CSV nor JSON)",
        }[self.kind]

    def wrong(self, fmt: str, reads: str, path: str) -> InvalidInput:
        """The refusal of a file that is not what ``fmt`` reads (``reads`` says what it reads)."""
        message = f"this is {self.describe()}; `{fmt}` reads {reads}"
        guess = self.guess(fmt)
        if guess is not None:
            message += f"; it looks like {guess[1]}: did you mean `labeller import {guess[0]}`?"
        return InvalidInput(message, path=path)

    def guess(self, fmt: str) -> tuple[str, str] | None:
        """(format, what the file looks like) from the keys, unless that format is ``fmt``."""
        keys = set(self.keys)
        for needed, name, what in SIGNATURES:
            if needed <= keys:
                return None if name == fmt else (name, what)
        return None


def sniff(text: str, path: str) -> Container:
    """The kind of ``text``. A text opening with ``{`` that parses whole is a JSON object, else
    JSON Lines (whose lines the reader then parses, reporting a bad one by its line); one
    opening with ``[`` is a JSON list (malformed JSON is refused here, at its line)."""
    body = text.lstrip()
    if not body:
        return Container(EMPTY, text)
    if body[0] == "[":
        value = parse_json(text, path)
        first = value[0] if isinstance(value, list) and value and isinstance(value[0], dict) else {}
        return Container(JSON_LIST, text, value, tuple(first))
    if body[0] == "{":
        try:
            value = parse_json(text, path)
        except InvalidInput:
            return Container(JSONL, text, keys=_first_line_keys(body, path))
        return Container(JSON_OBJECT, text, value, tuple(value) if isinstance(value, dict) else ())
    header = body.split("\n", 1)[0].rstrip("\r")
    if "," in header:
        try:
            columns = next(csv.reader([header]))
        except csv.Error:
            columns = []
        return Container(CSV, text, keys=tuple(c.strip() for c in columns))
    return Container(TEXT, text)


def _first_line_keys(body: str, path: str) -> tuple[str, ...]:
    try:
        first = parse_json(body.split("\n", 1)[0], path)
    except InvalidInput:
        return ()
    return tuple(first) if isinstance(first, dict) else ()


def wrong_kind(text: str, path: Path, fmt: str, reads: str) -> None:
    """For a format read by its own parser (YAML, questions.jsonl) whose file did not parse as
    that format: raise the wrong-kind refusal if the file is plainly another kind (CSV, a JSON
    list, a JSON object over several lines); otherwise return, and the parser's own error
    stands."""
    try:
        box = sniff(text, str(path))
    except InvalidInput:
        return
    if box.kind in (CSV, JSON_LIST) or (box.kind == JSON_OBJECT and "\n" in text.strip()):
        raise box.wrong(fmt, reads, str(path))
