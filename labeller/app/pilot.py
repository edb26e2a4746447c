"""Driving the app headless (tests, the screenshot script, the app benchmark).

Live resolution runs in workers that may start one another (the newest request starts
when the running one ends), so "the screen is up to date" means: a pause found every
message handled and no worker running. Waiting on the workers themselves, never on a
sleep, keeps every caller independent of timing.
"""

from __future__ import annotations

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
            return
    raise RuntimeError("the app did not settle")


def _closing(app) -> bool:
    """``App.exit`` was called: its return code is set before the shutdown cancels workers."""
    return app.return_code is not None
