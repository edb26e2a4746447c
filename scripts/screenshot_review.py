"""Render review mode on a real project to an SVG: ``screenshots/review.svg`` for the README.

    python scripts/screenshot_review.py [--root PROJECT] [--out screenshots/review.svg] [--record ID]

The screen is the one ``labeller review`` runs, driven headless by Textual's test
pilot; nothing is written but the SVG (review mode only reads until a key decides).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from labeller.app.review_app import ScreenApp
from labeller.app.screens.review import ReviewScreen
from labeller.config import load_config
from labeller.core.project import Project

SIZE = (120, 42)


def screenshot_review(root: Path, out: Path, record_id: str | None = None, reviewer: str = "alice",
                      size: tuple[int, int] = SIZE) -> Path:
    """Open review mode on ``record_id`` (default: the first record) and save the screen as SVG."""
    project = Project(load_config(root))
    ids = [q.id for q in project.load_questions().questions]
    screen = ReviewScreen(project, ids, reviewer)
    if record_id is not None:
        screen.session.index = ids.index(record_id)

    async def shoot() -> str:
        app = ScreenApp(lambda: screen, title="labeller review")
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            return app.export_screenshot(title="labeller review")

    svg = asyncio.run(shoot())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(svg, encoding="utf-8")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=".", help="project root (default: current folder)")
    ap.add_argument("--out", default="screenshots/review.svg")
    ap.add_argument("--record", help="record id to show (default: the first)")
    args = ap.parse_args()
    print(screenshot_review(Path(args.root), Path(args.out), args.record))


if __name__ == "__main__":
    main()
