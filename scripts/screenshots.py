"""Render the authoring app's main screens on the bundled example to ``screenshots/*.svg``.

    python scripts/screenshots.py [--root PROJECT] [--out screenshots]

Also writes ``review.svg`` (review mode) through ``scripts/screenshot_review.py``, and
``eval-report-html.png``: the bundled example's ``labeller eval --html`` report as headless
Chromium draws it (Debian's ``chromium``; skipped, with a line saying so, where it is absent).

The real app (``LabellerApp``) runs headless under Textual's test pilot on a throwaway
copy of the project (typing a quote writes the autosave journal, which must not land
in the repository), and each screen is exported as an SVG. Nothing in the pictures
depends on the clock, so re-running on an unchanged project gives the same files.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from labeller.app.app import LabellerApp
from labeller.app.pilot import settle
from labeller.app.session.preview import preview_locator
from labeller.app.session.session import AuthoringSession

SIZE = (140, 42)


def pick_records(session: AuthoringSession) -> tuple[str, str | None]:
    """A resolved record to show, and a word its document holds exactly twice (an ambiguous quote)."""
    session.prepare()
    index = session.project.resolver.index
    first = None
    for rid in session.order:
        draft = session.draft(rid)
        if not draft.locators or draft.unanswerable or draft.locators[0].quote is None:
            continue
        p = preview_locator(session.project, draft, 0)
        if p.span is None:
            continue
        first = first or rid
        doc = session.project.corpus[p.span.doc_id]
        words = [w for w in doc.text[p.span.start:p.span.end].split() if w.isalpha() and len(w) > 4]
        ambiguous = next((w for w in words if index.count(w, p.span.doc_id, 3) == 2), None)
        if ambiguous is not None:
            return rid, ambiguous
    if first is None:
        raise RuntimeError("no resolvable record in the project")
    return first, None


async def shoot(root: Path, out: Path, size: tuple[int, int] = SIZE) -> list[Path]:
    session = AuthoringSession.open(root)
    record, ambiguous = pick_records(session)
    app = LabellerApp(AuthoringSession.open(root), watch_corpus=False)
    written: list[Path] = []

    async def save(name: str) -> None:
        await settle(pilot)
        for widget in app.screen.query("Input, TextArea"):
            widget.cursor_blink = False
        app.clear_notifications()
        await pilot.pause()
        path = out / f"{name}.svg"
        path.write_text(app.export_screenshot(title=f"labeller — {name}"), encoding="utf-8")
        written.append(path)

    async with app.run_test(size=size) as pilot:
        await save("questions")
        app.open_record(record)
        await save("author")
        if ambiguous is not None:
            quote = app.screen.query_one("#loc-quote")
            quote.focus()
            await pilot.pause()
            quote.value = ""
            await pilot.press(*ambiguous)
            await save("author-ambiguous")
            quote.value = session.draft(record).locators[0].quote or ""  # put the record back as it was
            await settle(pilot)
        await pilot.press("f4")
        await save("coverage")
        await pilot.press("f6")
        await pilot.press("ctrl+r")
        await save("eval")
        await pilot.press("f1")
        await save("help")
    return written


CHROMIUM = Path("/usr/bin/chromium")
HTML_WINDOW = "1280,1500"


def shoot_html(root: Path, out: Path) -> Path | None:
    """The HTML report of the project's default eval, drawn by headless Chromium (the flags
    keep it off the network and out of the user's profile); None without Chromium."""
    if not CHROMIUM.exists():
        return None
    report = root / "report.html"
    subprocess.run([sys.executable, "-m", "labeller.cli", "eval", "--root", str(root), "--no-history", "--html",
                    str(report)], check=True, capture_output=True)
    path = out / "eval-report-html.png"
    subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                    f"--user-data-dir={root / 'chromium-profile'}", f"--window-size={HTML_WINDOW}",
                    f"--screenshot={path}", report.as_uri()], check=True, capture_output=True, timeout=120)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=".", help="project root (default: the current folder)")
    ap.add_argument("--out", default="screenshots", help="output folder (default: screenshots/)")
    args = ap.parse_args()
    src = Path(args.root).resolve()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "example"
        root.mkdir()
        for name in ("corpus", "golden"):
            shutil.copytree(src / name, root / name)
        if (src / "labeller.toml").is_file():
            shutil.copy2(src / "labeller.toml", root / "labeller.toml")
        for path in asyncio.run(shoot(root, out)):
            print(path)
        # review mode on a two-span record (the first multi-hop one), from its own script
        from screenshot_review import screenshot_review

        questions = AuthoringSession.open(root).project.load_questions().questions
        multi = next((q.id for q in questions if q.hop == "multi"), None)
        print(screenshot_review(root, out / "review.svg", multi))
        print(shoot_html(root, out) or f"{CHROMIUM} not found: eval-report-html.png left as it was")


if __name__ == "__main__":
    main()
