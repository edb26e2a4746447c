"""Hostile run files: what ``labeller eval --run FILE`` costs on a run at its 256 MiB bound.

Two shapes, each ``eval --run FILE --format json --no-history`` in a small project of its own
(one document, one golden question):

* ``unique``: every line a new query id and a new docid (8,659,208 lines): refused (exit 2),
  the docids are not chunk ids; it once held every id as a Python string, 2.9 GB;
* ``strangers``: every line a new query id, none golden, with the project's one chunk id:
  a valid run that scores the golden question as a miss (exit 0).

Each reports the peak resident memory and wall time. The file is written beside the
benchmark's project, deleted after. Called by ``Bench.hostile`` in ``run.py``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

from hostile_output import project

RUN_BYTES = 256 << 20
SMOKE_RUN_BYTES = 4 << 20
# Runs a command and succeeds only on the exit code expected (argv[1]), for ``peak_mb``.
_EXITS = ("import subprocess, sys\n"
          "r = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
          "sys.exit(0 if r.returncode == int(sys.argv[1]) else r.returncode or 9)\n")


def write_run(path, size: int, docid: str | None) -> int:
    """A run of at most ``size`` bytes, each line a distinct query id (and a distinct docid
    unless ``docid`` is given); returns its line count."""
    line_bytes = len(f"q{0:08d} Q0 {docid or f'd{0:08d}'} 1 1.0 t\n")
    n = size // line_bytes
    with open(path, "w", encoding="ascii") as fh:
        for start in range(0, n, 1 << 20):
            fh.write("".join(f"q{i:08d} Q0 {docid or f'd{i:08d}'} 1 1.0 t\n"
                             for i in range(start, min(n, start + (1 << 20)))))
    return n


def measure(bench, run) -> None:
    """The figures, on ``bench`` (a ``run.Bench``), with ``run.cli`` and ``run.peak_mb``."""
    size = SMOKE_RUN_BYTES if bench.smoke else RUN_BYTES
    root = project(bench.root.parent / "hostile-run", ["where is the answer?"])
    subprocess.run(run.cli("build", "--root", "."), cwd=root, check=True, capture_output=True)
    from labeller.config import load_config
    from labeller.core.project import Project

    chunk_id = Project(load_config(root)).all_chunks[0].chunk_id
    path = root / "hostile.run"
    for shape, docid, exit_code, what in (("unique", None, 2, "distinct query ids and docids, refused"),
                                          ("strangers", chunk_id, 0, "distinct query ids none golden, scored")):
        lines = write_run(path, size, docid)
        label = f"hostile run: {size >> 20} MiB, {lines:,} lines of {what}, eval --run"
        seconds = bench.fig(f"hostile_run_{shape}_s", label, "s", 60.0 if size == RUN_BYTES else None)
        memory = bench.fig(f"hostile_run_{shape}_peak_mb", f"{label}, peak memory", "MB",
                           500.0 if size == RUN_BYTES else None)
        cmd = [sys.executable, "-c", _EXITS, str(exit_code),
               *run.cli("eval", "--run", str(path), "--format", "json", "--no-history", "--root", ".")]
        for _ in range(bench.repeat):
            peak, elapsed = run.peak_mb(cmd, root)
            seconds.runs.append(elapsed)
            memory.runs.append(peak)
    shutil.rmtree(root, ignore_errors=True)
