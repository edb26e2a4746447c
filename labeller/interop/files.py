"""Reading a label file that another tool wrote: every such file is untrusted.

No symlink in any path component, a regular file, bounded, strict UTF-8; strict JSON
(duplicate keys refused, nesting bombs reported); and the small checks every reader makes on
the objects it finds (strings where text is meant, no unknown or missing keys). Each refusal
is an ``InvalidInput`` naming the file, so a malformed file imports nothing and exits 2.
"""

from __future__ import annotations

import json
from pathlib import Path

from labeller.core.canon import decode_utf8
from labeller.core.questions import Limits
from labeller.errors import InvalidInput
from labeller.io import read_regular_file


def read_text(path: Path, limits: Limits, what: str) -> str:
    """A label file as text: no symlink in any path component, regular, bounded, strict UTF-8."""
    data = read_regular_file(path, max_bytes=limits.max_file_bytes, what=what,
                             bound_hint="raise [limits] max_file_bytes in labeller.toml")
    text = decode_utf8(data, str(path))
    return text[1:] if text.startswith("\ufeff") else text


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise InvalidInput(f"duplicate key {key!r} in one JSON object (which one is meant?)")
        seen.add(key)
    return dict(pairs)


def load_json(text: str, path: str, line: int | None = None):
    """Strict JSON: duplicate keys refused, nesting bombs reported instead of crashing."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        raise InvalidInput(f"malformed JSON: {exc.msg} at column {exc.colno}", path=path, line=where) from None
    except RecursionError:
        raise InvalidInput("malformed JSON: nested too deeply", path=path, line=line) from None
    except InvalidInput as exc:
        raise InvalidInput(exc.reason, path=path, line=line) from None


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
