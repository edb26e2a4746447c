"""The cost curve of ``benchmarks/run.py --sizes 1MB,10MB,50MB,100MB --curve OUT``.

Issue 19 asks that no step of labeller bends upward with the corpus: a cold build,
``build --check``, a cold and a warm eval, each measured at several sizes of the same
synthetic corpus (same seed, same 1,000 questions). For every figure this writes each
size's median and peak resident memory, the exponent of a least-squares fit of
log(value) against log(size) (1.0 is linear), and the exponent of each step between two
neighbouring sizes; a step above ``BEND`` is flagged as bending upward. The output is
``OUT.json`` (everything), ``OUT.md`` (the exponent table) and ``OUT.svg`` (the curve:
plain SVG written here from the data, so it needs no plotting library and renders on
GitHub and in any browser).

Small sizes carry fixed costs (interpreter start, imports: about half a second), so a
figure's exponent over 1→10 MB is usually well below 1; that is why each step is judged
on its own as well as the whole fit.
"""

from __future__ import annotations

import json
import math
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

BEND = 1.15  # a step whose exponent is above this bends upward

# A wrapper process runs the command and reports its wall time and the peak RSS of it and
# its workers (RUSAGE_CHILDREN of the wrapper: nothing of the benchmark itself counts).
_MEASURE = ("import resource, subprocess, sys, time\n"
            "t = time.perf_counter()\n"
            "r = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
            "elapsed = time.perf_counter() - t\n"
            "ok = {int(c) for c in sys.argv[1].split(',')}\n"
            "sys.stderr.write('' if r.returncode in ok else r.stderr.decode(errors='replace')[-3000:])\n"
            "print(elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
            "sys.exit(0 if r.returncode in ok else 1)\n")


@dataclass
class Series:
    """One figure measured at every size: ``seconds[size]`` and ``peak_mb[size]`` are the runs."""

    key: str
    label: str
    seconds: dict[int, list[float]] = field(default_factory=dict)
    peak_mb: dict[int, list[float]] = field(default_factory=dict)


def measure(cmd: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Wall seconds and peak MB (MiB) of one command run in a fresh process."""
    proc = subprocess.run([sys.executable, "-c", _MEASURE, ",".join(map(str, ok)), *cmd], cwd=cwd,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"curve step failed: {' '.join(cmd)}\n{proc.stderr}")
    elapsed, kb = proc.stdout.split()
    return float(elapsed), int(kb) / 1024 / (1024 if sys.platform == "darwin" else 1)


def clear(root: Path, index_only: bool) -> None:
    """Empty the project's cache, or only its BM25 index (a cold eval over a built golden set)."""
    from labeller.config import load_config

    layout = load_config(root).layout
    shutil.rmtree(layout.bm25_index if index_only else layout.cache_dir, ignore_errors=True)


def fit_exponent(xs: list[float], ys: list[float]) -> float | None:
    """The slope of the least-squares line through (log x, log y): y ∝ x ** slope."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = statistics.fmean(p[0] for p in pts)
    my = statistics.fmean(p[1] for p in pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx else None


def step_exponents(xs: list[float], ys: list[float]) -> list[float]:
    """The exponent of each step between neighbouring sizes."""
    return [math.log(y2 / y1) / math.log(x2 / x1) for (x1, y1), (x2, y2) in zip(zip(xs, ys), zip(xs[1:], ys[1:]))]


def summarize(series: list[Series], sizes: dict[int, str], actual_bytes: dict[int, int]) -> list[dict]:
    """Per figure and quantity (time, memory): medians per size, the fit and the steps, flagged."""
    rows = []
    order = sorted(sizes)
    for s in series:
        for quantity, runs in (("seconds", s.seconds), ("peak_mb", s.peak_mb)):
            have = [n for n in order if runs.get(n)]
            xs = [actual_bytes[n] / 1e6 for n in have]
            ys = [statistics.median(runs[n]) for n in have]
            steps = step_exponents(xs, ys)
            rows.append({"key": s.key, "label": s.label, "quantity": quantity,
                         "sizes": [sizes[n] for n in have], "corpus_mb": [round(x, 3) for x in xs],
                         "median": [round(y, 4) for y in ys], "runs": [[round(r, 4) for r in runs[n]] for n in have],
                         "exponent": None if (e := fit_exponent(xs, ys)) is None else round(e, 3),
                         "steps": [round(e, 3) for e in steps],
                         "bends_upward": [f"{sizes[a]}→{sizes[b]}" for a, b, e in zip(have, have[1:], steps)
                                          if e > BEND]})
    return rows


def markdown(rows: list[dict], note: str) -> str:
    sizes = rows[0]["sizes"] if rows else []
    head = "| figure | " + " | ".join(sizes) + " | exponent (fit) | exponent per step | bends upward |"
    out = [head, "|---|" + "---:|" * len(sizes) + "---:|---|---|"]
    for r in rows:
        unit = "s" if r["quantity"] == "seconds" else "MiB"
        cells = [f"{v:.2f} {unit}" if unit == "s" else f"{v:,.0f} {unit}" for v in r["median"]]
        cells += [""] * (len(sizes) - len(cells))
        what = r["label"] + ("" if unit == "s" else ", peak memory")
        out.append(f"| {what} | " + " | ".join(cells) + f" | {r['exponent'] if r['exponent'] is not None else '—'} | "
                   + " · ".join(f"{e:.2f}" for e in r["steps"]) + " | "
                   + (", ".join(r["bends_upward"]) or "no") + " |")
    return "\n".join(out) + "\n\n" + note + "\n"


# -- the plot -----------------------------------------------------------------------------------

_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def _ticks(lo: float, hi: float) -> list[float]:
    """1-2-5 ticks per decade between lo and hi."""
    ticks = []
    for exp in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = m * 10 ** exp
            if lo <= v <= hi:
                ticks.append(v)
    return ticks


def _panel(rows: list[dict], x0: float, y0: float, w: float, h: float, title: str, unit: str,
           limits: list[tuple[float, str]], slope_guide: bool) -> list[str]:
    """One log-log panel: a line per figure, its exponent in the legend, dashed limits."""
    xs = [x for r in rows for x in r["corpus_mb"]]
    ys = [y for r in rows for y in r["median"]] + [v for v, _ in limits]
    if slope_guide and rows:  # room for the slope-1 guide at the right edge
        ys.append(min(r["median"][0] for r in rows) * max(xs) / rows[0]["corpus_mb"][0])
    if not xs:
        return []
    lx0, lx1 = math.log10(min(xs)) - 0.05, math.log10(max(xs)) + 0.05
    ly0, ly1 = math.log10(min(ys)) - 0.1, math.log10(max(ys)) + 0.1

    def px(x: float) -> float:
        return x0 + (math.log10(x) - lx0) / (lx1 - lx0) * w

    def py(y: float) -> float:
        return y0 + h - (math.log10(y) - ly0) / (ly1 - ly0) * h

    out = [f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#888"/>',
           f'<text x="{x0 + w / 2}" y="{y0 - 10}" text-anchor="middle" font-weight="bold">{title}</text>']
    for t in _ticks(10 ** lx0, 10 ** lx1):
        out.append(f'<line x1="{px(t):.1f}" y1="{y0 + h}" x2="{px(t):.1f}" y2="{y0}" stroke="#eee"/>')
        out.append(f'<text x="{px(t):.1f}" y="{y0 + h + 16}" text-anchor="middle">{t:g}</text>')
    for t in _ticks(10 ** ly0, 10 ** ly1):
        out.append(f'<line x1="{x0}" y1="{py(t):.1f}" x2="{x0 + w}" y2="{py(t):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{x0 - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
    out.append(f'<text x="{x0 + w / 2}" y="{y0 + h + 34}" text-anchor="middle">corpus size (MB, log scale)</text>')
    out.append(f'<text x="{x0 - 48}" y="{y0 + h / 2}" text-anchor="middle" '
               f'transform="rotate(-90 {x0 - 48} {y0 + h / 2})">{unit} (log scale)</text>')
    for value, name in limits:
        out.append(f'<line x1="{x0}" y1="{py(value):.1f}" x2="{x0 + w}" y2="{py(value):.1f}" stroke="#555" '
                   f'stroke-dasharray="6 4"/>')
        out.append(f'<text x="{x0 + w - 4}" y="{py(value) - 4:.1f}" text-anchor="end" fill="#555">{name}</text>')
    for i, r in enumerate(rows):
        colour = _COLOURS[i % len(_COLOURS)]
        pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(r["corpus_mb"], r["median"]))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, y in zip(r["corpus_mb"], r["median"]):
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.5" fill="{colour}"/>')
        exp = "—" if r["exponent"] is None else f"{r['exponent']:.2f}"
        ly = y0 + h + 58 + 16 * i  # the legend goes under the panel, clear of every line
        out.append(f'<rect x="{x0}" y="{ly - 5}" width="14" height="3" fill="{colour}"/>')
        flag = f" (bends upward: {', '.join(r['bends_upward'])})" if r["bends_upward"] else ""
        out.append(f'<text x="{x0 + 20}" y="{ly}">{r["label"]}: exponent {exp}{flag}</text>')
    if rows and slope_guide:  # a grey line of slope 1 through the lowest-left point: what linear looks like
        x, y = rows[0]["corpus_mb"][0], min(r["median"][0] for r in rows)
        x2 = 10 ** lx1
        out.append(f'<line x1="{px(x):.1f}" y1="{py(y):.1f}" x2="{px(x2):.1f}" y2="{py(y * x2 / x):.1f}" '
                   f'stroke="#999" stroke-dasharray="2 3"/>')
        xm = math.sqrt(x * x2)  # halfway along the guide on the log axis, just under it
        out.append(f'<text x="{px(xm) + 6:.1f}" y="{py(y * xm / x) + 14:.1f}" fill="#999">slope 1 (linear)</text>')
    return out


def svg(rows: list[dict], caption: str) -> str:
    times = [r for r in rows if r["quantity"] == "seconds"]
    mems = [r for r in rows if r["quantity"] == "peak_mb"]
    w, h = 430, 330
    height = 40 + h + 58 + 16 * max(len(times), len(mems)) + 24
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="1040" height="{height}" font-family="sans-serif" '
             'font-size="11">', '<rect width="100%" height="100%" fill="white"/>']
    parts += _panel(times, 70, 40, w, h, "wall time", "seconds", [], slope_guide=True)
    parts += _panel(mems, 590, 40, w, h, "peak resident memory", "MiB",
                    [(1024.0, "eval limit 1 GiB"), (500.0, "build limit 500 MiB")], slope_guide=False)
    parts.append(f'<text x="520" y="{height - 8}" text-anchor="middle" fill="#555">{caption}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


# -- the run ----------------------------------------------------------------------------------------

def run_curve(sizes: dict[int, str], out: Path, repeat: int, n_questions: int, seed: int, work: Path, *,
              keep: bool, synthetic_project, cli, machine, load) -> dict:
    """Measure every figure at every size and write ``out``.json/.md/.svg.

    ``sizes``: bytes -> the name given. The helpers are run.py's (one way of making a
    project, a command line, describing the machine and its load). The figures, per size:
    a cold ``labeller build`` (empty cache), ``build --check`` with nothing changed, a cold
    ``labeller eval`` (no index: built and saved; once) and a warm one (index loaded and
    verified), each ``repeat`` times, every run with its peak memory.
    """
    cold = Series("build_cold", "labeller build, cold")
    check = Series("check_unchanged", "build --check, nothing changed")
    eval_cold = Series("eval_cold", "labeller eval, cold index")
    eval_warm = Series("eval_warm", "labeller eval, warm index")
    series = [cold, check, eval_cold, eval_warm]
    results: dict = {"schema": "labeller.benchmarks.curve.v1", "machine": machine(), "repeat": repeat,
                     "questions": n_questions, "seed": seed, "bend_threshold": BEND, "corpora": {}}
    actual: dict[int, int] = {}
    eval_cmd = cli("eval", "--root", ".", "--include-holdout", "--no-history", "--format", "json")
    for size in sorted(sizes):
        name = sizes[size]
        root = work / f"synthetic-{name}"
        shutil.rmtree(root, ignore_errors=True)
        info = synthetic_project(size, root, n_questions, seed)
        results["corpora"][name] = info
        actual[size] = info["bytes"]
        print(f"curve {name}: {info}", flush=True)
        started = time.perf_counter()
        # The cold eval is run once per size, as run.py's eval step does: at 100 MB it is minutes.
        for s, runs in ((cold, repeat), (check, repeat), (eval_cold, 1), (eval_warm, repeat)):
            for _ in range(runs):
                if s is cold:
                    clear(root, index_only=False)
                    cmd = cli("build", "--root", ".")
                elif s is check:
                    cmd = cli("build", "--check", "--root", ".")
                else:
                    if s is eval_cold:
                        clear(root, index_only=True)
                    cmd = eval_cmd
                seconds, peak = measure(cmd, root)
                s.seconds.setdefault(size, []).append(seconds)
                s.peak_mb.setdefault(size, []).append(peak)
                print(f"  {name}: {s.label}: {seconds:.2f} s, peak {peak:,.0f} MiB", flush=True)
        results["corpora"][name]["measured_in_s"] = round(time.perf_counter() - started, 1)
        results["machine"]["load_average_now"] = load()
        write(results, series, sizes, actual, out)  # after each size: a long run that stops keeps its data
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    return results


def write(results: dict, series: list[Series], sizes: dict[int, str], actual: dict[int, int], out: Path) -> None:
    rows = summarize(series, {n: s for n, s in sizes.items() if n in actual}, actual)
    results["curve"] = rows
    m = results["machine"]
    note = (f"Median of {results['repeat']} run(s) per size (the cold eval: one); {results['questions']:,} questions; "
            f"exponent = slope of log(value) on log(corpus MB), least squares; a step above {BEND} bends upward. "
            f"Machine: "
            f"{m['cpus_usable']} usable CPUs, two-process throughput {m['two_process_throughput']}×, load average "
            f"{m['load_average_at_start']} at the start, {m['load_average_now']} at the end.")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(markdown(rows, note), encoding="utf-8")
    caption = (f"labeller cost against corpus size, median of {results['repeat']} run(s) per size (cold eval: one), "
               f"{results['questions']:,} questions")
    out.with_suffix(".svg").write_text(svg(rows, caption), encoding="utf-8")
