"""A content-addressed cache of derived per-document work (chunks, parsed blocks, matches).

The cache folder lives in the project (``.labeller-cache/``), so whoever can write the
project can write the cache: a pull request, a tarball or a shared folder may carry
planted entries. Two rules keep that harmless:

* **Data, never code.** An entry's body is JSON, encoded and decoded by the ``Codec`` the
  caller names; decoding checks the shape of every field, and an entry of the wrong shape
  is a miss (recomputed), never an error. Nothing read back from disk is unpickled.
* **Only this user's entries are read.** Each entry carries an HMAC-SHA256 of its body and
  key under the user's own secret (``cache_secret``), which lives outside every project
  (``$XDG_CONFIG_HOME/labeller/cache.key``, mode 0600). A planted, copied or corrupt entry
  fails it and is dropped before its body is parsed; so a planted entry can neither run
  code nor make ``build --check`` report a stale result. The same secret authenticates the
  BM25 index (``labeller.eval.retrievers.bm25``), whose whoosh format pickles its TOC.

Keys always include the content digest of what the value was derived from, and entry names
the digest of labeller's own sources (``code_digest``), so a hit can only ever be for
identical input derived by identical code.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import mmap
import os
import secrets
import stat
import tempfile
from array import array
from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from labeller import __version__
from labeller.errors import InvalidInput
from labeller.io import open_untrusted, read_open

# Part of every entry's name and MAC: v1 entries (pickles) are never even opened.
CACHE_FORMAT = "labeller-cache-v2-json-hmac"
_MAGIC = CACHE_FORMAT.encode("ascii") + b"\n"
MAX_ENTRY_BYTES = 1 << 30  # a cache entry larger than this is not ours: a miss, never read
SECRET_FILE = "cache.key"
MAX_SOURCE_BYTES = 1 << 24  # of one of labeller's own source files (``source_digest``; the largest is under 100 KB)


class BadEntry(ValueError):
    """A stored value of the wrong shape: the entry is a miss and is recomputed."""


class Storable(Protocol):
    """What ``Codec.of`` needs of a class: to plain JSON data and back."""

    def to_data(self) -> Any: ...

    @classmethod
    def from_data(cls, data: Any) -> Any: ...


@dataclass(frozen=True)
class Codec:
    """How one kind of cached value becomes plain JSON data and back.

    ``decode`` must check the shape of what it reads and raise (``BadEntry`` or any other
    exception) on anything it would not have written. The name is part of the entry's
    name, so an entry is only ever decoded by the codec it was written with.
    """

    name: str
    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]

    @classmethod
    def of(cls, kind: type[Storable]) -> "Codec":
        """The codec of a class with ``to_data()`` and a ``from_data(data)`` classmethod."""
        return cls(kind.__qualname__, kind.to_data, kind.from_data)


# -- shape checks shared by every decoder ---------------------------------------------------

def check(condition: bool) -> None:
    if not condition:
        raise BadEntry("cache entry of the wrong shape")


def as_list(data, length: int | None = None) -> list:
    check(type(data) is list and (length is None or len(data) == length))
    return data


def as_dict(data) -> dict:
    check(type(data) is dict)
    return data


def as_str(data) -> str:
    check(type(data) is str)
    return data


def as_int(data) -> int:
    check(type(data) is int)
    return data


def strs(data) -> list[str]:
    """A list of strings, checked at C speed (``join`` refuses anything else)."""
    "".join(as_list(data))
    return data


def ints(data) -> list[int]:
    """A list of ints, checked at C speed (``array`` refuses floats, strings, None, lists)."""
    array("q", as_list(data))
    return data


SCALAR = (str, int, float, bool, type(None))


def conforms(data, shape) -> None:
    """Check plain data against a shape: a type (exactly; ``None`` for null), a tuple of
    alternatives, ``[shape]`` for a list of them, ``{str: shape}`` for a mapping from
    strings, or ``{"key": shape, ...}`` for a dict with exactly those keys (``"key?"``: an
    optional one)."""
    if shape is None:
        check(data is None)
    elif isinstance(shape, type):
        check(type(data) is shape)
    elif isinstance(shape, tuple):
        for alternative in shape:
            try:
                return conforms(data, alternative)
            except BadEntry:
                pass
        raise BadEntry("cache entry of the wrong shape")
    elif isinstance(shape, list):
        for item in as_list(data):
            conforms(item, shape[0])
    elif list(shape) == [str]:
        for key, value in as_dict(data).items():
            check(type(key) is str)
            conforms(value, shape[str])
    else:
        fields = {key.removesuffix("?"): value for key, value in shape.items()}
        check(type(data) is dict and data.keys() <= fields.keys()
              and all(key in data for key in shape if not key.endswith("?")))
        for key, value in data.items():
            conforms(value, fields[key])


@lru_cache(maxsize=None)
def _columns(kind: type) -> tuple[tuple[str, bool], ...]:
    """(field name, holds ints) of a dataclass whose fields are all ints or strings."""
    return tuple((f.name, f.type == "int") for f in fields(kind))


def to_columns(objs: list, kind: type) -> dict:
    """Dataclass instances of ``kind`` (fields of type int or str) as one list per field."""
    return {name: [getattr(o, name) for o in objs] for name, _ in _columns(kind)}


def from_columns(data, kind: type) -> list:
    """The instances ``to_columns`` wrote, each column's type checked in one call."""
    names = _columns(kind)
    check(type(data) is dict and len(data) == len(names))
    columns = [ints(data[name]) if is_int else strs(data[name]) for name, is_int in names]  # KeyError: a miss
    check(len({len(c) for c in columns}) == 1)
    return list(map(kind, *columns))


# -- the user's secret ------------------------------------------------------------------------

def secret_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "labeller" / SECRET_FILE


def cache_secret() -> bytes | None:
    """The key that authenticates this user's cache entries, created on first use; None
    (caches stay in memory) when it cannot be kept private: see ``secret_problem``."""
    return _load_secret(str(secret_path()))[0]


def secret_problem() -> str | None:
    """Why the cache secret is unusable (and disk caches are off), or None."""
    return _load_secret(str(secret_path()))[1]


def source_digest(package: Path) -> str:
    """The SHA-256 of a package's Python sources, each named by its path in the package.

    Part of every entry's name (``code_digest``): the version names a release, but a
    development checkout changes the rules without changing it, and entries the old code
    wrote would keep answering (the old code's suggestions until an input changed).
    """
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        with open_untrusted(path, max_bytes=MAX_SOURCE_BYTES, what="labeller source", follow=True) as (fd, _):
            data = read_open(fd, path, max_bytes=MAX_SOURCE_BYTES, what="labeller source")
        h.update(f"{path.relative_to(package).as_posix()}\0{len(data)}\0".encode("utf-8"))
        h.update(data)
    return h.hexdigest()


@lru_cache(maxsize=1)
def code_digest() -> str:
    """``source_digest`` of labeller itself, once a process (about 250 files: milliseconds)."""
    return source_digest(Path(__file__).resolve().parent.parent)


@lru_cache(maxsize=8)
def _load_secret(path: str) -> tuple[bytes | None, str | None]:
    """Read (or create) the secret at ``path``; refuse one anyone else could read or replace."""
    file = Path(path)
    folder = file.parent
    try:
        base = folder.parent
        base.mkdir(parents=True, exist_ok=True, mode=0o700)
        # ~/.config itself may be a symlink, or group-writable under a umask of 002 (the group
        # is then the user's own); the labeller folder in it, which holds the key, may not.
        _check_private_dir(base, follow=True, writable=0o002)
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass
        _check_private_dir(folder, follow=False)
        try:
            return _read_secret(file), None
        except FileNotFoundError:
            pass
        fd, tmp = tempfile.mkstemp(prefix=".cache.key.", dir=folder)  # created 0600
        try:
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(secrets.token_hex(32) + "\n")
            try:
                os.link(tmp, file)  # atomic and never overwrites: two first runs agree on one key
            except FileExistsError:
                pass
        finally:
            os.unlink(tmp)
        return _read_secret(file), None
    except (OSError, ValueError) as exc:
        return None, f"cache key {file}: {exc}"


def _check_private_dir(folder: Path, *, follow: bool, writable: int = 0o022) -> None:
    st = folder.stat() if follow else folder.lstat()
    if not stat.S_ISDIR(st.st_mode):
        raise ValueError(f"{folder} is not a directory (a symlink is refused)")
    if st.st_uid != os.geteuid():
        raise ValueError(f"{folder} is owned by another user")
    if st.st_mode & writable:
        raise ValueError(f"{folder} is writable by {'group or ' if writable & 0o020 else ''}others")


def _read_secret(file: Path) -> bytes:
    try:
        with open_untrusted(file, max_bytes=4096, what="key file") as (fd, st):
            if st.st_uid != os.geteuid():
                raise ValueError("owned by another user")
            if st.st_mode & 0o077:
                raise ValueError("readable or writable by group or others (chmod 600 it)")
            raw = read_open(fd, file, max_bytes=4096, what="key file").strip()
    except InvalidInput as exc:
        raise ValueError(exc.reason) from None
    if len(raw) < 32:
        raise ValueError("too short to be a key")
    return raw


def mac(secret: bytes, *parts: bytes) -> str:
    """HMAC-SHA256 of ``parts``, each length-prefixed so that no two splits collide."""
    h = hmac.new(secret, digestmod=hashlib.sha256)
    for part in parts:
        h.update(len(part).to_bytes(8, "big") + part)
    return h.hexdigest()


def read_untrusted(path: Path, max_bytes: int = MAX_ENTRY_BYTES) -> bytes | None:
    """The bytes of a cache file, or None unless it is a regular file (never a symlink, a
    FIFO that would block, or a device) of at most ``max_bytes``."""
    try:
        with open_untrusted(path, max_bytes=max_bytes) as (fd, _):
            return read_open(fd, path, max_bytes=max_bytes)
    except (OSError, InvalidInput):
        return None


def map_hashed(path: Path, private: bool = True) -> tuple[mmap.mmap | bytes, str] | None:
    """A read-only memory map of a file and the sha256 of what is mapped, or None.

    The file is opened once (never through a symlink, never a FIFO or device), its bytes
    are hashed as they are read through that descriptor, and the same descriptor is then
    mapped: the map shows the inode that was hashed, whatever is later renamed over it or
    into its folder. Reading through the map makes only the pages read resident, so a large
    file costs the pages a caller touches, not its size. An empty file is ``b""``.

    A map is not a copy: a write *into* that inode would show through it. So, ``private``,
    the file is accepted only if nobody but this user (and root) can write it: owned by
    this user, no group or other write bit (POSIX ACLs show their mask in the group bits).
    labeller creates its cache files that way and never writes into one once it is in
    place (a rebuild writes new files in a new folder); anyone else must first be this user,
    who could run code anyway. ``private=False`` is for a file in a folder only this process
    made and nobody else can enter (``tempfile.mkdtemp``).
    """
    try:
        with open_untrusted(path, max_bytes=MAX_ENTRY_BYTES) as (fd, st):
            return _map_open(fd, st, private)
    except (OSError, InvalidInput):
        return None


def _map_open(fd: int, st: os.stat_result, private: bool) -> tuple[mmap.mmap | bytes, str] | None:
    """``map_hashed`` of a descriptor from ``open_untrusted`` (which closes it; the map stays valid)."""
    try:
        if private and (st.st_uid != os.geteuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            return None
        h = hashlib.sha256()
        size = 0
        while block := os.read(fd, 1 << 20):
            h.update(block)
            size += len(block)
        if size != st.st_size:
            return None
        return (mmap.mmap(fd, size, access=mmap.ACCESS_READ) if size else b""), h.hexdigest()
    except (OSError, ValueError):
        return None


def map_verified(path: Path, sha256: str) -> mmap.mmap | bytes | None:
    """``map_hashed`` of a file that only this user can write, if its bytes hash to ``sha256``."""
    found = map_hashed(path)
    return found[0] if found is not None and hmac.compare_digest(found[1], sha256) else None


def private_subfolder(root: Path, *parts: str) -> Path | None:
    """``root/parts...``, or None if any of them that exists is not a real directory: a
    symlink planted in the project must not send cache writes (or reads) elsewhere."""
    path = Path(root)
    for part in ("", *parts):
        path = path / part
        try:
            if not stat.S_ISDIR(path.lstat().st_mode):
                return None
        except FileNotFoundError:
            return path.joinpath(*parts[len(path.relative_to(root).parts):])
        except OSError:
            return None
    return path


class DigestCache:
    """Values kept in memory, and on disk as authenticated JSON when the project has a
    folder and the user has a cache secret."""

    def __init__(self, folder: Path | None, secret: bytes | None = None) -> None:
        self._memory: dict = {}
        self.folder: Path | None = None
        self.secret = secret
        self.disabled: str | None = None  # why a project's disk cache is off (it still works in memory)
        if folder is None:
            return
        if self.secret is None:
            self.secret = cache_secret()
        if self.secret is None:
            self.disabled = f"no private cache key ({secret_problem()})"
            return
        self.folder = private_subfolder(Path(folder), "derived")
        if self.folder is None:
            self.disabled = f"a folder in {Path(folder) / 'derived'} is a symlink or not a folder"

    def _name(self, key: tuple, codec: Codec) -> str:
        return hashlib.sha256(repr((CACHE_FORMAT, __version__, code_digest(), codec.name, key)).encode("utf-8")
                              ).hexdigest()

    def get(self, key: tuple, codec: Codec):
        if key in self._memory:
            return self._memory[key]
        if self.folder is None or self.secret is None:  # no folder without a secret: see __init__
            return None
        name = self._name(key, codec)
        path = self.folder / name[:2] / name
        raw = read_untrusted(path)
        if raw is None:
            return None
        tag, body = raw[len(_MAGIC):len(_MAGIC) + 64], raw[len(_MAGIC) + 65:]
        if not (raw.startswith(_MAGIC) and raw[len(_MAGIC) + 64:len(_MAGIC) + 65] == b"\n"
                and hmac.compare_digest(tag, mac(self.secret, name.encode("ascii"), body).encode("ascii"))):
            _drop(path)  # planted, copied or corrupt: never parsed, recomputed
            return None
        try:
            value = codec.decode(json.loads(body))
        except Exception:  # our own entry of a shape this version does not read: recomputed
            _drop(path)
            return None
        self._memory[key] = value
        return value

    def remember(self, key: tuple, value) -> None:
        """Hold ``value`` in memory only: another process already stored it under ``key``."""
        self._memory[key] = value

    def put(self, key: tuple, value, codec: Codec) -> None:
        self._memory[key] = value
        if self.folder is None or self.secret is None:  # no folder without a secret: see __init__
            return
        name = self._name(key, codec)
        body = json.dumps(codec.encode(value), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        tag = mac(self.secret, name.encode("ascii"), body).encode("ascii")
        try:
            _write_entry(self.folder / name[:2] / name, _MAGIC + tag + b"\n" + body)
        except OSError:
            pass  # a read-only project still builds; it just does not get faster


def _drop(path: Path) -> None:
    """Remove an entry that will not be used; one we may not remove (a shared folder) stays."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def _write_entry(path: Path, data: bytes) -> None:
    """Temp file + rename, without the fsyncs of ``atomic_write_bytes``.

    A cache entry is disposable: after a crash it is either whole, missing, or fails its
    own MAC and is recomputed, so paying two fsyncs per document (seconds on a cold
    10 MB build) would buy nothing.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.parent.is_symlink():
        raise OSError(f"{path.parent} is a symlink")
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
    versions): a cache written by another markdown-it can then never answer. ``codec_for``
    names the codec of the value stored under a key (the view holds more than one kind).
    """

    def __init__(self, cache: DigestCache, namespace: tuple, codec_for: Callable[[tuple], Codec]) -> None:
        self.cache = cache
        self.namespace = namespace
        self.codec_for = codec_for

    def get(self, key: tuple):
        return self.cache.get((*self.namespace, *key), self.codec_for(key))

    def __setitem__(self, key: tuple, value) -> None:
        self.cache.put((*self.namespace, *key), value, self.codec_for(key))
