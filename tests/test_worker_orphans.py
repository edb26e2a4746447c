"""A build killed with SIGKILL leaves no worker process behind (issue 23).

A CI job cancelled mid-build kills ``labeller build`` without a chance to shut its
process pool down; the workers must end with it instead of waiting forever on the pool's
task pipe. Each test runs a real build in its own session (so every process it starts,
however re-parented, keeps the session id), kills the parent at one moment of the build
and then polls, with a generous bound, until no live process of that session remains.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from labeller.core.parallel import MIN_PARALLEL_CHARS

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import synth  # noqa: E402

GONE_WITHIN_SECONDS = 30.0  # a bound for a loaded machine, not a measurement


@pytest.fixture(scope="module")
def big_project(tmp_path_factory) -> Path:
    """A corpus eight times the size at which the build starts workers: enough work that both
    workers are still computing when the test, itself sharing a loaded CI machine, looks (at three
    times the size, a CI run once saw the build end before both had 50 ms of CPU)."""
    root = tmp_path_factory.mktemp("orphans") / "proj"
    synth.write_project(synth.generate(8 * MIN_PARALLEL_CHARS, 5, seed=5), root)
    return root


def _stat(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name (state first), None once gone."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def session_processes(sid: int) -> dict[int, list[str]]:
    """Live (not zombie) processes of session ``sid``, except its leader."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != sid:
            fields = _stat(int(entry.name))
            if fields and int(fields[3]) == sid and fields[0] != "Z":
                found[int(entry.name)] = fields
    return found


def _cpu_ticks(fields: list[str]) -> int:
    return int(fields[11]) + int(fields[12])  # utime + stime


def first_worker_started(workers: dict[int, list[str]]) -> bool:
    return len(workers) >= 1


def all_workers_started(workers: dict[int, list[str]]) -> bool:
    return len(workers) >= 2


def workers_busy(workers: dict[int, list[str]]) -> bool:
    """Mid-build: both workers exist and have computed for a while."""
    return len(workers) >= 2 and all(_cpu_ticks(f) >= 5 for f in workers.values())


@pytest.mark.parametrize("moment", [first_worker_started, all_workers_started, workers_busy],
                         ids=lambda m: m.__name__)
def test_killing_the_build_ends_its_workers(big_project, tmp_path, moment: Callable[[dict], bool]):
    root = tmp_path / "proj"
    shutil.copytree(big_project, root)
    env = {**os.environ, "LABELLER_WORKERS": "2", "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "labeller.cli", "build", "--root", str(root)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    sid = proc.pid
    try:
        while not moment(session_processes(sid)):
            assert proc.poll() is None, "the build ended before the moment to kill it came (no workers started?)"
            time.sleep(0.002)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + GONE_WITHIN_SECONDS
        while session_processes(sid) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = session_processes(sid)
        assert not left, f"worker processes outlived the killed build: {sorted(left)}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in session_processes(sid):  # only processes of the session this test started
            os.kill(pid, signal.SIGKILL)
