"""A fuzz pass over questions.jsonl bytes (issue 18): ``labeller build`` exits 0 or 1 only
with a real result, 2 for bad input, and never 3 (an internal error) nor a traceback.

Bytes are drawn from mutations of a valid file (byte edits, and splices of the tokens that
once crashed: lone surrogates, huge numbers, deep nesting, duplicate keys, controls), and
from raw bytes. Each example runs the real entry point in-process; an exception escaping
``main`` fails the test with its traceback.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import q, write_project
from labeller.cli import main

DOCS = {"a.md": "---\ntitle: A\n---\n# Alpha\n\nThe alpha paragraph explains retention of nine days.\n\n"
                "| k | v |\n|---|---|\n| limit | 64 locators |\n\n- one item\n- two item\n",
        "b.md": "# Beta\n\nBeta keeps a fact about the lighthouse keeper.\n\n## Tides\n\nAnother para on tides.\n"}
VALID = "".join(json.dumps(r) + "\n" for r in [
    q("r1", {"quote": "retention of nine days"}, tags=["ops"], split="dev"),
    q("r2", {"doc": "a.md", "quote": "64 locators", "exact": True}),
    q("r3", {"quote": "two item"}, {"doc": "b.md", "heading": "Tides"}, hop="multi"),
    q("r4", unanswerable=True),
]).encode()
TOKENS = [b'"\\ud800"', b'"\\udc00x"', b"9" * 5000, b"1e999", b"-0", b"[" * 150, b"{" * 150, b'"id": "r1", "id": "r2"',
          b'"\x1b]52;c;ZWNobyBoaQ==\x07"', b'"\xc2\x9b31m"', b'"\xe2\x80\xae"', b"\xff\xfe", b"\xef\xbb\xbf", b"\r",
          b"\x00", b'"quote": ""', b'"quote": " "', b'"doc": "../x.md"', b'"doc": "/etc/passwd"', b"null", b"true",
          b'"locators": []', b'"hop": "multi"', b'"split": 3', b'"tags": [1]', b"//", b"\n", b",", b":", b'"']


@st.composite
def mutated(draw) -> bytes:
    data = bytearray(VALID)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "token"]))
        if op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=4))
        elif op == "delete":
            del data[at:at + draw(st.integers(1, 12))]
        elif op == "replace":
            data[at:at + 1] = draw(st.binary(min_size=1, max_size=1))
        else:
            data[at:at] = draw(st.sampled_from(TOKENS))
    return bytes(data)


RECORDS = [json.loads(line) for line in VALID.decode().splitlines()]
VALUES = [b'"\\ud800"', b'"a\\udfff"', b'"\\ud83d\\ude00"', b"9" * 5000, b"1e999", b"-1", b"0", b"1.5", b"[]", b"{}",
          b"null", b"true", b'""', b'" "', b'"\\u0000"', b'"\\u001b[2J"', '"\u009b\u202e\u2028"'.encode(),
          b'"../a.md"', b'"a.md"', b'"b.md"', b'"Tides"', b'"retention of nine days"', b'"single"', b'"multi"',
          b'"dev"', b'[{"quote": "two item"}]', b'[{"doc": "a.md"}]', b'["x", "x"]', b"[" * 120 + b"]" * 120,
          b'{"quote": "x", "quote": "y"}', '"caf\u00e9 \u65e5\u672c"'.encode()]
KEYS = ["id", "query", "expected_answer", "locators", "hop", "tags", "split", "unanswerable", "extra"]
LOCATOR_KEYS = ["doc", "quote", "exact", "heading", "extra"]


def raw_json(value, splice: tuple[str, bytes] | None) -> bytes:
    """``value`` as JSON with the member ``splice[0]`` set to the raw bytes ``splice[1]``."""
    if splice is None or not isinstance(value, dict):
        return json.dumps(value).encode()
    key, raw = splice
    members = [json.dumps(k).encode() + b": " + (raw if k == key else json.dumps(v).encode()) for k, v in value.items()]
    if key not in value:
        members.append(json.dumps(key).encode() + b": " + raw)
    return b"{" + b", ".join(members) + b"}"


@st.composite
def spliced(draw) -> bytes:
    """Well-formed JSON lines whose values are hostile: the valid file with one or two of
    its records given one member (of the record or its first locator) set to a drawn value."""
    lines = []
    chosen = draw(st.sets(st.integers(0, len(RECORDS) - 1), min_size=1, max_size=2))
    for i, rec in enumerate(RECORDS):
        if i not in chosen:
            lines.append(raw_json(rec, None))
            continue
        raw = draw(st.sampled_from(VALUES) | st.text(max_size=12).map(lambda t: json.dumps(t).encode()))
        if rec.get("locators") and draw(st.booleans()):
            loc = raw_json(rec["locators"][0], (draw(st.sampled_from(LOCATOR_KEYS)), raw))
            rest = b"".join(b", " + json.dumps(x).encode() for x in rec["locators"][1:])
            lines.append(raw_json(rec, ("locators", b"[" + loc + rest + b"]")))
        else:
            lines.append(raw_json(rec, (draw(st.sampled_from(KEYS)), raw)))
    return b"".join(line + b"\n" for line in lines)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return write_project(tmp_path_factory.mktemp("fuzz") / "p", DOCS, [])


def run_build(root, data: bytes) -> tuple[int, str, str]:
    (root / "golden" / "questions.jsonl").write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["build", "--root", str(root), "--format", "json"])
    return code, out.getvalue(), err.getvalue()


KINDS = {"not_found", "ambiguous", "unknown_doc", "front_matter", "heading_only", "duplicate_span", "no_hit",
         "invalid"}


def check(code: int, out: str, err: str) -> None:
    assert code in (0, 1, 2), (code, out, err)
    assert "Traceback" not in out + err
    report = json.loads(out)
    assert all(e.get("kind") in KINDS for e in report["errors"]), report
    if code == 0:
        assert report["ok"] is True and not report["errors"]
    elif code == 1:  # a real refusal: named records, documented kinds, never an invalid file
        assert report["ok"] is False and report["errors"] and all(e.get("id") for e in report["errors"])
    else:
        assert report["ok"] is False and report["errors"]


def test_the_valid_file_builds(root):
    check(*run_build(root, VALID))
    assert run_build(root, VALID)[0] == 0


@settings(max_examples=250, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutated())
def test_mutated_questions_files_never_crash(root, data):
    check(*run_build(root, data))


@settings(max_examples=250, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(spliced())
def test_questions_files_with_hostile_values_never_crash(root, data):
    check(*run_build(root, data))


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_raw_bytes_never_crash(root, data):
    check(*run_build(root, data))
