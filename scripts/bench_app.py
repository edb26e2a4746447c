"""Measure the authoring app on a large corpus: start-up, and keystroke-to-highlight latency.

    python scripts/bench_app.py [--size 10MB] [--questions 1000] [--keys 40]

Generates the deterministic synthetic project of ``benchmarks/synth.py`` in a temporary
folder, then drives the real app headless (Textual's pilot) and prints:

- start: from loading the project (config, questions, corpus) to the first screen shown,
  and to every label resolved (chunking, quote index and the build run in a worker);
- typing: for each key typed into a locator's quote, the time from the key press until
  the preview of that exact quote is on screen (match and span highlighted) — with the
  quote still unique, still ambiguous, and not found (its suggestions arrive later and
  are timed apart);
- selecting: from a selection made in the document view to its highlighted resolution.

Numbers are wall-clock on this machine and include the pilot's own event handling.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LABELLER_WORKERS", "1")  # as `labeller app` does (see labeller/commands/app.py)

from benchmarks.synth import generate, parse_size, write_project  # noqa: E402
from labeller.app.app import LabellerApp  # noqa: E402
from labeller.app.screens.author import AuthorScreen  # noqa: E402
from labeller.app.screens.questions import QuestionsScreen  # noqa: E402
from labeller.core.nudge import quote_from_range  # noqa: E402
from labeller.app.session.session import AuthoringSession  # noqa: E402
from labeller.app.widgets.document_view import DocumentView  # noqa: E402


async def until(pilot, condition, limit: float = 120.0) -> float:
    """Seconds until ``condition()`` holds, letting the app run in between."""
    t0 = time.perf_counter()
    while not condition():
        await pilot.pause()
        if time.perf_counter() - t0 > limit:
            raise TimeoutError("condition not reached")
    return time.perf_counter() - t0


async def settle(pilot) -> None:
    while True:
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if not any(w.is_running for w in pilot.app.workers):
            return


def ms(values: list[float]) -> str:
    v = sorted(values)
    return (f"median {statistics.median(v) * 1000:.1f} ms, p95 {v[int(0.95 * (len(v) - 1))] * 1000:.1f} ms, "
            f"max {v[-1] * 1000:.1f} ms (n={len(v)})")


# When each preview reached the screen: the pilot's press() returns only once the app is
# idle again (every worker done), which is later than what the author sees, so the time a
# preview is drawn is taken where it is drawn.
SHOWN: dict[tuple[str | None, str], float] = {}
_apply = AuthorScreen._apply_preview


def _timed_apply(self, args, result) -> None:
    _apply(self, args, result)
    p = self.preview
    if p is not None and not isinstance(result, Exception) and p is result:
        SHOWN.setdefault((p.locator.quote, "final" if not p.pending else "pending"), time.perf_counter())


AuthorScreen._apply_preview = _timed_apply


async def type_and_time(pilot, screen, text: str, stage: str) -> list[float]:
    """Type ``text`` into the quote field key by key; per key, the time from the key press
    until the preview of exactly that quote was drawn (``stage``: ``first`` = the first
    answer, ``final`` = the answer with the core's suggestions)."""
    field = screen.query_one("#loc-quote")
    field.focus()
    await pilot.pause()
    field.value = ""
    await settle(pilot)
    SHOWN.clear()
    times = []
    typed = ""
    for ch in text:
        typed += ch
        t0 = time.perf_counter()
        await pilot.press(ch)
        await settle(pilot)
        stamps = [SHOWN.get((typed, "pending")), SHOWN.get((typed, "final"))]
        stamp = min(t for t in stamps if t) if stage == "first" else stamps[1]
        times.append(stamp - t0)
    return times


FIRST_SCREEN: list[float] = []
_refresh = QuestionsScreen.refresh_from_session


def _timed_refresh(self) -> None:
    _refresh(self)
    if self.is_mounted and not FIRST_SCREEN:
        FIRST_SCREEN.append(time.perf_counter())


QuestionsScreen.refresh_from_session = _timed_refresh


async def bench(root: Path, keys: int) -> None:
    t0 = time.perf_counter()
    session = AuthoringSession.open(root)
    t_open = time.perf_counter() - t0
    app = LabellerApp(session)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: bool(FIRST_SCREEN))
        t_first = FIRST_SCREEN[0] - t0
        await until(pilot, lambda: session.ready, limit=600)
        t_ready = time.perf_counter() - t0
        await settle(pilot)
        print(f"corpus: {len(session.project.corpus)} documents, {session.project.corpus.chars:,} characters, "
              f"{len(session.project.all_chunks):,} chunks, {len(session.order)} questions")
        print(f"start: project loaded in {t_open:.2f} s; first screen at {t_first:.2f} s; "
              f"every label resolved at {t_ready:.2f} s")

        rid = next(i for i in session.order if session.draft(i).locators and session.draft(i).locators[0].quote)
        app.open_record(rid)
        await settle(pilot)
        screen = app.screen
        quote = session.draft(rid).locators[0].quote
        typed = await type_and_time(pilot, screen, quote[:keys], "first")
        print(f"typing a quote pinned to its document ({len(typed)} keys; prefixes resolve or are "
              f"ambiguous): {ms(typed)}")
        typo = "zq" + "x" * (keys - 2)
        missing = await type_and_time(pilot, screen, typo, "final")
        print(f"typing a quote that is not in its document (refusal and nearest passages shown): {ms(missing)}")
        doc_field = screen.query_one("#loc-doc")
        doc_field.value = ""
        await settle(pilot)
        typed = await type_and_time(pilot, screen, quote[:keys], "first")
        print(f"typing the same quote with no document (searched in the whole corpus): {ms(typed)}")
        missing = await type_and_time(pilot, screen, typo, "first")
        print(f"typing a quote that is nowhere in the corpus ('not found' shown): {ms(missing)}")
        missing = await type_and_time(pilot, screen, typo, "final")
        print(f"  ...and its nearest passages over the whole corpus shown: {ms(missing)}")

        view = screen.query_one(DocumentView)
        view.focus()
        doc = view.doc
        sels = []
        for start in range(0, min(len(doc.text) - 41, 40_000), 997)[:keys]:
            end = start + 40
            if not doc.text[start:end].strip():
                continue
            SHOWN.clear()
            t1 = time.perf_counter()
            view.select_offsets(start, end)
            await settle(pilot)
            quote = quote_from_range(doc, start, end)
            stamps = [t for t in (SHOWN.get((quote, "pending")), SHOWN.get((quote, "final"))) if t]
            if stamps:
                sels.append(min(stamps) - t1)
        print(f"selecting 40 characters in the document view: {ms(sels)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="10MB")
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--keys", type=int, default=40)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "bench"
        t0 = time.perf_counter()
        write_project(generate(parse_size(args.size), args.questions), root)
        print(f"generated {args.size} project in {time.perf_counter() - t0:.1f} s")
        asyncio.run(bench(root, args.keys))


if __name__ == "__main__":
    main()
