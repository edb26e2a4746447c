"""Driving the app headless (tests, the screenshot script, the app benchmark).

Live resolution runs in workers that may start one another (the newest request starts
when the running one ends), so "the screen is up to date" means: a pause found every
message handled and no worker running. Waiting on the workers themselves, never on a
sleep, keeps every caller independent of timing.
"""

from __future__ import annotations


async def settle(pilot, rounds: int = 500) -> None:
    """Wait until every message is handled and every worker (resolution, save, eval) is done."""
    for _ in range(rounds):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if not any(w.is_running for w in pilot.app.workers):
            return
    raise RuntimeError("the app did not settle")
