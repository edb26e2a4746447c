"""A content-addressed cache of derived per-document work (chunks, parsed blocks).

Keys always include the content digest of what the value was derived from, so a hit can
only ever be for identical input; each stored value also carries the sha256 of its own
bytes, so a corrupt or truncated entry is detected, dropped and recomputed.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from labeller import __version__

_MAGIC = b"labeller-cache-v1\n"


def reduce_by_fields(obj):
    """``__reduce__`` for frozen slotted dataclasses stored in the cache.

    The default pickling of such a class restores each object through
    ``dataclasses.fields()``; calling the constructor with positional values loads a
    cached document's chunks or blocks about twice as fast, with equal objects.
    """
    return type(obj), tuple(getattr(obj, name) for name in obj.__slots__)


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

    def remember(self, key: tuple, value) -> None:
        """Hold ``value`` in memory only: another process already stored it under ``key``."""
        self._memory[key] = value

    def put(self, key: tuple, value) -> None:
        self._memory[key] = value
        if self.folder is None:
            return
        body = pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            _write_entry(self._path(key), hashlib.sha256(body).hexdigest().encode() + b"\n" + _MAGIC + body)
        except OSError:
            pass  # a read-only project still builds; it just does not get faster


def _write_entry(path: Path, data: bytes) -> None:
    """Temp file + rename, without the fsyncs of ``atomic_write_bytes``.

    A cache entry is disposable: after a crash it is either whole, missing, or fails its
    own hash and is recomputed, so paying two fsyncs per document (seconds on a cold
    10 MB build) would buy nothing.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class CacheView:
    """One namespace of a ``DigestCache`` seen as the ``get``/``[key] = value`` mapping that
    ``Resolver(block_cache=...)`` takes, so parsed blocks persist across runs like chunks.

    The namespace holds every version the value depends on (expansion rules, parser
    versions): a cache written by another markdown-it can then never answer.
    """

    def __init__(self, cache: DigestCache, namespace: tuple) -> None:
        self.cache = cache
        self.namespace = namespace

    def get(self, key: tuple):
        return self.cache.get((*self.namespace, *key))

    def __setitem__(self, key: tuple, value) -> None:
        self.cache.put((*self.namespace, *key), value)
