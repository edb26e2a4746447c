"""One resolver, two threads: the app resolves in one worker while another plans a repair
(F5's move groups), and each defers its parsed windows in ``deferred_window_writes``."""

from __future__ import annotations

import threading

from conftest import write_project
from labeller.config import load_config
from labeller.core.project import Project
from labeller.core.windows import window_key


def test_two_threads_deferring_window_writes_at_once_each_store_their_own(tmp_path):
    root = write_project(tmp_path / "proj", {"a.md": "# A\n\nOne paragraph.\n\nTwo.\n",
                                             "b.md": "# B\n\n- an item\n- another\n"})
    resolver = Project(load_config(root)).resolver
    inside, first_done = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def second() -> None:  # enters while the first is inside, leaves after it
        try:
            with resolver.deferred_window_writes():
                resolver.blocks_at("b.md", 2, 2)
                inside.set()
                first_done.wait(10)
        except BaseException as exc:  # noqa: BLE001 (reported by the assertion below)
            errors.append(exc)

    with resolver.deferred_window_writes():
        resolver.blocks_at("a.md", 2, 2)
        other = threading.Thread(target=second)
        other.start()
        assert inside.wait(10)
    first_done.set()
    other.join(10)
    assert not errors
    for doc_id in ("a.md", "b.md"):  # each thread's windows stored when its block ended
        assert resolver._blocks.get(window_key(resolver.corpus[doc_id])) is not None
