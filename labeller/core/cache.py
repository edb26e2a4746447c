"""A content-addressed cache of derived per-document work (chunks, parsed blocks).

Keys always include the content digest of what the value was derived from, so a hit can
only ever be for identical input; each stored value also carries the sha256 of its own
bytes, so a corrupt or truncated entry is detected, dropped and recomputed.
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

from labeller import __version__
from labeller.io import atomic_write_bytes

_MAGIC = b"labeller-cache-v1\n"


class DigestCache:
    def __init__(self, folder: Path | None) -> None:
        self.folder = Path(folder) / "derived" if folder is not None else None
        self._memory: dict = {}

    def _path(self, key: tuple) -> Path:
        digest = hashlib.sha256(repr((__version__, key)).encode("utf-8")).hexdigest()
        return self.folder / digest[:2] / digest

    def get(self, key: tuple):
        if key in self._memory:
            return self._memory[key]
        if self.folder is None:
            return None
        path = self._path(key)
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        head, _, rest = raw.partition(b"\n")
        body = rest[len(_MAGIC):] if rest.startswith(_MAGIC) else None
        if body is None or hashlib.sha256(body).hexdigest().encode() != head:
            path.unlink(missing_ok=True)  # corrupt entry: never trusted, recomputed
            return None
        try:
            stored_key, value = pickle.loads(body)
        except Exception:
            path.unlink(missing_ok=True)
            return None
        if stored_key != key:
            return None
        self._memory[key] = value
        return value

    def put(self, key: tuple, value) -> None:
        self._memory[key] = value
        if self.folder is None:
            return
        body = pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            atomic_write_bytes(self._path(key), hashlib.sha256(body).hexdigest().encode() + b"\n" + _MAGIC + body)
        except OSError:
            pass  # a read-only project still builds; it just does not get faster
