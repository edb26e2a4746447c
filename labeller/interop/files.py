"""Reading a label file that another tool wrote: every such file is untrusted.

No symlink in any path component, a regular file, bounded, strict UTF-8 (JSON goes through
``labeller.io.parse_json`` / ``read_jsonl``, which refuse duplicate keys and nesting bombs);
and the small checks every reader makes on the objects it finds (strings where text is
meant, no unknown or missing keys). Each refusal is an ``InvalidInput`` naming the file, so a
malformed file imports nothing and exits 2.
"""

from __future__ import annotations

from pathlib import Path

from labeller.config import Limits
from labeller.core.canon import decode_utf8
from labeller.errors import InvalidInput
from labeller.io import read_regular_file


def read_text(path: Path, limits: Limits, what: str) -> str:
    """A label file as text: no symlink in any path component, regular, bounded, strict UTF-8."""
    data = read_regular_file(path, max_bytes=limits.max_file_bytes, what=what,
                             bound_hint="raise [limits] max_file_bytes in labeller.toml")
    text = decode_utf8(data, str(path))
    return text[1:] if text.startswith("\ufeff") else text


def require_str(value, what: str, where: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{where}: {what} must be a string, not {type(value).__name__}")
    return value


def refuse_unknown_keys(obj: dict, allowed: set[str], required: set[str], where: str) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise InvalidInput(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; allowed: "
                           f"{', '.join(sorted(allowed))}")
    missing = sorted(required - set(obj))
    if missing:
        raise InvalidInput(f"{where}: missing key(s) {', '.join(map(repr, missing))}")
