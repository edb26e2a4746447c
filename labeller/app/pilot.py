"""Driving the app headless (tests, the screenshot script, the app benchmark).

Live resolution runs in workers that may start one another (the newest request starts
when the running one ends), so "the screen is up to date" means: a pause found every
message handled, no worker running and no animation under way. Waiting on the workers and
the animator themselves, never on a sleep, keeps every caller independent of timing.
"""

from __future__ import annotations

import asyncio

from textual.worker import WorkerCancelled


async def settle(pilot, rounds: int = 500) -> None:
    """Wait until every message is handled, the start's loading has begun (an app without a
    ``start_pending`` flag has none), and every worker (loading, resolution, save, eval) is
    done; or until the app is closing (a refused corpus ends it from the loading worker, whose
    siblings its shutdown cancels: nothing is left to settle then)."""
    for _ in range(rounds):
        if _closing(pilot.app):
            return
        # the start's Ready may still be queued behind the first frame: poll for it, briefly
        await pilot.pause(0.01 if getattr(pilot.app, "start_pending", False) else None)
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            if _closing(pilot.app):
                return
            raise
        await pilot.pause()
        if not getattr(pilot.app, "start_pending", False) and not any(w.is_running for w in pilot.app.workers):
            if not await _waited_for_animations(pilot.app):
                return
            await pilot.pause()  # what the animation's last frame set, handled before looking again
    raise RuntimeError("the app did not settle")


async def _waited_for_animations(app) -> bool:
    """Wait for the animations under way to end; whether there were any. Textual scrolls a
    newly focused widget into view over several frames of the clock, so a screen read (or a
    click aimed) before the scroll ends finds the widget where it was: on a loaded machine the
    eval tab's header click once landed on a row (the queries then not sorted by id)."""
    waiting = asyncio.ensure_future(app.animator.wait_until_complete())
    await asyncio.sleep(0)  # the wait's first step: done at once unless an animation is running
    if waiting.done():
        return False
    await waiting
    return True


def _closing(app) -> bool:
    """``App.exit`` was called: its return code is set before the shutdown cancels workers."""
    return app.return_code is not None
