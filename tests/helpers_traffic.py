"""Synthetic traffic for the traffic tests: personal data planted with valid checksums, and
clean queries made from the bundled corpus's own headings and sentences (numbers, versions,
flags and paths included: what tempts a detector into a false alarm)."""

from __future__ import annotations

import random
import re
import string
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ("how do I {x}", "what is {x}", "{x}", "why does {x} fail", "example of {x}", "{x}?",
             "can labeller {x}", "where is {x} documented", "{x} not working", "difference between {x} and {y}")


def luhn_digit(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return str((10 - total % 10) % 10)


def iban(rng: random.Random) -> str:
    bban = "".join(rng.choice(string.digits) for _ in range(18))
    moved = bban + "DE00"
    check = 98 - int("".join(str(int(c, 36)) for c in moved)) % 97
    raw = f"DE{check:02d}{bban}"
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4)) if rng.random() < 0.5 else raw


def planted(rng: random.Random) -> tuple[str, str]:
    """One personal-data value and its kind."""
    kind = rng.choice(("EMAIL", "PHONE", "CARD", "IBAN", "IP", "URL", "SECRET", "SSN"))
    letters = string.ascii_lowercase
    word = lambda n: "".join(rng.choice(letters) for _ in range(n))  # noqa: E731
    if kind == "EMAIL":
        return f"{word(5)}.{word(7)}{rng.randint(1, 99)}@{word(6)}.{rng.choice(['com', 'org', 'de', 'co.uk'])}", kind
    if kind == "PHONE":
        a, b, c = rng.randint(201, 989), rng.randint(200, 999), rng.randint(0, 9999)
        return rng.choice([f"({a}) {b}-{c:04d}", f"+1-{a}-{b}-{c:04d}", f"+44 20 {b}{rng.randint(0, 9)} {c:04d}",
                           f"+49151{b}{c:04d}", f"{a}.{b}.{c:04d}"]), kind
    if kind == "CARD":
        body = rng.choice("45") + "".join(rng.choice(string.digits) for _ in range(14))
        num = body + luhn_digit(body)
        sep = rng.choice(["", " ", "-"])
        return sep.join(num[i:i + 4] for i in range(0, 16, 4)), kind
    if kind == "IBAN":
        return iban(rng), kind
    if kind == "IP":
        if rng.random() < 0.5:
            return ".".join(str(rng.randint(1, 254)) for _ in range(4)), kind
        groups = [f"{rng.randint(0, 65535):x}" for _ in range(8)]
        return ":".join(groups), kind
    if kind == "URL":
        return rng.choice([f"https://{word(4)}:{word(8)}@{word(6)}.example.com/{word(3)}",
                           f"https://api.{word(6)}.io/v1/items?access_token={word(24)}{rng.randint(10, 99)}"]), kind
    if kind == "SECRET":
        alnum = string.ascii_letters + string.digits
        tok = lambda n: "".join(rng.choice(alnum) for _ in range(n))  # noqa: E731
        return rng.choice([f"sk-proj-{tok(40)}", f"ghp_{tok(36)}", "AKIA" + "".join(rng.choice(string.ascii_uppercase +
                           string.digits) for _ in range(16)), f"xoxb-{rng.randint(10**10, 10**11)}-{tok(24)}",
                           f"AIza{tok(35)}"]), kind
    area = rng.choice([a for a in range(1, 900) if a != 666])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}", kind


def corpus_phrases() -> list[str]:
    """Headings and sentence fragments of the bundled corpus (read only)."""
    phrases: list[str] = []
    for path in sorted((ROOT / "corpus").rglob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            text = re.sub(r"[`*_\[\]()#>|]", " ", line).strip()
            words = text.split()
            if len(words) < 2:
                continue
            for start in range(0, len(words), 6):
                chunk = words[start:start + 6]
                if len(chunk) >= 2:
                    phrases.append(" ".join(chunk).strip(".,:;").lower())
    return sorted(set(p for p in phrases if p))


def clean_queries(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    phrases = corpus_phrases()
    out: set[str] = set()
    while len(out) < n:
        out.add(rng.choice(TEMPLATES).format(x=rng.choice(phrases), y=rng.choice(phrases)))
    return sorted(out)
