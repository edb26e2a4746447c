"""Personal data out of traffic text before labeller writes a byte of it.

A query log carries what users typed: their e-mail address, a card number pasted by
mistake, an API key in a URL. Each detector below finds one kind and replaces it with a
typed placeholder (``<EMAIL>``), so the question still reads as a question and the report can
say how many of each kind were removed. A candidate found by a pattern is replaced only
when its checksum or structure holds (Luhn for cards, mod-97 for IBANs, a parsable address
for IPs, the SSA's rules for an SSN): a version number or an order id is not personal data,
and flagging every number would bury the real finds (the test holds clean queries to under
1% flagged).

The detectors run one after another on the text the previous one left, in the order of
``DETECTORS``: the most specific first (a URL's credentials before the e-mail address they
look like, a card before the phone number its digits also match). Person names have no
pattern: a detector chosen by name (``labeller.traffic.names``: Presidio, a list of names)
finds them when asked for, and ``PersonNames`` replaces what it found.
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from labeller.traffic.names import NameDetector, make_detector

KINDS = ("EMAIL", "PHONE", "CARD", "IBAN", "IP", "URL", "SECRET", "SSN", "PERSON")


def luhn_ok(digits: str) -> bool:
    """The Luhn checksum of a card number (digits only)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def iban_ok(text: str) -> bool:
    """ISO 13616: the country code and check digits moved to the end, letters as 10..35, mod 97 is 1."""
    s = text.replace(" ", "").upper()
    if not 15 <= len(s) <= 34:
        return False
    moved = s[4:] + s[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def ssn_ok(text: str) -> bool:
    """A US SSN as the SSA issues them: area not 000, 666 or 9xx; group not 00; serial not 0000."""
    area, group, serial = re.split(r"[- ]", text)
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def entropy(token: str) -> float:
    """Shannon entropy of the token's characters, bits per character: added by ``math.fsum``,
    so the same double whatever order the characters come in and on every Python (the built-in
    ``sum`` adds left to right up to 3.11 and compensates from 3.12 on)."""
    counts = Counter(token)
    n = len(token)
    return -math.fsum(c / n * math.log2(c / n) for c in counts.values())


def _secret_like(token: str) -> bool:
    """A long token mixing letters and digits whose characters are close to uniformly random:
    a key nobody recognised by its prefix. Words, paths and version strings fail one test."""
    if len(token) < 24 or not re.search(r"\d", token) or not re.search(r"[A-Za-z]", token):
        return False
    return entropy(token) >= 4.0 and sum(ch.isdigit() for ch in token) < len(token) * 0.8


def _ip_ok(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _phone_ok(text: str) -> bool:
    digits = re.sub(r"\D", "", text)
    return 10 <= len(digits) <= 15


def _card_ok(text: str) -> bool:
    digits = re.sub(r"\D", "", text)
    return 13 <= len(digits) <= 19 and luhn_ok(digits)


_TOKEN_PARAMS = (r"token|access_token|id_token|refresh_token|api_key|apikey|key|secret|password|passwd|pwd|sig|"
                 r"signature|auth|code|session|sessionid|jwt|x-amz-signature|x-amz-credential")


@dataclass(frozen=True)
class Detector:
    """A kind, its pattern, the check a match must pass, and two cheap tests that rule a text out
    before the pattern is searched (most text holds nothing to find): ``hints``, substrings one
    of which every match contains (``"0"`` .. ``"9"`` for a digit), and ``min_digits``, the
    digits every valid match has (a card's 13, a phone number's 10). Replacing a match never
    adds a digit, so the digits of the text as given bound those of what each detector sees."""

    kind: str
    pattern: re.Pattern[str]
    valid: Callable[[str], bool] = lambda _: True
    hints: tuple[str, ...] = ()
    min_digits: int = 0
    hint: re.Pattern[str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:  # the hints as one search (a generator over them costs more than it saves)
        object.__setattr__(self, "hint", re.compile("|".join(map(re.escape, self.hints))) if self.hints else None)


_DIGITS = tuple("0123456789")
_DIGIT = re.compile(r"\d")  # any decimal digit, as the patterns' \d reads them (full-width ones too)
_NOT_DIGIT = re.compile(r"\D+")


DETECTORS: tuple[Detector, ...] = (
    Detector("SECRET", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"),
             hints=("-----BEGIN",)),
    # a URL with user:password@ or a token-like query parameter: the whole URL goes
    Detector("URL", re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/@:]+:[^\s/@]+@\S+"), hints=("://",)),
    Detector("URL", re.compile(r"\bhttps?://\S*?[?&#](?:" + _TOKEN_PARAMS + r")=[^\s&#]+\S*", re.IGNORECASE),
             hints=("://",)),
    Detector("EMAIL", re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"),
             hints=("@",)),
    # keys recognised by their issuer's prefix
    Detector("SECRET", re.compile(
        r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|"
        r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|xox[abposr]-[A-Za-z0-9-]{10,}|"
        r"(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{30,}|"
        r"npm_[A-Za-z0-9]{36}|SG\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,})"),
             hints=("sk", "pk_", "rk_", "gh", "github_pat_", "xox", "AKIA", "ASIA", "AIza", "glpat-", "hf_", "npm_",
                    "SG.")),
    Detector("SECRET", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),  # a JWT
             hints=("eyJ",)),
    # an IBAN in groups of four (spaced or not) and a short last group, so a number after it is not taken along
    Detector("IBAN", re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"), iban_ok, _DIGITS,
             2),
    # a card as it is written: 4-4-4-4 (19 digits only unbroken), Amex's 4-6-5, or 13..19 digits in one run
    Detector("CARD", re.compile(r"(?<![\d-])(?:\d{4}([ -]?)\d{4}\1\d{4}\1\d{4}(?:(?<=\d{4})\d{1,3})?|\d{4}([ -]?)\d{6}\2\d{5}|"
                                r"\d{13,19})(?![\d-])"), _card_ok, _DIGITS, 13),
    Detector("SSN", re.compile(r"(?<![\d-])\d{3}([- ])\d{2}\1\d{4}(?![\d-])"), ssn_ok, _DIGITS, 9),
    Detector("IP", re.compile(r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|(?:\d{1,3}\.){3}\d{1,3})?"
                              r"(?![\w:])"), lambda s: len(s) >= 6 and re.search(r"\d", s) is not None and _ip_ok(s), (":",)),
    Detector("IP", re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?!\w|\.\d)"), _ip_ok, _DIGITS, 4),
    # not the tail of a run of 4-digit groups (a number that failed its card checksum)
    Detector("PHONE", re.compile(r"(?<![\w+])(?<!\d{4}[ .-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?)?\d{2,4}"
                                 r"(?:[ .-]\d{2,4}){1,4}(?![\w])|(?<![\w+])\+\d{10,15}\b"), _phone_ok,
             _DIGITS, 10),
    Detector("SECRET", re.compile(r"(?<![\w/+=-])[A-Za-z0-9_+/=-]{24,}(?![\w/+=-])"), _secret_like, _DIGITS, 1),
)


@dataclass
class Redactor:
    """Replaces personal data with typed placeholders and counts what it replaced.

    ``extra``: more detectors run after the built-in ones (``PersonNames`` when asked for); each
    is a callable ``(text) -> (text, {kind: count})``."""

    counts: Counter[str] = field(default_factory=Counter)
    extra: tuple[Callable[[str], tuple[str, dict[str, int]]], ...] = ()

    def __call__(self, text: str, times: int = 1) -> str:
        """``text`` redacted; what was found counts ``times`` (the requests that carried this text:
        the sampling pass redacts each distinct request once)."""
        digits = len(_NOT_DIGIT.sub("", text)) if _DIGIT.search(text) is not None else 0
        for det in DETECTORS:
            if det.hints is _DIGITS:
                if digits and digits >= det.min_digits:
                    text = self._apply(det, text, times)
            elif det.hint is None or det.hint.search(text) is not None:
                text = self._apply(det, text, times)
        for plugin in self.extra:
            text, found = plugin(text)
            self.counts.update({kind: n * times for kind, n in found.items()})
        return text

    def _apply(self, det: Detector, text: str, times: int) -> str:
        """Every valid match of ``det`` replaced. A candidate that fails its check is retried
        one character further on, not skipped whole: in "exit 1 4111-1111-1111-1111" the
        first candidate takes the "1" along and fails Luhn, the card inside it does not."""
        out: list[str] = []
        kept = at = 0
        while (m := det.pattern.search(text, at)) is not None:
            if det.valid(m.group(0)):
                out += [text[kept:m.start()], f"<{det.kind}>"]
                self.counts[det.kind] += times
                kept = at = max(m.end(), m.start() + 1)
            else:
                at = m.start() + 1
        return "".join(out) + text[kept:] if out else text

    def report(self) -> dict[str, int]:
        """Redactions per kind, every kind listed (0 when none), sorted by name."""
        return {kind: self.counts.get(kind, 0) for kind in sorted(KINDS)}


def make_redactor(names: str | None = None, root: Path = Path(".")) -> Redactor:
    """The redactor a sampling run uses; ``names`` adds a person-name detector by its spec
    (``names.make_detector``: ``InvalidInput`` when it is unknown or cannot run here), a list
    file of which is read relative to ``root``."""
    if names is None:
        return Redactor()
    return Redactor(extra=(PersonNames(make_detector(names, root)),))


class PersonNames:
    """A person-name detector's spans replaced with ``<PERSON>`` and counted: one replacement
    for every detector (``labeller.traffic.names``), so a new detector only finds spans.
    Overlapping or touching spans are one name."""

    def __init__(self, detector: NameDetector) -> None:
        self.detector = detector

    def __call__(self, text: str) -> tuple[str, dict[str, int]]:
        merged: list[list[int]] = []
        for start, end in sorted(self.detector.find(text)):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        for start, end in reversed(merged):
            text = text[:start] + "<PERSON>" + text[end:]
        return text, {"PERSON": len(merged)} if merged else {}


def flagged(texts: Iterable[str]) -> int:
    """How many of ``texts`` a fresh redactor changes (the false-positive measure of clean text)."""
    r = Redactor()
    return sum(r(t) != t for t in texts)
