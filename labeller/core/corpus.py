"""Loading a corpus folder safely into canonical documents.

A corpus comes from anywhere, so the walk refuses anything that could make a label
point outside the folder or at bytes that change under it: symlinks at any depth,
non-regular files, undecodable text and oversized files all stop the load (exit 2).
It fails closed: a folder it cannot read or a file that vanishes mid-walk stops it too
(skipping one would let a quote that was ambiguous resolve "uniquely"), and so do two
names that differ only in Unicode normalisation or case (which one does a label mean,
and which one will a case-insensitive checkout keep?).
"""

from __future__ import annotations

import bisect
import hashlib
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cached_property
from itertools import accumulate
from pathlib import Path, PurePosixPath

from labeller.config import DEFAULT_INCLUDE, DEFAULT_MAX_FILE_BYTES
from labeller.core.canon import canonicalize, decode_utf8, sha256_hex
from labeller.errors import InvalidInput
from labeller.io import open_untrusted, read_open


@dataclass(frozen=True)
class Document:
    """One canonical document. ``text`` is the string every offset indexes."""

    doc_id: str
    text: str
    sha256: str

    @cached_property
    def line_starts(self) -> list[int]:
        """Offsets where each LF-separated line starts (Markdown-it's notion of lines)."""
        # Each line starts one past the end of the previous one; accumulate over the
        # line lengths runs in C (a find loop in Python was a tenth of a warm build).
        lengths = map(len, self.text.split("\n")[:-1])
        starts = list(accumulate(map((1).__add__, lengths), initial=0))
        if starts[-1] == len(self.text):
            starts.pop()
        return starts

    def __reduce__(self):
        """Pickled (to a worker process) with the text as UTF-8 bytes: pickling a ``str``
        makes CPython keep a UTF-8 copy inside that string for as long as it lives, which
        for a corpus with any non-ASCII text was the corpus once more in the main process
        of a cold build (95 MB at 100 MB). A cached ``line_starts`` is not sent."""
        return _document, (self.doc_id, self.text.encode("utf-8", "surrogatepass"), self.sha256)

    def adopt_line_starts(self, starts: list[int]) -> None:
        """Take ``line_starts`` as a worker process computed it for this same text (the
        cold build ships it back with the document's windows rather than redo it)."""
        self.__dict__.setdefault("line_starts", starts)

    def line_of(self, offset: int) -> int:
        """0-based LF line index holding ``offset``."""
        return bisect.bisect_right(self.line_starts, offset) - 1

    def line_end(self, line: int) -> int:
        """Offset just past the LF ending ``line`` (or the end of the text)."""
        starts = self.line_starts
        return starts[line + 1] if line + 1 < len(starts) else len(self.text)

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of ``offset``, for messages."""
        line = self.line_of(offset)
        return line + 1, offset - self.line_starts[line] + 1

    def where(self, offset: int) -> str:
        line, col = self.line_col(offset)
        return f"{self.doc_id}:{line}:{col}"


def _document(doc_id: str, data: bytes, sha256: str) -> Document:
    """``Document.__reduce__``'s inverse."""
    return Document(doc_id, data.decode("utf-8", "surrogatepass"), sha256)


def make_document(doc_id: str, raw: str) -> Document:
    text = canonicalize(raw)
    return Document(doc_id=doc_id, text=text, sha256=sha256_hex(text))


@dataclass
class Corpus:
    """Documents sorted by ``doc_id`` plus the digest that pins them."""

    root: Path | None
    docs: dict[str, Document] = field(default_factory=dict)

    @classmethod
    def from_documents(cls, documents: list[Document], root: Path | None = None) -> "Corpus":
        return cls(root=root, docs={d.doc_id: d for d in sorted(documents, key=lambda d: d.doc_id)})

    @cached_property
    def digest(self) -> str:
        return corpus_digest(self.docs.values())

    @property
    def chars(self) -> int:
        return sum(len(d.text) for d in self.docs.values())

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self.docs

    def __getitem__(self, doc_id: str) -> Document:
        return self.docs[doc_id]

    def __iter__(self):
        return iter(self.docs.values())

    def __len__(self) -> int:
        return len(self.docs)


def corpus_digest(docs) -> str:
    h = hashlib.sha256()
    for doc in docs:
        h.update(doc.doc_id.encode("utf-8") + b"\x00" + doc.sha256.encode("ascii") + b"\x00")
    return h.hexdigest()


def glob_match(doc_id: str, pattern: str) -> bool:
    """Match a POSIX relative path against a glob where ``**/`` spans zero or more folders."""
    return _glob_parts(doc_id.split("/"), pattern.split("/"))


def _glob_parts(parts: list[str], pats: list[str]) -> bool:
    if not pats:
        return not parts
    head, rest = pats[0], pats[1:]
    if head == "**":
        return any(_glob_parts(parts[i:], rest) for i in range(len(parts) + 1))
    return bool(parts) and fnmatchcase(parts[0], head) and _glob_parts(parts[1:], rest)


def selected(doc_id: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    return any(glob_match(doc_id, p) for p in include) and not any(glob_match(doc_id, p) for p in exclude)


def check_relative_doc_id(doc_id: str, *, record_id: str | None = None, path: str | None = None) -> None:
    """Refuse absolute or climbing document paths in labels (invalid input, exit 2)."""
    p = PurePosixPath(doc_id)
    unsafe = (not doc_id or p.is_absolute() or "\\" in doc_id or ".." in p.parts
              or re.match(r"^[A-Za-z]:", doc_id) is not None)
    if unsafe:
        raise InvalidInput(f"document path {doc_id!r} must be relative to the corpus root and may not climb out of it",
                           record_id=record_id, path=path)


def walk_corpus(root: Path, include: tuple[str, ...] = DEFAULT_INCLUDE, exclude: tuple[str, ...] = (),
                max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> list[tuple[str, Path]]:
    """List ``(doc_id, path)`` of the selected files, refusing anything unsafe below ``root``."""
    if root.is_symlink():
        raise InvalidInput("the corpus root is a symlink; give its real path", path=str(root))
    if not root.is_dir():
        raise InvalidInput("corpus folder not found", path=str(root))
    found: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=_unreadable_folder, followlinks=False):
        base = Path(dirpath)
        for name in sorted(dirnames + filenames):
            path = base / name
            try:
                st = path.lstat()
            except FileNotFoundError:
                raise InvalidInput("vanished while the corpus was read; run again once it is stable",
                                   path=str(path)) from None
            rel = path.relative_to(root).as_posix()
            if stat.S_ISLNK(st.st_mode):
                raise InvalidInput("symlink inside the corpus refused", path=str(path))
            if stat.S_ISDIR(st.st_mode):
                continue
            if not selected(rel, include, exclude):
                continue
            _refuse_undecodable_name(rel, path)
            if not stat.S_ISREG(st.st_mode):
                raise InvalidInput("not a regular file", path=str(path))
            if st.st_size > max_file_bytes:
                raise InvalidInput(f"file is {st.st_size} bytes, over the bound of {max_file_bytes} bytes "
                                   "(raise [corpus] max_file_bytes in labeller.toml)", path=str(path))
            found.append((rel, path))
    found.sort()
    _refuse_colliding_names(root, [rel for rel, _ in found])
    return found


def _refuse_undecodable_name(rel: str, path: Path) -> None:
    """A name that is not UTF-8 (git stores names as bytes; Python reads the bad bytes as lone
    surrogates) is refused naming its bytes, escaped: a document id is written to UTF-8
    artifacts and terminals, where it exited 3 in every command."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")
        raise InvalidInput("the file name is not valid UTF-8 (the bytes shown as \\x..); rename it",
                           path=shown) from None


def _unreadable_folder(exc: OSError) -> None:
    raise InvalidInput(f"cannot read this corpus folder ({exc.strerror or exc}); labeller does not skip part "
                       "of a corpus", path=str(exc.filename)) from None


def _refuse_colliding_names(root: Path, doc_ids: list[str]) -> None:
    """Two paths equal under NFC, or under NFC and case folding, are refused, naming both."""
    seen: dict[str, str] = {}
    for doc_id in doc_ids:
        key = unicodedata.normalize("NFC", doc_id).casefold()
        other = seen.setdefault(key, doc_id)
        if other != doc_id:
            how = "case" if unicodedata.normalize("NFC", other) != unicodedata.normalize("NFC", doc_id) else \
                "Unicode normalisation (NFC/NFD)"
            raise InvalidInput(f"{other!r} and {doc_id!r} differ only in {how}: rename one (a label could not say "
                               "which it means)", path=str(root))


def read_file_nofollow(path: Path, max_bytes: int) -> bytes:
    """Read a corpus file through ``open_untrusted``: a symlink, FIFO or device swapped in
    after the walk is refused, and so is a file that grew past ``max_bytes``."""
    try:
        with open_untrusted(path, max_bytes=max_bytes, what="file") as (fd, _):
            return read_open(fd, path, max_bytes=max_bytes, what="file")
    except FileNotFoundError:
        raise InvalidInput("vanished while the corpus was read; run again once it is stable", path=str(path)) from None
    except OSError as exc:
        raise InvalidInput(f"cannot open: {exc.strerror}", path=str(path)) from None


def load_corpus(root: Path, include: tuple[str, ...] = DEFAULT_INCLUDE, exclude: tuple[str, ...] = (),
                max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> Corpus:
    docs = []
    for doc_id, path in walk_corpus(root, include, exclude, max_file_bytes):
        data = read_file_nofollow(path, max_file_bytes)
        docs.append(make_document(doc_id, decode_utf8(data, str(path))))
    return Corpus.from_documents(docs, root=root)
