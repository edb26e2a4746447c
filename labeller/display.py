"""Showing untrusted text safely in a terminal.

Queries and documents come from anywhere; an escape sequence inside one must print as
visible text, never act on the terminal. Rich markup is escaped too.
"""

from __future__ import annotations

import json
import re

from rich.markup import escape

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _visible(m: re.Match) -> str:
    ch = m.group(0)
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control picture" for it: ␛ for ESC
    return f"\\u{code:04x}"


def visible(text: str) -> str:
    """Control characters (escape sequences, bidi overrides, U+2028) as visible stand-ins;
    tabs and newlines kept. No markup escaping: for Textual ``Content`` and plain output."""
    return CONTROL.sub(_visible, text)


def safe(text: str) -> str:
    """``visible`` text with Rich markup escaped, for Rich console output and Rich cells."""
    return escape(visible(text))


def safe_line(text: str) -> str:
    """Like ``safe`` but on one line: newlines shown as ⏎ for compact listings."""
    return safe(text.replace("\n", "⏎ ").replace("\t", " "))


# Characters JSON may carry raw (``ensure_ascii=False``) that still act on a terminal or an
# editor: C1 controls (U+009B is a one-byte CSI), line and paragraph separators, bidi
# overrides and isolates (they reorder what a reviewer reads). ``json`` escapes C0 itself.
_JSON_INVISIBLE = re.compile(r"[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_dumps(value, **kw) -> str:
    """``json.dumps(value, ensure_ascii=False, **kw)`` with those characters as ``\\uXXXX``
    escapes: the same JSON value, readable UTF-8 for every other character, and nothing
    that acts on the terminal that prints it (they occur only inside strings, where an
    escape is equivalent)."""
    return _JSON_INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False, **kw))
