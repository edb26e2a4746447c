"""Shared test helpers: small throwaway projects written into tmp_path."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

import pytest

from labeller.config import load_config
from labeller.core.project import Project

REPO = Path(__file__).resolve().parents[1]
SHARED_CORPORA = REPO.parent / "shared" / "corpora"
# A slice of the Textual documentation (read from ../shared, never copied into the project):
# pages with front matter, admonitions, tables, code, HTML and nested folders.
TEXTUAL = SHARED_CORPORA / "textual-docs" / "docs"
TEXTUAL_DOCS = ("api/app.md", "blog/posts/anatomy-of-a-textual-user-interface.md", "blog/posts/puppies-and-cake.md",
                "blog/posts/release0.37.0.md", "css_types/_template.md", "css_types/border.md",
                "events/mouse_down.md", "guide/actions.md", "styles/margin.md",
                "styles/scrollbar_colors/index.md", "styles/scrollbar_colors/scrollbar_background_hover.md",
                "widgets/option_list.md")


def require_optional(available: bool, env: str, install: str) -> None:
    """A test of an optional part (labeller[dense], Debian's Chromium): skipped where the part
    is not installed, its reason printed (``pytest -rs``), so the README's two set-up commands
    pass on a fresh machine; failed where ``env`` is ``1``, as CI sets it after installing the
    part (``.ci/run``), so there it can never be skipped."""
    if available:
        return
    if os.environ.get(env) == "1":
        pytest.fail(f"{env}=1 but the part is missing: {install}")
    pytest.skip(f"not installed: {install} (CI installs it and sets {env}=1)")


def write_project(root: Path, docs: dict[str, str | bytes], questions: list[dict | str] = (),
                  toml: str | None = None) -> Path:
    """Write ``corpus/`` files, ``golden/questions.jsonl`` and an optional labeller.toml."""
    for name, content in docs.items():
        path = root / "corpus" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    golden = root / "golden"
    golden.mkdir(parents=True, exist_ok=True)
    lines = [q if isinstance(q, str) else json.dumps(q, ensure_ascii=False) for q in questions]
    (golden / "questions.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    if toml is not None:
        (root / "labeller.toml").write_text(toml, encoding="utf-8")
    return root


def q(id: str, *locators: dict, **extra) -> dict:
    """A question record with a generated query, for tests that only care about locators."""
    rec = {"id": id, "query": extra.pop("query", f"question {id}?"), "expected_answer": "answer",
           "locators": list(locators)}
    rec.update(extra)
    return rec


@pytest.fixture(autouse=True, scope="session")
def _private_user_dirs(tmp_path_factory):
    """Every test (and every command it runs) sees a throwaway config and cache home: the
    cache secret labeller creates on first use (``labeller.core.cache``) must never be
    written to, or read from, the real home of whoever runs the tests."""
    with pytest.MonkeyPatch.context() as mp:
        for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            mp.setenv(var, str(tmp_path_factory.mktemp(var.lower())))
        yield


@pytest.fixture(autouse=True)
def _fresh_app_settings():
    """The app's remembered choices and keymap (``labeller.app.settings``) start empty in
    every test: a theme one test switches to must not colour the next test's snapshot."""
    from labeller.app.settings import KEYMAP_FILE, SETTINGS_FILE, config_dir

    yield
    for name in (KEYMAP_FILE, SETTINGS_FILE):
        (config_dir() / name).unlink(missing_ok=True)


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: two workers a core, not one. An app test spends about half of its time
    waiting on Textual's timers (a Pilot walk profiled: 11.9 of 25 s in the event loop's
    poll), so with one worker a core the cores idle while both wait; measured on the 2-core
    CI machine, the whole suite took 462 s with 2 workers and 372 s with 4."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return 2 * cores


def pytest_configure(config):
    """Collect the youngest objects every 7,000 net allocations, not 700: a Pilot walk
    allocates millions of short-lived objects (styles, strips, messages) and each young
    collection walks the survivors again (a tenth of an app test's CPU); garbage is still
    collected, only less often."""
    gc.set_threshold(7_000, 10, 10)


def pytest_collection_finish(session):
    """Freeze what collection left (every test module and what it imports: a few hundred
    thousand objects) out of the cycle collector's reach: otherwise each full collection a
    test's allocations trigger walks all of it again (a third of an app test's CPU)."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After each test (its fixtures torn down): collect its garbage, then freeze what is
    left, so the next test's collections walk only what it allocates. Collected first, so
    nothing a test left unreachable is kept."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _no_heap_freeze(request, monkeypatch):
    """The app freezes the heap after each load (``labeller.app.app._freeze_heap``): it
    unfreezes and collects *every* object of the process first, undoing the freeze above.
    In a user's process that is the app's own heap; in a test worker it is pytest's, every
    test module's and whatever heavy library an earlier test imported (torch, spaCy,
    LlamaIndex): 0.1-0.6 s of CPU at each app start. Freezing only moves objects out of the
    cycle collector's reach (nothing a test can see), and the hooks above freeze after each
    test instead; so here it is skipped, except in the tests marked ``real_heap_freeze``,
    which check the app's freeze itself."""
    if request.node.get_closest_marker("real_heap_freeze") is None:
        import labeller.app.app

        monkeypatch.setattr(labeller.app.app, "_freeze_heap", lambda: None)


@pytest.fixture
def make_project(tmp_path):
    def factory(docs, questions=(), toml=None, name="proj") -> Project:
        root = write_project(tmp_path / name, docs, questions, toml)
        return Project(load_config(root))

    return factory
