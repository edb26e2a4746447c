"""canon-v1: the one canonical form of a document's text.

Every offset labeller ever stores is a code-point index into this string, so the rule
is deliberately tiny and versioned: change it and every span moves.
"""

from __future__ import annotations

import hashlib
import unicodedata

from labeller.errors import InvalidInput

CANONICAL_VERSION = "canon-v1"


def canonicalize(text: str) -> str:
    """Drop one leading BOM, turn CRLF and lone CR into LF, apply NFC, end with LF."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = unicodedata.normalize("NFC", text)
    if not text.endswith("\n"):
        text += "\n"
    return text


def decode_utf8(data: bytes, path: str) -> str:
    """Strict UTF-8 decode; an undecodable file is named with the byte offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"not valid UTF-8 at byte offset {exc.start}", path=path) from None


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_fragment(text: str) -> str:
    """A piece of text (a quote, a chunk file's passage) with the documents' BOM/LF/NFC
    treatment but no trailing newline: a fragment, not a file. Nothing is trimmed."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", text)


def canonical_quote(quote: str) -> str:
    """A quote is a canonical fragment, trimmed."""
    return canonical_fragment(quote).strip()
