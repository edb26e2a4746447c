"""Hostile questions files of issue 23 (item 4): resolution stays linear, whatever the file holds.

Three shapes, each a cold ``labeller build --check --format json`` on a repetitive 1 MB
document, the questions file at two or three sizes up to the default 1 MiB bound:

- ``prefix``: records of a 3-word quote with a 4,000-word prefix (once 95 s for one record:
  the context was compared character by character at every occurrence);
- ``short``: records of 64 ambiguous two-letter quotes (1 MiB once took 1,313 s and 1.3 GB);
- ``long``: one ambiguous quote of 60 % of the file, 600 KB at 1 MiB (once over 120 s and 19 MB printed);
- ``notfound``: records of 64 quotes not found (``alpha gamma`` and a random word), each once
  given nearest passages from a scan of every chunk, with no bound per build;
- ``heading``: records of 64 section locators whose heading is not found, on a document of
  headings only (52,000 ``## alpha beta gamma``): each is given the nearest headings, scored
  against every title, within the build's bound for nearest passages;
- ``help``: ``short``'s records on a page of 1,900 units, so that each two-letter quote occurs
  just under the 2,000 times past which no context is offered: each occurrence is helped (the
  shortest context and extension against every other), until the build's budget for that
  help is spent (once 64 s for 600 quotes: two text comparisons a pair of occurrences).

Each size reports wall time and peak memory; the exponent between the smallest and the
largest size (``log(t2 / t1) / log(s2 / s1)``) is about 1 when the growth is linear, 2 when
quadratic. Run from ``run.py --only hostile`` (the target for 1 MiB: 20 s and 500 MB).
"""

from __future__ import annotations

import json
import math
import random
import shutil
import sys
from pathlib import Path

from run import cli, clear_cache, peak_mb

UNIT = "alpha beta gamma "
DOC_CHARS = 1 << 20
HELP_UNITS = 1900  # ``help``'s page: each two-letter quote just under MAX_CONTEXT_OCCURRENCES (2,000) times
SIZES = (256 << 10, 512 << 10, 1 << 20)
SMOKE_SIZES = (32 << 10, 64 << 10)
# Runs the build and succeeds only when it refuses (exit 1), as these files must be refused.
_REFUSED = ("import subprocess, sys\n"
            "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
            "sys.exit(0 if r.returncode == 1 else r.returncode or 9)\n")
PAIRS = sorted({w[i:i + 2] for w in ("alpha", "beta", "gamma") for i in range(len(w) - 1)})


def locators(shape: str, rng: random.Random, size: int) -> list[dict]:
    if shape == "prefix":
        return [{"quote": "alpha beta gamma", "prefix": UNIT * 1333}]
    if shape in ("short", "help"):
        return [{"quote": rng.choice(PAIRS)} for _ in range(64)]
    if shape == "notfound":
        return [{"quote": f"alpha gamma {rng.getrandbits(32):x}"} for _ in range(64)]
    if shape == "heading":
        return [{"doc": "a.md", "heading": f"alpha gamma {rng.getrandbits(32):x}"} for _ in range(64)]
    return [{"quote": (UNIT * (size * 6 // 10 // len(UNIT))).strip()}]  # 600 KB in a 1 MiB file


def write_project(root: Path, shape: str, size: int) -> int:
    """A project of one repetitive document and a questions file of at most ``size`` bytes
    (at least one record); returns the number of records."""
    shutil.rmtree(root, ignore_errors=True)
    (root / "corpus").mkdir(parents=True)
    (root / "golden").mkdir()
    heading = f"## {UNIT.strip()}\n"
    units = HELP_UNITS if shape == "help" else DOC_CHARS // len(UNIT)
    (root / "corpus" / "a.md").write_text(heading * (DOC_CHARS // len(heading)) if shape == "heading"
                                          else "# Doc\n\n" + UNIT * units + "\n")
    rng = random.Random(size)
    lines, total = [], 0
    while True:
        # distinct queries: the near-duplicate check is not what is measured here
        rec = json.dumps({"id": f"r{len(lines)}", "query": f"{rng.getrandbits(64):x} {rng.getrandbits(64):x}?",
                          "expected_answer": "x", "locators": locators(shape, rng, size)}) + "\n"
        if lines and total + len(rec) > size:
            break
        lines.append(rec)
        total += len(rec)
    (root / "golden" / "questions.jsonl").write_text("".join(lines))
    return len(lines)


def measure(bench) -> None:
    """Add the figures to a ``run.Bench``: per shape and size, time and peak memory, then
    the exponents of both across the sizes."""
    sizes = SMOKE_SIZES if bench.smoke else SIZES
    for shape in ("prefix", "short", "long", "notfound", "heading", "help"):
        times, peaks = {}, {}
        for size in sizes:
            root = bench.root.parent / f"hostile-resolution-{shape}-{size}"
            n = write_project(root, shape, size)
            label = f"hostile questions: {shape}, {size >> 10} KiB ({n} records), build --check"
            t = bench.fig(f"hostile_resolution_{shape}_{size >> 10}k_s", label, "s", 20.0 if size == 1 << 20 else None)
            m = bench.fig(f"hostile_resolution_{shape}_{size >> 10}k_peak_mb", f"{label}, peak memory", "MB",
                          500.0 if size == 1 << 20 else None)
            for _ in range(bench.repeat):
                clear_cache(root)
                peak, elapsed = peak_mb([sys.executable, "-c", _REFUSED, *cli("build", "--check", "--format", "json",
                                                                                 "--root", ".")], root)
                t.runs.append(elapsed)
                m.runs.append(peak)
            times[size], peaks[size] = t.value, m.value
            shutil.rmtree(root, ignore_errors=True)
        lo, hi = sizes[0], sizes[-1]
        for what, values, unit in (("time", times, "s"), ("peak memory", peaks, "MB")):
            f = bench.fig(f"hostile_resolution_{shape}_{unit.lower()}_exponent",
                          f"hostile questions: {shape}, growth exponent of {what} ({lo >> 10} → {hi >> 10} KiB)", "x",
                          1.5, note="about 1 when linear, 2 when quadratic (start-up included)")
            f.runs.append(math.log(values[hi] / values[lo]) / math.log(hi / lo))
