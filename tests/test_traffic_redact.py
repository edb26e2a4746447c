"""Redaction of traffic (issue 39): no planted personal value reaches a file labeller writes,
and clean questions are left alone."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from helpers_traffic import clean_queries, planted

from labeller.cli import main
from labeller.traffic.redact import Redactor, entropy, flagged, iban_ok, luhn_ok

N_PLANTED = 1000


@pytest.fixture
def planted_log(tmp_path):
    """A log of clean queries with 1,000 personal values planted in queries, tenants and passage texts."""
    rng = random.Random(39)
    clean = clean_queries(600, seed=3)
    lines, values, kinds = [], [], Counter()
    for i in range(N_PLANTED):
        value, kind = planted(rng)
        values.append(value)
        kinds[kind] += 1
        base = rng.choice(clean)
        where = rng.random()
        query = f"{base} {value}" if where < 0.8 else base
        text = f"contact {value} for access" if where >= 0.8 else "a passage"
        # a tenant column someone filled with the user's address: it is written (and named), so redacted too
        tenant = value if 0.75 <= where < 0.8 else rng.choice(["acme", "blue"])
        lines.append({"query": query if tenant != value else base, "tenant": tenant, "ids": ["p1"], "texts": [text]})
    lines += [{"query": q, "tenant": "acme", "ids": [], "texts": []} for q in clean]
    rng.shuffle(lines)
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    root = tmp_path / "proj"
    root.mkdir()
    return root, log, values, kinds


def _sample(root, log, capsys, *extra):
    rc = main(["traffic", "sample", str(log), "--root", str(root), "--n", "100000", "--out",
               str(root / "queue.jsonl"), "--tenant", "tenant", "--doc-ids", "ids", "--doc-texts", "texts",
               "--format", "json", *extra])
    out = capsys.readouterr()
    assert rc == 0, out.err
    return out


def test_no_planted_value_reaches_any_written_file(planted_log, capsys):
    root, log, values, kinds = planted_log
    out = _sample(root, log, capsys)
    written = {p: p.read_text(encoding="utf-8") for p in root.rglob("*") if p.is_file()}
    assert root / "queue.jsonl" in written
    for path, text in [*written.items(), ("stdout", out.out), ("stderr", out.err)]:
        leaked = [v for v in values if v in text]
        assert not leaked, f"{path}: {leaked[:5]}"
    report = json.loads(out.out)
    assert {k: v for k, v in report["redaction"].items() if v} == dict(kinds)  # each found as its own kind
    assert report["sampled"] == report["folded_queries"]  # every folded query was written


def test_no_redact_keeps_them_so_the_check_above_can_fail(planted_log, capsys):
    root, log, values, _ = planted_log
    out = _sample(root, log, capsys, "--no-redact")
    text = (root / "queue.jsonl").read_text(encoding="utf-8")
    assert sum(v in text for v in values) > 0.9 * N_PLANTED
    assert json.loads(out.out)["redaction"] == "off (--no-redact)"


def test_fewer_than_one_percent_of_clean_queries_are_flagged():
    queries = clean_queries(10_000)
    assert len(queries) == 10_000
    assert flagged(queries) < 100


@pytest.mark.parametrize("text,kind", [
    ("card 4111 1111 1111 1111", "CARD"), ("iban GB82 WEST 1234 5698 7654 32", "IBAN"),
    ("ssn 123-45-6789", "SSN"), ("ping 10.0.0.12", "IP"), ("ping 2001:db8::8a2e:370:7334", "IP"),
    ("https://bob:hunter2@git.example.com/x", "URL"), ("GET https://a.io/b?api_key=abc123def", "URL"),
    ("AKIAIOSFODNN7EXAMPLE", "SECRET"), ("token Zx8Kq2mP9vL4nR7tY1wB3cF6hJ0d", "SECRET"),
    ("bob@example.org", "EMAIL"), ("+44 20 7946 0958", "PHONE"),
    # full-width digits (a Japanese or Chinese keyboard's): the same numbers, so the same placeholders
    ("card ４１１１ １１１１ １１１１ １１１１", "CARD"), ("call ０９０-１２３４-５６７８", "PHONE"),
    ("ssn ０７８-０５-１１２０", "SSN")])
def test_each_kind_becomes_its_placeholder(text, kind):
    r = Redactor()
    assert f"<{kind}>" in r(text)
    assert r.report()[kind] == 1


@pytest.mark.parametrize("text", ["card 4111 1111 1111 1112", "iban GB83WEST12345698765432",
                                  "ssn 000-45-6789", "ssn 666-45-6789", "version 1.2.3.4.5", "released 2024-01-15",
                                  "port 8080 and 127", "std::vector", "DataTable.cursor_type", "chunk 9/14 2bbee70d"])
def test_a_failed_checksum_or_a_non_address_is_left_alone(text):
    assert Redactor()(text) == text


def test_checksums():
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert iban_ok("DE89 3704 0044 0532 0130 00") and not iban_ok("DE88 3704 0044 0532 0130 00")


def test_planted_values_in_many_contexts_never_survive():
    """5,000 values, each between two random clean questions: what stands next to a value
    (a version, a number, punctuation) must not hide it from its detector."""
    rng = random.Random(7)
    clean = clean_queries(2000, seed=11)
    survived = []
    for _ in range(5000):
        value, kind = planted(rng)
        text = f"{rng.choice(clean)} {value}{rng.choice([' ', '. ', ', ', '? ', ') '])}{rng.choice(clean)}"
        if value in Redactor()(text):
            survived.append((kind, text))
    assert not survived, survived[:5]


def test_a_tokens_entropy_is_the_same_double_whatever_order_its_characters_come_in():
    """The secret test reads ``entropy >= 4.0``: a token near it must get one verdict on every
    Python. Added left to right (3.11's ``sum``) this token and its reverse differ in the last
    bit (so a permutation could cross the threshold); added exactly (``math.fsum``) they cannot."""
    token = "zUZKC97i4xgciFnq9RBXO2tAG1yKwILALo5vR"
    assert entropy(token) == entropy(token[::-1]) == entropy("".join(sorted(token)))
