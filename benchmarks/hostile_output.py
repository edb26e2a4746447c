"""Hostile output (issue 23 item 3): what a planted file makes ``build --check`` print, and cost.

* a 1 MiB ``golden/reviews.jsonl`` of ``{}`` lines (349,525 of them, each a review-log
  warning): once 262,144 printed lines and 45 s for 1 MiB, gigabytes at the log's 64 MiB bound;
* 1,000 near-duplicate questions (499,500 pairs): once one warning line per pair;
* 200 near-identical questions of 6,000 characters (a 1.2 MB file, ``max_file_bytes`` raised):
  the near-duplicate check's work bound once counted a score of two such strings as one unit
  where it costs ~10,000 (6.8 s; 2.9 s since each score is weighed by the strings' lengths);
* a questions.jsonl of one record and blank lines up to its line bound at ``max_records =
  100000`` (301,000 lines): once an object a blank line (8 MB of them: 2.5 GB, 46 s).

Each is measured in a small project of its own beside the benchmark's corpus: seconds, the
lines printed (stdout and stderr), and the peak resident memory. Called by ``Bench.hostile``
in ``run.py``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

from labeller.config import Limits

DOC = "# Guide\n\nThe answer is here, in one sentence.\n"
QUOTE = "The answer is here"
REVIEW_LOG_BYTES = 1 << 20
NEAR_DUPLICATES = 1000
LONG_QUESTIONS, LONG_CHARS = 200, 6_000
BLANK_MAX_RECORDS = 100_000


def project(root: Path, queries: list[str]) -> Path:
    shutil.rmtree(root, ignore_errors=True)
    (root / "corpus").mkdir(parents=True)
    (root / "golden").mkdir()
    (root / "corpus" / "guide.md").write_text(DOC, encoding="utf-8")
    (root / "golden" / "questions.jsonl").write_text("".join(
        json.dumps({"id": f"q{i:04d}", "query": query, "expected_answer": "x", "locators": [{"quote": QUOTE}]}) + "\n"
        for i, query in enumerate(queries)), encoding="utf-8")
    return root


def printed_lines(run, cmd: list[str], cwd: Path, fig) -> tuple[int, float]:
    """Lines a command prints (stdout and stderr) and its wall seconds; its CPU seconds go to
    ``fig.cpu`` (which tells a slow run from a busy machine)."""
    before = run._children_cpu()
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    fig.cpu.append(run._children_cpu() - before)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark step failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-3000:]}")
    return len(proc.stdout.splitlines()) + len(proc.stderr.splitlines()), elapsed


def measure(bench, run) -> None:
    """The figures, on ``bench`` (a ``run.Bench``: its ``fig``, ``repeat`` and ``root``), with the
    helpers of ``run`` (the ``run.py`` module: ``cli``, ``peak_mb``, ``_children_cpu``)."""
    cli, peak_mb = run.cli, run.peak_mb
    repeat = bench.repeat
    root = project(bench.root.parent / "hostile-reviews", ["where is the answer?"])
    subprocess.run(cli("build", "--root", "."), cwd=root, check=True, capture_output=True)
    (root / "golden" / "reviews.jsonl").write_text("{}\n" * (REVIEW_LOG_BYTES // 3), encoding="utf-8")
    check = cli("build", "--check", "--root", ".")
    seconds = bench.fig("hostile_reviews_check_s", "hostile: build --check, 1 MiB reviews.jsonl of {} lines", "s",
                        20.0, note="349,525 warnings; once 45 s and 262,144 printed lines")
    lines = bench.fig("hostile_reviews_lines", "hostile: the same, lines printed", "lines", 25.0)
    memory = bench.fig("hostile_reviews_peak_mb", "hostile: the same, peak memory", "MB", 500.0)
    for _ in range(repeat):
        n, elapsed = printed_lines(run, check, root, seconds)
        seconds.runs.append(elapsed)
        lines.runs.append(n)
        memory.runs.append(peak_mb(check, root)[0])
    shutil.rmtree(root, ignore_errors=True)

    root = project(bench.root.parent / "hostile-near-duplicates",
                   [f"what is the answer to question {i:04d} please" for i in range(NEAR_DUPLICATES)])
    build = cli("build", "--root", ".")
    seconds = bench.fig("hostile_neardup_build_s", f"hostile: build, {NEAR_DUPLICATES:,} near-duplicate questions",
                        "s", 20.0, note=f"{NEAR_DUPLICATES * (NEAR_DUPLICATES - 1) // 2:,} pairs; once one "
                        "warning line each")
    lines = bench.fig("hostile_neardup_lines", "hostile: the same, lines printed", "lines", 40.0,
                      note="the build summary's table and the near-duplicate summary (at most 12 lines)")
    for _ in range(repeat):
        n, elapsed = printed_lines(run, build, root, seconds)
        seconds.runs.append(elapsed)
        lines.runs.append(n)
    shutil.rmtree(root, ignore_errors=True)

    root = project(bench.root.parent / "hostile-long-questions",
                   [f"{i} {'x' * LONG_CHARS}" for i in range(LONG_QUESTIONS)])
    (root / "labeller.toml").write_text("[limits]\nmax_file_bytes = 2000000\n", encoding="utf-8")
    seconds = bench.fig("hostile_long_questions_build_s", f"hostile: build, {LONG_QUESTIONS} near-identical questions "
                        f"of {LONG_CHARS:,} characters", "s", 10.0,
                        note="the near-duplicate check stops at its work bound, each score weighed by length; once 6.8 s")
    for _ in range(repeat):
        seconds.runs.append(printed_lines(run, build, root, seconds)[1])
    shutil.rmtree(root, ignore_errors=True)

    root = project(bench.root.parent / "hostile-blank-lines", ["where is the answer?"])
    (root / "labeller.toml").write_text(f"[limits]\nmax_records = {BLANK_MAX_RECORDS}\n", encoding="utf-8")
    questions = root / "golden" / "questions.jsonl"
    blanks = Limits(max_records=BLANK_MAX_RECORDS).max_lines - 1  # the most the line bound lets through
    questions.write_text(questions.read_text(encoding="utf-8") + "\n" * blanks, encoding="utf-8")
    subprocess.run(cli("build", "--root", "."), cwd=root, check=True, capture_output=True)
    seconds = bench.fig("hostile_blank_lines_check_s", f"hostile: build --check, questions.jsonl of {blanks:,} blank "
                        "lines", "s", 10.0, note="the most [limits] max_records = 100000 allows; one more line is "
                        "refused before parsing")
    memory = bench.fig("hostile_blank_lines_peak_mb", "hostile: the same, peak memory", "MB", 200.0,
                       note="a run of blank lines is one entry; once an object each")
    for _ in range(repeat):
        mb, elapsed = peak_mb(check, root)
        memory.runs.append(mb)
        seconds.runs.append(elapsed)
    shutil.rmtree(root, ignore_errors=True)
