"""The traffic queue screen at 80×24 (issue 39.4): the list with statuses, the highlighted
item's provenance, and its retrieved passages placed in the corpus (one not placed).

Regenerate after a deliberate change with ``pytest tests/test_app_traffic_snapshot.py
--snapshot-update`` and look at the picture before committing it."""

from __future__ import annotations

import pytest

from helpers_app import make_app, write_small_project
from labeller.traffic.queue import write_queue
from test_app_snapshots_80 import snap
from test_app_traffic_queue import items


@pytest.fixture
def project(tmp_path):
    root = write_small_project(tmp_path / "proj")
    queue = items()
    queue[2] = queue[2].model_copy(update={"verdict": "unclear"})
    write_queue(root / "golden" / "traffic-queue.jsonl", queue)
    return root


def test_traffic_queue_80(snap_compare, project):
    async def steps(pilot):
        await pilot.press("f10")

    assert snap(snap_compare, make_app(project), steps)
