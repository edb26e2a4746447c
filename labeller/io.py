"""Crash-safe file writes, bounded no-follow reads, and the one guarded JSON/JSONL reader.

Every file labeller writes goes through ``atomic_write_*``: temp file in the same
folder, fsync, rename, fsync the folder. A kill at any point leaves either the old file
or the new one, never a torn mix. (The app's journal, written per keystroke, skips the
fsyncs: ``durable=False``.)

Every file a person or another tool may have placed is opened by ``open_untrusted`` (no
symlink, never blocking on a FIFO, checked regular and bounded on the open descriptor) and
read from that descriptor.

Every JSON labeller reads from a file a person or another tool wrote goes through
``parse_json`` (one document) or ``parse_jsonl``/``read_jsonl`` (one value a line), so each
gets the same guards: strict UTF-8 (the error names the byte offset), duplicate keys
refused (a reviewer reading the diff sees the first ``"quote"``, ``json`` keeps the last),
nesting bounded (a line of 100,000 ``[`` is an error naming file and line, not a
``RecursionError``), and every problem named by file and line.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from labeller.errors import InvalidInput


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True) -> None:
    atomic_write_chunks(path, (data,), durable=durable)


def atomic_write_chunks(path: Path, chunks: Iterable[bytes], *, durable: bool = True) -> None:
    """Write the ``chunks`` (``data`` as it is made: a large report is never whole in
    memory) to ``path`` through a temp file and a rename; an error while they are made
    leaves ``path`` as it was and no temp file. ``durable=False`` skips
    the two fsyncs: still never torn by a kill or a crash of the process, only not forced
    to the disk before returning (for the app's journal, written on every keystroke).

    Only a regular file is ever replaced (``refuse_unsafe_target``); an OS error (disk full,
    permission denied) names ``path``, not the temp file or nothing."""
    path = Path(path)
    refuse_unsafe_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with naming(path):
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                os.fchmod(fh.fileno(), _mode_for(path))
                for chunk in chunks:
                    fh.write(chunk)
                fh.flush()
                if durable:
                    os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
    if durable:
        fsync_dir(path.parent)


@contextmanager
def naming(path: Path) -> Iterator[None]:
    """Re-raise an ``OSError`` as one naming ``path``: a full disk fails ``write`` or ``fsync``
    with no file name at all, and a failed rename names the temp file; the CLI's message
    (``errors.environment_message``) then says which file could not be written."""
    try:
        yield
    except OSError as exc:
        if exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), os.fspath(path)) from exc


_KINDS = ((stat.S_ISLNK, "a symlink"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISDIR, "a folder"), (stat.S_ISSOCK, "a socket"))


def refuse_unsafe_target(path: Path) -> None:
    """Refuse to replace anything but a regular file. A rename over a FIFO or a device
    replaces the node itself (as root, ``--out /dev/full`` left a 0666 regular file there),
    and replacing a symlink silently cuts a link someone made on purpose."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise InvalidInput(f"is {kind}, not a regular file; labeller replaces only regular files, so nothing was "
                       "written", path=str(path))


def check_output_path(path: Path) -> None:
    """Refuse a write target inside a symlinked folder, or one that is not a regular file.

    A committed symlink (``golden -> /elsewhere``, ``.labeller -> ~``) would send the temp
    file and the rename through it, out of the project; the folders are checked as the
    labels' own files are read (``refuse_symlink_components``)."""
    refuse_symlink_components(Path(path).parent)
    refuse_unsafe_target(Path(path))


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once at import, while nothing else runs: os.umask is process-wide


def _mode_for(path: Path) -> int:
    """The permissions the written file should have: those of the file it replaces, else what
    ``open()`` would give a new file. (``mkstemp`` makes 0600, which would silently turn an
    author's group-readable questions.jsonl private on the first save.)"""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o666 & ~_UMASK


def atomic_write_text(path: Path, text: str, *, durable: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable)


def fsync_dir(folder: Path) -> None:
    try:
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def refuse_symlink_components(path: Path) -> None:
    """Refuse a path any of whose components is a symlink (labels must be read as named)."""
    path = Path(os.path.abspath(path))
    for parent in [*reversed(path.parents), path]:
        if parent.is_symlink():
            raise InvalidInput(f"path component {parent} is a symlink; give the physical path", path=str(path))


_OPEN_UNTRUSTED = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_checked(path: Path, *, max_bytes: int, what: str, bound_hint: str = "",
                  follow: bool = False) -> tuple[int, os.stat_result]:
    """``open_untrusted``'s descriptor and ``fstat``, for a caller that owns (closes) it."""
    flags = _OPEN_UNTRUSTED & ~(getattr(os, "O_NOFOLLOW", 0) if follow else 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise InvalidInput(f"{what} is a symlink; labeller reads it only as a regular file",
                               path=str(path)) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = next((name for test, name in _KINDS if test(st.st_mode)), "another kind of file")
            raise InvalidInput(f"{what} is not a regular file (it is {kind})", path=str(path))
        if st.st_size > max_bytes:
            hint = f" ({bound_hint})" if bound_hint else ""
            raise InvalidInput(f"{what} is {st.st_size} bytes, over the bound of {max_bytes}{hint}", path=str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd, st


@contextmanager
def open_untrusted(path: Path, *, max_bytes: int, what: str = "file", bound_hint: str = "",
                   follow: bool = False) -> Iterator[tuple[int, os.stat_result]]:
    """The one way labeller opens a file someone else may have placed: a read-only descriptor
    and its ``fstat``, closed on leaving the block.

    The checks are made on the descriptor, not the name: a check by name (``lstat``) and then
    an ``open`` leaves a gap in which a FIFO (the read blocks forever), a device or a symlink
    can be swapped in. So the open itself refuses a symlink (``O_NOFOLLOW``; ``follow`` only
    for the user's own files, which dotfile managers link) and never waits for a FIFO's
    writer (``O_NONBLOCK``), and ``fstat`` on the open descriptor must then show a regular
    file of at most ``max_bytes``: ``InvalidInput`` otherwise, naming ``what`` and ``path``.
    An ``OSError`` of the open itself (not found, permission denied) is left to the caller,
    who knows what a missing file means."""
    fd, st = _open_checked(path, max_bytes=max_bytes, what=what, bound_hint=bound_hint, follow=follow)
    try:
        yield fd, st
    finally:
        os.close(fd)


def read_open(fd: int, path: Path, *, max_bytes: int, what: str = "file") -> bytes:
    """All of an ``open_untrusted`` descriptor, refusing a file that grew past ``max_bytes``
    since its ``fstat`` (read stops one byte past the bound)."""
    chunks: list[bytes] = []
    left = max_bytes + 1
    while left > 0 and (block := os.read(fd, min(left, 1 << 20))):
        chunks.append(block)
        left -= len(block)
    if left <= 0:
        raise InvalidInput(f"{what} grew past the bound of {max_bytes} bytes", path=str(path))
    return b"".join(chunks)


def read_regular_file(path: Path, *, max_bytes: int, what: str = "file", bound_hint: str = "") -> bytes:
    """Read an untrusted input file: no symlinks anywhere in its path, regular, bounded."""
    path = _existing_input(path, what)
    try:
        with open_untrusted(path, max_bytes=max_bytes, what=what, bound_hint=bound_hint) as (fd, _):
            return read_open(fd, path, max_bytes=max_bytes, what=what)
    except FileNotFoundError:
        raise InvalidInput(f"{what} not found", path=str(path)) from None


def open_regular_file(path: Path, *, max_bytes: int, what: str = "file", bound_hint: str = "") -> BinaryIO:
    """Open an untrusted input file as ``read_regular_file`` reads it (no symlinks in its
    path, regular, at most ``max_bytes`` when opened), for a reader that streams it; the
    reader stops past ``max_bytes`` itself (the file may grow while it is read)."""
    path = _existing_input(path, what)
    try:
        fd, _ = _open_checked(path, max_bytes=max_bytes, what=what, bound_hint=bound_hint)
    except FileNotFoundError:
        raise InvalidInput(f"{what} not found", path=str(path)) from None
    return os.fdopen(fd, "rb")


def _existing_input(path: Path, what: str) -> Path:
    """``path`` as a Path, refused if it is missing or reached through a symlinked folder."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise InvalidInput(f"{what} not found", path=str(path))
    refuse_symlink_components(path)
    return path


# -- the guarded JSON reader -------------------------------------------------------------------

MAX_JSON_DEPTH = 100  # labeller's own formats nest 5 deep; far below the decoder's stack limit
# One token at a time, never a whole string in one match: a regex for "a string" backtracks
# over every escaped quote of an unterminated one, which is quadratic on a hostile line.
_NESTING_TOKEN = re.compile(r'\\.|["\[\]{}]', re.DOTALL)
# A \u escape of a surrogate: json.loads joins a valid pair into one character and leaves a
# lone one in the string, which no UTF-8 writer can encode (a crash at the artifact's write).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _DuplicateKey(ValueError):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise _DuplicateKey(f"duplicate key {key!r} in one JSON object (which one is meant?)")
        seen.add(key)
    return dict(pairs)


def _too_deep(text: str, max_depth: int) -> int | None:
    """The offset where brackets outside strings first nest deeper than ``max_depth``, if they
    do (linear, no recursion)."""
    if text.count("[") + text.count("{") <= max_depth:
        return None
    depth, in_string = 0, False
    for m in _NESTING_TOKEN.finditer(text):
        token = m.group()
        if token == '"':
            in_string = not in_string
        elif in_string or len(token) == 2:  # a bracket inside a string, or an escape
            continue
        elif token in "[{":
            depth += 1
            if depth > max_depth:
                return m.start()
        else:
            depth -= 1
    return None


def _lone_surrogate(value: Any) -> str | None:
    """The first string (key or value) of a parsed document holding a lone surrogate."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return v
    return None


# Numbers JSON cannot carry back out: ``NaN``/``Infinity`` (Python's extension, not JSON), a
# float that overflows to infinity (``1e999``), an integer past 64 bits. Each was accepted, then
# exited 3 at the first write (``allow_nan=False``) or arithmetic; refused here, they are
# input errors at their line. No integer labeller reads (offsets, counts, ranks, ids) comes near.
MAX_JSON_INT = 2**63 - 1
_MAX_INT_DIGITS = len(str(MAX_JSON_INT))


class _BadNumber(ValueError):
    def __init__(self, literal: str, reason: str) -> None:
        self.literal = literal
        unit = "digits" if literal.lstrip("-").isdigit() else "characters"
        shown = literal if len(literal) <= 24 else f"{literal[:20]}… ({len(literal):,} {unit})"
        super().__init__(f"malformed JSON: the number {shown} {reason}")


def _no_constant(literal: str) -> Any:
    raise _BadNumber(literal, "is not JSON (JSON has no NaN or Infinity)")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _BadNumber(literal, "is past the largest float (it would read as infinity)")
    return value


def _bounded_int(literal: str) -> int:
    if len(literal.lstrip("-")) > _MAX_INT_DIGITS or abs(value := int(literal)) > MAX_JSON_INT:
        raise _BadNumber(literal, f"is past the integer bound of ±{MAX_JSON_INT:,} (2**63 - 1)")
    return value


def _line_of_literal(text: str, literal: str) -> int | None:
    """The line of ``literal``'s first occurrence outside a string (linear, as ``_too_deep``)."""
    in_string = False
    for m in re.finditer(r'\\.|"|(?<![\w.+-])' + re.escape(literal) + r"(?![\w.+-])", text, re.DOTALL):
        token = m.group()
        if token == '"':
            in_string = not in_string
        elif not in_string and token == literal:
            return text.count("\n", 0, m.start()) + 1
    return None


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant,
                            parse_float=_finite_float, parse_int=_bounded_int)


def _json_value(text: str, max_depth: int) -> tuple[Any, str | None, bool, int | None]:
    """``(value, None, False, None)`` for good JSON, else ``(None, reason, hostile, line)``; never
    raises. ``line`` is the line of ``text`` the problem is on, when it is known.

    ``hostile`` marks what no interrupted write can leave behind (too deep, a duplicate
    key, a number too long to convert): someone wrote it, so readers that forgive torn
    lines refuse these.
    """
    deep = _too_deep(text, max_depth)
    if deep is not None:
        return (None, f"malformed JSON: nested too deeply (over {max_depth} levels)", True,
                text.count("\n", 0, deep) + 1)
    try:
        value = _DECODER.decode(text)
        if _SURROGATE_ESCAPE.search(text) and (bad := _lone_surrogate(value)) is not None:
            return (None, f"malformed JSON: the string {bad[:40]!r} holds a lone surrogate (a \\u escape of half a "
                    "character), which is not Unicode text", True, None)
        return value, None, False, None
    except json.JSONDecodeError as exc:
        return None, f"malformed JSON: {exc.msg} at column {exc.colno}", False, exc.lineno
    except _DuplicateKey as exc:
        return None, str(exc), True, None
    except _BadNumber as exc:
        return None, str(exc), True, _line_of_literal(text, exc.literal)
    except RecursionError:  # a backstop: the depth scan above should always catch it first
        return None, "malformed JSON: nested too deeply", True, None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        return None, f"malformed JSON: {exc}", True, None


def parse_json(text: str | bytes, path: str | None = None, line: int | None = None, *,
               max_depth: int = MAX_JSON_DEPTH) -> Any:
    """One JSON document (or one line's), guarded; bad input raises ``InvalidInput`` at ``path:line``."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"not valid UTF-8 at byte {exc.start}", path=path, line=line) from None
    value, error, _, at = _json_value(text, max_depth)
    if error is not None:
        raise InvalidInput(error, path=path, line=line if line is not None else at)
    return value


@dataclass(frozen=True)
class JsonLine:
    """One line of a JSONL file as read: its value, or why it is not one.

    ``raw`` is the line without its ending, ``eol`` that ending (``"\\n"``, ``"\\r\\n"``, or
    ``""`` for a last line with no newline: ``terminated`` is then False — a torn append?),
    so ``raw + eol`` over all lines is the text again, byte for byte (after a BOM);
    ``skipped`` marks a blank or ``//`` comment line (kept so writers can keep it);
    ``hostile`` marks an error no interrupted write can cause (see ``_json_value``).
    """

    path: str
    line: int
    raw: str
    value: Any = None
    error: str | None = None
    skipped: bool = False
    eol: str = "\n"
    hostile: bool = False

    @property
    def terminated(self) -> bool:
        return self.eol != ""

    def refuse(self, reason: str | None = None) -> InvalidInput:
        """The error for this line: ``reason``, or why it did not parse."""
        return InvalidInput(reason or self.error or "invalid line", path=self.path, line=self.line)


def parse_jsonl(data: str | bytes, path: str, *, comments: bool = False,
                max_depth: int = MAX_JSON_DEPTH) -> list[JsonLine]:
    """Every line of a JSONL text, in order, each parsed with the guards of ``parse_json``.

    Bytes are decoded line by line, strictly, so a bad byte is that line's error (with its
    byte offset in the file) and the other lines still read. A leading BOM is dropped.
    Blank lines are always skipped; ``//`` comment lines only where the format has them
    (``comments``), else a ``//`` line is malformed JSON like any other.
    """
    return list(iter_jsonl(data, path, comments=comments, max_depth=max_depth))


def iter_jsonl(data: str | bytes, path: str, *, comments: bool = False,
               max_depth: int = MAX_JSON_DEPTH) -> Iterator[JsonLine]:
    """``parse_jsonl`` one line at a time: a reader that keeps little of each line (the review
    log, whose millions of ``{}`` lines would otherwise be millions of objects) holds only
    the text, never a list of every line."""
    nl: Any = b"\n" if isinstance(data, bytes) else "\n"
    lineno, offset, start = 0, 0, 0
    while start < len(data):
        end = data.find(nl, start)
        terminated = end != -1
        piece = data[start:end if terminated else len(data)]
        start = end + 1 if terminated else len(data)
        lineno += 1
        error = None
        if isinstance(piece, bytes):
            try:
                text = piece.decode("utf-8")
            except UnicodeDecodeError as exc:
                text, error = piece.decode("utf-8", errors="replace"), f"not valid UTF-8 at byte {offset + exc.start}"
            offset += len(piece) + 1
        else:
            text = piece
        if lineno == 1 and text.startswith("\ufeff"):
            text = text[1:]
        eol = ("\r\n" if text.endswith("\r") else "\n") if terminated else ""
        text = text.removesuffix("\r") if terminated else text
        stripped = text.strip()
        if error is None and (not stripped or (comments and stripped.startswith("//"))):
            yield JsonLine(path, lineno, text, skipped=True, eol=eol)
            continue
        value, hostile = None, False
        if error is None:
            value, error, hostile, _ = _json_value(stripped, max_depth)
        yield JsonLine(path, lineno, text, value, error, eol=eol, hostile=hostile)


_NON_SPACE = re.compile(r"\S")  # \s is exactly str.isspace, what str.strip and str.split drop


def nonblank_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(number, line)`` of each line of ``text`` (split at ``"\\n"``, a ``"\\r"`` kept) that is
    not all whitespace, in order: for line-oriented files (TSV, qrels, chunk files) whose
    readers skip blank lines. The regex engine jumps over the blank ones, so a file of newlines
    costs a scan, not a string and a Python step each (``split("\\n")`` of 256 MiB of newlines
    was a list of 268 million)."""
    lineno, counted, at = 1, 0, 0
    while (m := _NON_SPACE.search(text, at)) is not None:
        start = text.rfind("\n", counted, m.start()) + 1
        end = text.find("\n", m.start())
        end = len(text) if end == -1 else end
        lineno += text.count("\n", counted, start)
        counted, at = start, end
        yield lineno, text[start:end]


def refuse_many_lines(data: str | bytes, path: Path | str, max_lines: int, what: str, bound_hint: str = "") -> None:
    """Refuse a JSONL text of more than ``max_lines`` lines before any is parsed: every line
    read costs an object and time even when blank, so a byte bound alone lets 64 MiB of
    newlines be 64 million of them (gigabytes, minutes). The error names the first line over."""
    nl: Any = b"\n" if isinstance(data, bytes) else "\n"
    lines = data.count(nl) + (bool(data) and not data.endswith(nl))
    if lines > max_lines:
        raise InvalidInput(f"{what} has {lines:,} lines, over the bound of {max_lines:,}"
                           + (f" ({bound_hint})" if bound_hint else ""), path=str(path), line=max_lines + 1)


def read_jsonl(path: Path, *, max_bytes: int, what: str, bound_hint: str = "", comments: bool = False,
               max_depth: int = MAX_JSON_DEPTH, max_lines: int | None = None, lines_hint: str = "") -> list[JsonLine]:
    """A JSONL file read through ``read_regular_file`` (no symlink, regular, bounded), then ``parse_jsonl``;
    ``max_lines``: refused first when it has more lines (``refuse_many_lines``, saying ``lines_hint``)."""
    data = read_regular_file(path, max_bytes=max_bytes, what=what, bound_hint=bound_hint)
    if max_lines is not None:
        refuse_many_lines(data, path, max_lines, what, lines_hint)
    return parse_jsonl(data, str(path), comments=comments, max_depth=max_depth)
