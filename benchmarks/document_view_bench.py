"""The document view alone on a big document (issue 26.1): open it, jump to its end, page through it.

    python benchmarks/document_view_bench.py [--mb 5] [--runs 3]

A stand-alone figure, not a step of ``run.py``: the view is measured in a bare app holding only
it, so the numbers are the widget's (wrapping, the line table, drawing) and nothing of the
author screen. The document comes from ``synth.py`` (headings, lists, tables, code, CJK lines),
so its lines wrap as a real handbook's do. Each figure is the median of ``--runs`` fresh apps:

* open: ``show_document`` to the first frame drawn;
* end: ``reveal`` of the last offset to the frame that shows it;
* page down: each of 40 ``pagedown`` keys, from the middle, to its frame (p95);
* resize: the terminal made narrower (every line wrapped again) to its frame.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

SIZE = (160, 48)


def big_text(mb: float) -> str:
    import synth

    return synth.Writer(20261202).document("handbook/all.md", int(mb * 1_000_000)).text


async def one_run(text: str) -> dict[str, float]:
    from textual.app import App, ComposeResult

    from labeller.app.widgets.document_view import DocumentView
    from labeller.core.corpus import Document

    class Bare(App):
        CSS_PATH = str(Path(__file__).resolve().parent.parent / "labeller" / "app" / "screens" / "document_view.tcss")

        CSS = "DocumentView { width: 1fr; }"  # the author screen's 3fr is a share of a row of panes

        def compose(self) -> ComposeResult:
            yield DocumentView()

    doc = Document("handbook/all.md", text, hashlib.sha256(text.encode()).hexdigest())
    out: dict[str, float] = {}
    app = Bare()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(DocumentView)
        view.focus()
        await pilot.pause()
        t = time.perf_counter()
        view.show_document(doc, dict, [])
        await pilot.pause()
        out["open_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        view.reveal(len(text))
        await pilot.pause()
        out["end_ms"] = (time.perf_counter() - t) * 1000
        view.reveal(len(text) // 2)
        await pilot.pause()
        pages = []
        for _ in range(40):
            t = time.perf_counter()
            await pilot.press("pagedown")
            pages.append((time.perf_counter() - t) * 1000)
        out["pagedown_p95_ms"] = sorted(pages)[int(0.95 * len(pages)) - 1]
        t = time.perf_counter()
        await pilot.resize_terminal(100, 48)
        await pilot.pause()
        out["resize_ms"] = (time.perf_counter() - t) * 1000
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=5.0, help="document size in MB (default 5)")
    ap.add_argument("--runs", type=int, default=3, help="fresh apps; the median is reported (default 3)")
    args = ap.parse_args()
    text = big_text(args.mb)
    runs = [asyncio.run(one_run(text)) for _ in range(args.runs)]
    lines = text.count("\n") + 1
    print(f"document: {len(text):,} characters, {lines:,} lines; terminal {SIZE[0]}x{SIZE[1]}")
    for key in runs[0]:
        values = [r[key] for r in runs]
        print(f"{key:>16}: {statistics.median(values):8.1f}   ({', '.join(f'{v:.1f}' for v in values)})")


if __name__ == "__main__":
    main()
