"""The one way to open a file someone else placed (``labeller.io.open_untrusted``) and the one
JSON writer that escapes (``labeller.display.json_dumps``), as every reader and writer uses them.

The race a name-based check leaves open is made deterministic: the file is swapped for a FIFO
at the moment ``os.open`` is called, after every check by name. A reader that opens without
``O_NONBLOCK`` would then wait for a writer forever; a helper thread plays that writer (and
closes at once), so a regression fails the test (the reader gets an empty read instead of a
refusal) instead of hanging it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from labeller.app.journal import Journal, JournalEntry
from labeller.app.session.saving import disk_sha256
from labeller.app.settings import load_keymap
from labeller.core import cache
from labeller.core.corpus import read_file_nofollow
from labeller.core.models import Locator
from labeller.errors import InvalidInput
from labeller.io import read_regular_file
from labeller.review.annotations import load_annotations
from labeller.review.log import append_review, new_entry, read_review_log

from helpers_review import make_project

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: reorders what a reviewer reads in a diff or a terminal


@contextmanager
def fifo_swapped_in_at_open(monkeypatch, path: Path) -> Iterator[None]:
    """Replace ``path`` by a FIFO when ``os.open`` is called on it (after every check by name).

    While the block runs, a thread keeps trying to open the FIFO's write end without
    blocking; it succeeds only if a reader is waiting in a blocking open, and then closes at
    once, so such a reader reads nothing and returns instead of hanging the test."""
    real_open = os.open
    swapped = threading.Event()
    done = threading.Event()

    def racing_open(file, flags, *args, **kwargs):
        if Path(file) == path and not swapped.is_set():
            path.unlink()
            os.mkfifo(path)
            swapped.set()
        return real_open(file, flags, *args, **kwargs)

    def writer() -> None:
        swapped.wait()
        while not done.is_set():
            try:
                os.close(real_open(path, os.O_WRONLY | os.O_NONBLOCK))
                return
            except OSError:  # ENXIO: no reader is waiting (yet, or at all)
                done.wait(0.01)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    monkeypatch.setattr(os, "open", racing_open)
    try:
        yield
    finally:
        monkeypatch.setattr(os, "open", real_open)
        swapped.set()
        done.set()
        thread.join()
    assert swapped.is_set()


def _refused(call: Callable[[], object]) -> str:
    with pytest.raises(InvalidInput) as exc:
        call()
    return str(exc.value)


READERS: dict[str, Callable[[Path], str | None]] = {
    # each returns why it refused the FIFO, or None when it (wrongly) read it as a file
    "read_regular_file": lambda p: _refused(lambda: read_regular_file(p, max_bytes=100, what="questions file")),
    "corpus file": lambda p: _refused(lambda: read_file_nofollow(p, 100)),
    "keymap file": lambda p: _refused(lambda: load_keymap(set, p)),
    "cache entry": lambda p: "refused" if cache.read_untrusted(p) is None else None,
    "app's questions digest": lambda p: "refused" if disk_sha256(p, 100) == "unreadable" else None,
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_fifo_swapped_in_after_the_checks_is_refused_without_waiting(tmp_path, monkeypatch, reader):
    path = tmp_path / "file.jsonl"
    path.write_bytes(b"{}\n")
    with fifo_swapped_in_at_open(monkeypatch, path):
        why = READERS[reader](path)
    assert why is not None
    assert why == "refused" or "not a regular file (it is a FIFO)" in why


def test_a_symlink_is_refused_by_the_open_itself_but_a_linked_keymap_is_followed(tmp_path):
    real = tmp_path / "real.toml"
    real.write_text('[keymap]\nsave = "ctrl+w"\n', encoding="utf-8")
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    assert "symlink" in _refused(lambda: read_file_nofollow(link, 100))
    assert cache.read_untrusted(link) is None
    assert load_keymap(lambda: {"save"}, link) == {"save": "ctrl+w"}  # dotfile managers link these


# -- the escaping JSON writer ----------------------------------------------------------------


def test_a_bidi_override_in_a_review_comment_is_written_escaped_and_reads_back(tmp_path):
    project = make_project(tmp_path)
    question = project.load_questions().questions[0]
    log = project.config.layout.review_log
    entry = new_entry(question, "alice", "flag", f"quote is {RLO}wrong")
    append_review(log, entry)
    raw = log.read_bytes()
    assert RLO.encode("utf-8") not in raw and b"\\u202e" in raw
    assert read_review_log(log).entries == [entry]


def test_a_bidi_override_in_an_annotation_is_written_escaped_and_reads_back(tmp_path):
    project = make_project(tmp_path)
    ann = load_annotations(project.config, "bob")
    ann.set("q1", [Locator(quote=f"nightly {RLO}at 02:00")])
    ann.save()
    raw = ann.path.read_bytes()
    assert RLO.encode("utf-8") not in raw and b"\\u202e" in raw
    assert load_annotations(project.config, "bob").records == ann.records


def test_a_bidi_override_in_the_journal_is_written_escaped_and_reads_back(tmp_path):
    journal = Journal(tmp_path / ".labeller" / "journal.json")
    entry = JournalEntry("questions.jsonl", None, drafts=[{"id": "q1", "query": f"what {RLO}time?"}], deleted=[])
    journal.write(entry)
    raw = journal.path.read_bytes()
    assert RLO.encode("utf-8") not in raw and b"\\u202e" in raw
    assert journal.read() == entry
