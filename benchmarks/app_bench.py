"""The app's two figures: keystroke to highlighted span (through Pilot) and start to first screen.

The keystroke figure drives the real ``LabellerApp`` headless: a question is created, an
anchor selected in the document view, then for each sample quote the quote field is set
to all but its last character and, once the app has settled, the last character is
*pressed*. The clock stops when the document view holds the ``match`` mark at the
quote's full range — the highlight state the author sees drawn on the next refresh — so
it covers the key event, the session update (and its journal write), the resolution
worker and the marks being set.

The start figure is a fresh process (interpreter start and imports included, as a user
experiences it) that opens the app on a copy of the bundled example and stops at the
first screen.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from labeller.app.pilot import settle

SIZE = (150, 45)


@dataclass
class KeyResult:
    times_ms: list[float] = field(default_factory=list)
    note: str = ""
    skipped: str = ""


@dataclass
class StartResult:
    runs: list[float] = field(default_factory=list)  # seconds to the first screen, one per run
    note: str = ""
    skipped: str = ""


def _app_missing() -> str:
    try:
        import labeller.app.app  # noqa: F401
        from labeller.app.widgets.document_view import DocumentView  # noqa: F401
    except ImportError as exc:
        return f"the app is not importable: {exc}"
    return ""


def sample_quotes(project, n: int, seed: int = 11, only_doc: str | None = None) -> list[tuple[str | None, str, int, int]]:
    """``(doc, quote, quote_start, quote_end)`` of resolvable golden quotes whose last
    character is a plain letter (a key Pilot presses as itself); with ``only_doc``, only
    quotes that resolve in that document."""
    from labeller.core.resolve import Span

    out = []
    locs = [loc for q in project.load_questions().questions for loc in q.locators
            if loc.quote and loc.quote[-1].isascii() and loc.quote[-1].isalpha() and not loc.exact]
    rng = random.Random(seed)
    rng.shuffle(locs)
    for loc in locs:
        res = project.resolver.resolve(loc)
        if isinstance(res, Span) and only_doc in (None, res.doc_id):
            out.append((loc.doc, loc.quote, res.quote_start, res.quote_end))
        if len(out) == n:
            break
    return out


async def keystrokes(root: Path, n: int = 60, only_doc: str | None = None) -> KeyResult:
    missing = _app_missing()
    if missing:
        return KeyResult(skipped=missing)
    from textual.widgets import Input

    from labeller.app.app import LabellerApp
    from labeller.app.screens.author import AuthorScreen
    from labeller.app.session.session import AuthoringSession
    from labeller.app.widgets.document_view import DocumentView

    session = AuthoringSession.open(root)
    session.journal.clear()  # an earlier interrupted run must not greet us with a restore dialog
    quotes = sample_quotes(session.project, n, only_doc=only_doc)
    app = LabellerApp(session)
    result = KeyResult(note=f"{len(quotes)} quotes typed into the quote field, last key pressed; "
                       "stops when the document view shows the match mark"
                       + (f" (all in {only_doc})" if only_doc else ""))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        screen = app.screen
        if not isinstance(screen, AuthorScreen):
            return KeyResult(skipped=f"ctrl+n opened {type(screen).__name__}, not the author screen")
        view = screen.query_one(DocumentView)
        doc0, _, s0, e0 = quotes[0]
        screen.show_document(doc0 or _doc_of(session.project, s0, quotes[0][1]))
        view.select_offsets(s0, e0)  # the selection creates the locator being edited
        await settle(pilot)
        doc_field = screen.query_one("#loc-doc", Input)
        quote_field = screen.query_one("#loc-quote", Input)
        quote_field.focus()  # once: focusing selects the field's text, which a key would replace
        await settle(pilot)
        for doc, quote, qs, qe in quotes:
            doc_field.value = doc or ""
            quote_field.value = quote[:-1]
            quote_field.cursor_position = len(quote_field.value)
            await settle(pilot)
            t = time.perf_counter()
            # the press runs as its own task: Pilot's press also waits for the screen to
            # go idle, and the clock must stop when the highlight is set, not after that
            press = asyncio.create_task(pilot.press(quote[-1]))
            while not any(m.kind == "match" and m.start == qs and m.end == qe for m in view._marks):
                await asyncio.sleep(0.0005)
                if time.perf_counter() - t > 10:
                    raise RuntimeError(f"no highlight for {quote!r} after 10 s")
            result.times_ms.append((time.perf_counter() - t) * 1000)
            await press
        app.exit()
    session.journal.clear()  # the drafts typed here are the benchmark's, not the author's
    return result


def _doc_of(project, start: int, quote: str) -> str:
    from labeller.core.anchors import fold_quote

    folded = fold_quote(quote)
    return project.resolver.index.find_all([folded])[folded][0].doc_id


# Both stop at Textual's ``Ready`` event: the first frame of the first screen has been drawn
# (an autopilot starts earlier, before that frame). The app's own ``on_ready`` (which starts
# resolving) is replaced: what follows the first frame is not part of this figure.
_START = """
import sys, time
from labeller.app.app import LabellerApp
from labeller.app.session.session import AuthoringSession

def first_screen(app):
    print(time.time(), type(app.screen).__name__, flush=True)
    app.exit()

LabellerApp.on_ready = first_screen
LabellerApp(AuthoringSession.open(sys.argv[1])).run(headless=True, size=(150, 45))
"""

# The peer the issue names: the least a Textual app with a table can start in, measured the
# same way (fresh interpreter, headless, stops at the first screen) in the same run.
_MINIMAL = """
import sys, time
from textual.app import App
from textual.widgets import DataTable, Footer, Header

class Minimal(App):
    def compose(self):
        yield Header()
        yield DataTable()
        yield Footer()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns("id", "status", "query")
        for i in range(40):
            table.add_row(f"q{i:03}", "resolved", "a question about the corpus")

    def on_ready(self):
        print(time.time(), type(self.screen).__name__, flush=True)
        self.exit()

Minimal().run(headless=True, size=(150, 45))
"""


def _first_screen(code: str, *args: str, pycache: Path) -> tuple[float, str] | str:
    """Spawn ``python -c code args``; seconds from the spawn to the first screen and its name,
    or why it did not start. Byte code is cached in ``pycache`` (warmed by the caller), as an
    installed package has it: without it every run would time compiling labeller's sources."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    t = time.time()
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, env=env)
    if proc.returncode != 0 or not proc.stdout.strip():
        return f"did not start: {proc.stderr[-500:]}"
    shown, screen = proc.stdout.split()[-2:]
    return float(shown) - t, screen


def start_times(example: Path, runs: int) -> tuple[StartResult, StartResult]:
    """Seconds from spawning ``python`` to the first screen: labeller on a copy of
    ``example``, and the minimal Textual app (Header, DataTable, Footer), alternating, so
    that both see the same machine; one untimed run of each first fills the byte-code cache."""
    missing = _app_missing()
    if missing:
        return StartResult(skipped=missing), StartResult(skipped=missing)
    with tempfile.TemporaryDirectory(prefix="labeller-app-start-") as tmp:
        root = Path(tmp) / "example"
        root.mkdir()
        for name in ("corpus", "golden"):
            shutil.copytree(example / name, root / name)
        if (example / "labeller.toml").is_file():
            shutil.copy2(example / "labeller.toml", root / "labeller.toml")
        pycache = Path(tmp) / "pycache"
        ours, peer = StartResult(), StartResult()
        n_docs = sum(1 for _ in (root / "corpus").rglob("*.md"))
        for n in range(runs + 1):
            for result, code, args in ((ours, _START, (str(root),)), (peer, _MINIMAL, ())):
                got = _first_screen(code, *args, pycache=pycache)
                if isinstance(got, str):
                    result.skipped = got
                elif n:  # the first round only warms the byte-code cache
                    result.runs.append(got[0])
                    result.note = got[1]
        ours.note = (f"{ours.note} shown; {n_docs} documents; interpreter start and imports included "
                     "(byte code cached)")
        peer.note = f"{peer.note} shown: Header, DataTable (40 rows), Footer"
        return ours, peer


# The question table on a large project: the first frame comes before the corpus is read
# (every label still "…"), and the statuses fill in when the prepare worker is done.
_LOADING = """
import sys, time
from labeller.app.app import LabellerApp
from labeller.app.session.session import AuthoringSession
from labeller.app.session.statuses import STATUS_PENDING

def pending(session):
    return sum(1 for i in session.order if session.status(i)[0] == STATUS_PENDING)

start_preparing = LabellerApp.on_ready
take_result = LabellerApp._prepared

def on_ready(app):
    s = app.session
    print("shown", time.time(), int(s.project.corpus_loaded), pending(s), len(s.order), flush=True)
    start_preparing(app)

def prepared(app, *args):
    take_result(app, *args)
    print("resolved", time.time(), pending(app.session), flush=True)
    app.exit()

LabellerApp.on_ready, LabellerApp._prepared = on_ready, prepared
LabellerApp(AuthoringSession.open(sys.argv[1]), watch_corpus=False).run(headless=True, size=(150, 45))
"""


@dataclass
class LoadingResult:
    shown_s: list[float] = field(default_factory=list)  # spawn to the first frame
    resolved_s: list[float] = field(default_factory=list)  # spawn to every status filled in
    note: str = ""
    skipped: str = ""


# -- a 1 MB document (issue 17.7) ----------------------------------------------------------
#
# The synthetic corpus's documents are 5-60 kB; handbooks exported as one page are not. The
# big-document figures run on a project of their own: one 1 MB document written by the same
# generator (benchmarks/synth.py: headings, lists, tables, code, front matter) beside ten
# ordinary pages, with golden questions over all of them.

BIG_DOC = "handbook/everything-on-one-page.md"


def big_document_project(root: Path, size: int = 1_000_000, seed: int = 20261201, n_questions: int = 60) -> str:
    """Write the project into ``root``; the big document's id."""
    import synth

    w = synth.Writer(seed)
    docs = [w.document(BIG_DOC, size)] + [w.document(f"guide/page-{i:02d}.md", 20_000) for i in range(10)]
    for d in docs:  # plain UTF-8 and LF: the figure is about size, not about decoding
        d.crlf = d.bom = d.nfd = False
    questions = synth.make_questions(docs, n_questions, random.Random(seed + 1))
    synth.write_project(synth.Synthetic(docs, questions), root)
    return BIG_DOC


@dataclass
class BigResult:
    open_ms: list[float] = field(default_factory=list)  # every open, the first included
    first_open_ms: list[float] = field(default_factory=list)  # the first open in each fresh app
    suggest_ms: list[float] = field(default_factory=list)
    suggest_model_ms: list[float] = field(default_factory=list)
    note: str = ""
    skipped: str = ""


def loading_times(root: Path, runs: int) -> LoadingResult:
    """On the project at ``root`` (the benchmark's large corpus): seconds to the first frame
    and to every status resolved, and what the first frame showed."""
    missing = _app_missing()
    if missing:
        return LoadingResult(skipped=missing)
    out = LoadingResult()
    with tempfile.TemporaryDirectory(prefix="labeller-app-loading-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        for n in range(runs + 1):  # the first run fills the byte-code cache (and the chunk cache)
            t = time.time()
            proc = subprocess.run([sys.executable, "-c", _LOADING, str(root)], capture_output=True, text=True,
                                  timeout=600, env=env)
            lines = {line.split()[0]: line.split()[1:] for line in proc.stdout.splitlines() if line.strip()}
            if proc.returncode != 0 or "shown" not in lines or "resolved" not in lines:
                return LoadingResult(skipped=f"the app did not start: {proc.stderr[-500:]}")
            shown, loaded, waiting, total = lines["shown"]
            resolved, left = lines["resolved"]
            if n:
                out.shown_s.append(float(shown) - t)
                out.resolved_s.append(float(resolved) - t)
                out.note = (f"first frame: corpus {'already' if loaded == '1' else 'not yet'} read, {waiting} of "
                            f"{total} statuses pending; after resolution {left} pending")
    return out


def near_miss(quote: str) -> str:
    """The quote with one middle word replaced: not in the document, a passage close to it is.
    Ends in a letter, so the last key is one Pilot presses as itself."""
    words = quote.split()
    words[len(words) // 2] = "zqxv"
    out = " ".join(words)
    return out if out[-1].isascii() and out[-1].isalpha() else out + "s"


async def big_document(root: Path, big: str, n: int = 10, fresh: int = 3) -> BigResult:
    """Through the real app (Pilot): (1) from Enter on a question in the list to the author
    screen showing the 1 MB document with that question's quote highlighted, ``n`` times (the
    view showed another document before, so the big one is loaded each time); the first of
    them shows the author screen for the first time, as a user's first open does (the app
    builds it while idle once the corpus is read), and is measured again in ``fresh - 1`` more
    apps started for it alone (``first_open_ms``); (2) from the last key of
    a not-found quote pinned to the big document to its suggestions on screen (the refusal
    with its nearest passages, the second lane of the preview). And (3) the session model
    alone: ``preview_locator`` of that quote with suggestions, no UI."""
    missing = _app_missing()
    if missing:
        return BigResult(skipped=missing)
    from textual.widgets import Input

    from labeller.app.screens.author import AuthorScreen
    from labeller.app.session.drafts import Draft, LocatorDraft
    from labeller.app.session.preview import preview_locator

    result = BigResult()
    for _ in range(fresh - 1):  # apps that only open once
        async with _big_app(root, big) as (app, pilot, targets):
            if not targets:
                return BigResult(skipped="no golden quote resolves in the big document")
            result.first_open_ms.append(await _open_to_quote(app, pilot, big, targets[0]))
            app.exit()
    async with _big_app(root, big) as (app, pilot, targets):
        session = app.session
        chars = len(session.project.corpus[big].text)
        other = next(d for d in sorted(session.project.corpus.docs) if d != big)
        targets = targets[:n]
        if not targets:
            return BigResult(skipped="no golden quote resolves in the big document")
        # (1) open: question list -> Enter -> the quote highlighted in the big document
        for target in targets:
            if isinstance(app.screen, AuthorScreen):
                app.screen.show_document(other)  # so the big document is loaded again
                await settle(pilot)
            result.open_ms.append(await _open_to_quote(app, pilot, big, target))
        result.first_open_ms.append(result.open_ms[0])
        # (2) suggestions for a not-found quote pinned to the big document, through the app
        screen = app.screen
        assert isinstance(screen, AuthorScreen)
        doc_field = screen.query_one("#loc-doc", Input)
        quote_field = screen.query_one("#loc-quote", Input)
        quote_field.focus()
        await settle(pilot)
        misses = [near_miss(t[3]) for t in targets]
        shown_suggestions = 0
        for quote in misses:
            doc_field.value = big
            quote_field.value = quote[:-1]
            quote_field.cursor_position = len(quote_field.value)
            await settle(pilot)
            t = time.perf_counter()
            press = asyncio.create_task(pilot.press(quote[-1]))
            while True:
                p = screen.preview
                if p is not None and p.locator.quote == quote and p.refusal is not None and not p.pending:
                    break
                await asyncio.sleep(0.0005)
                if time.perf_counter() - t > 30:
                    raise RuntimeError(f"no suggestions for {quote!r} after 30 s")
            result.suggest_ms.append((time.perf_counter() - t) * 1000)
            shown_suggestions += bool(p.refusal.suggestions)
            await press
        app.exit()
    # (3) the same quotes through the session model only
    for quote in misses:
        draft = Draft(id="bench", query="q?", expected_answer="a", locators=(LocatorDraft(doc=big, quote=quote),))
        t = time.perf_counter()
        p = preview_locator(session.project, draft, 0)
        result.suggest_model_ms.append((time.perf_counter() - t) * 1000)
        assert p.refusal is not None and p.refusal.kind == "not_found", p
    session.journal.clear()
    result.note = (f"{big}: {chars:,} characters; {len(result.open_ms)} records opened from the list (the first, "
                   f"the author screen's first show: {result.open_ms[0]:.0f} ms; first opens in "
                   f"{len(result.first_open_ms)} fresh apps: "
                   f"{', '.join(f'{ms:.0f}' for ms in result.first_open_ms)} ms); "
                   f"{len(misses)} near-miss quotes, {shown_suggestions} with nearest passages shown")
    return result


@asynccontextmanager
async def _big_app(root: Path, big: str):
    """A fresh app on the big-document project, settled on its first screen, with the records
    whose first label lies in the big document: (id, quote start, quote end, quote)."""
    from labeller.app.app import LabellerApp
    from labeller.app.session.session import AuthoringSession

    session = AuthoringSession.open(root)
    session.journal.clear()
    app = LabellerApp(session, watch_corpus=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        targets = []
        for rid in session.order:
            res = session.result(rid)
            draft = session.draft(rid)
            if (res is not None and not res.refusals and res.spans and res.spans[0].doc_id == big
                    and draft.locators and draft.locators[0].quote):
                targets.append((rid, res.spans[0].quote_start, res.spans[0].quote_end, draft.locators[0].quote))
        yield app, pilot, targets
    session.journal.clear()


async def _open_to_quote(app, pilot, big: str, target: tuple[str, int, int, str]) -> float:
    """Milliseconds from Enter on ``target``'s row in the question list to its quote
    highlighted in the big document."""
    from labeller.app.screens.author import AuthorScreen
    from labeller.app.widgets.document_view import DocumentView
    from labeller.app.widgets.question_list import QuestionTable

    rid, qs, qe, _ = target
    app.switch_mode("questions")
    await settle(pilot)
    table = app.screen.query_one(QuestionTable)
    table.focus()
    table.move_cursor(row=table.get_row_index(rid))
    await settle(pilot)
    t = time.perf_counter()
    press = asyncio.create_task(pilot.press("enter"))
    while not _highlighted(app, AuthorScreen, DocumentView, big, qs, qe):
        await asyncio.sleep(0.0005)
        if time.perf_counter() - t > 30:
            raise RuntimeError(f"{rid}: no highlight in {big} after 30 s")
    ms = (time.perf_counter() - t) * 1000
    await press
    await settle(pilot)
    return ms


def _highlighted(app, author_screen, document_view, doc_id: str, qs: int, qe: int) -> bool:
    screen = app.screen
    if not isinstance(screen, author_screen):
        return False
    view = screen.query_one(document_view)
    return (view.doc is not None and view.doc.doc_id == doc_id
            and any(m.kind == "match" and m.start == qs and m.end == qe for m in view._marks))
