"""labeller benchmarks: one entry point for every figure of docs/performance.md.

    python benchmarks/run.py [--size 10MB] [--repeat 3] [--json OUT] [--corpora ../shared/corpora/textual-docs]
    python benchmarks/run.py --size 1MB --repeat 1 --smoke      # CI: every step runs, no time is asserted
    python benchmarks/run.py --only builds --profile prof/       # + where a cold build's time goes (cProfile)
    python benchmarks/run.py --only hostile                      # stall cases of issue 18: linear, bounded
    python benchmarks/run.py --only repair --size 1.2MB          # repair --moves after a reorganisation (issue 35)
    python benchmarks/run.py --sizes 1MB,10MB,50MB,100MB --curve docs/perf/curve   # cost against size (curve.py)
    python benchmarks/run.py --size 1MB --repeat 1 --only traffic --traffic-lines 1000000  # sampling a query log

It writes a synthetic project (benchmarks/synth.py) into a temporary folder, and a copy of
each real corpus given with ``--corpora`` with a generated question set, then measures
each figure several times and reports the median against its target. End-to-end figures
run the real command line in a subprocess (``python -m labeller.cli``); micro figures
(one resolve, one keystroke, the leak scan) run in this process. Nothing here is imported
by the labeller package, and no time is ever asserted: a missed target is reported.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import synth  # noqa: E402
import traffic_log  # noqa: E402

PACKAGES = ("labeller", "textual", "rich", "markdown-it-py", "mdit-py-plugins", "pyahocorasick", "rapidfuzz",
            "pydantic", "whoosh-reloaded", "PyStemmer", "PyYAML", "duckdb")
STEPS = ("builds", "resolve", "leaks", "eval", "foreign", "compare", "app", "hostile", "repair", "traffic")
# The chunkings `chunkers compare` is benchmarked on: the project's own and three of the family.
COMPARE_SPECS = ("md-struct-v1", "recursive-v1:size=800,overlap=200", "fixed-chars-v1:size=1000,overlap=200",
                 "words-v1:size=200,overlap=40")
EDIT_LINE = "\nA benchmark edit, number {n}, appended to the last paragraph.\n"


@dataclass
class Figure:
    """One measured quantity: every run, its median, and the target it is judged by."""

    key: str
    corpus: str
    label: str
    unit: str
    runs: list[float] = field(default_factory=list)
    target: float | None = None
    higher_is_better: bool = False
    note: str = ""
    skipped: str = ""
    cpu: list[float] = field(default_factory=list)  # CPU seconds of subprocess runs (user + sys, workers included)

    @property
    def value(self) -> float | None:
        return statistics.median(self.runs) if self.runs else None

    @property
    def passed(self) -> bool | None:
        if self.value is None or self.target is None:
            return None
        return self.value >= self.target if self.higher_is_better else self.value <= self.target

    def as_json(self) -> dict:
        return {"key": self.key, "corpus": self.corpus, "label": self.label, "unit": self.unit,
                "median": None if self.value is None else round(self.value, 4),
                "runs": [round(r, 4) for r in self.runs], "target": self.target,
                "target_op": ">=" if self.higher_is_better else "<=", "pass": self.passed,
                "cpu_s_median": round(statistics.median(self.cpu), 4) if self.cpu else None,
                "note": self.note, "skipped": self.skipped or None}


def _slug(engine: str) -> str:
    """A figure key's part for an engine: ``tantivy``, ``tantivy_own``, ``bm25s``, ``labeller``,
    and for a peer out of the box ``tantivy_body``, ``bm25s_heading_breadcrumb_body``, ..."""
    if "own tokenizer" in engine:
        return engine.split()[0] + "_own"
    return "_".join("".join(ch if ch.isalnum() else " " for ch in engine).split())


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18] if len(values) > 1 else values[0]


# -- subprocess helpers ---------------------------------------------------------------

def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "labeller.cli", *args]


def timed(cmd: list[str], cwd: Path, ok: tuple[int, ...] = (0,), fig: Figure | None = None) -> float:
    """Wall seconds of one command (its CPU seconds go to ``fig.cpu``, which tells a slow
    run from a busy machine); an unexpected exit code stops the benchmark loudly."""
    before = _children_cpu()
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if fig is not None:
        fig.cpu.append(_children_cpu() - before)
    if proc.returncode not in ok:
        raise SystemExit(f"benchmark step failed (exit {proc.returncode}): {' '.join(cmd)}\n"
                         f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return elapsed


def _children_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


_PEAK = ("import resource, subprocess, sys\n"
         "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
         "sys.stderr.write(r.stderr.decode(errors='replace')[-2000:] if r.returncode else '')\n"
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
         "sys.exit(r.returncode)\n")


def peak_mb(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Peak resident memory (MB) of a command and its workers, from a wrapper process's
    ``RUSAGE_CHILDREN`` (so nothing this process allocated is counted), and its wall time."""
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _PEAK, *cmd], cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"benchmark step failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    kb = int(proc.stdout.strip().splitlines()[-1])
    return kb / 1024 / (1024 if sys.platform == "darwin" else 1), elapsed  # ru_maxrss: KiB (Linux), bytes (macOS)


def clear_cache(root: Path) -> None:
    from labeller.config import load_config

    shutil.rmtree(load_config(root).layout.cache_dir, ignore_errors=True)


# -- figures ------------------------------------------------------------------------------

class Bench:
    def __init__(self, name: str, root: Path, repeat: int, smoke: bool,
                 traffic_lines: int = traffic_log.LINES) -> None:
        self.name = name
        self.root = root
        self.repeat = repeat
        self.smoke = smoke
        self.traffic_lines = traffic_lines
        self.figures: list[Figure] = []

    def fig(self, key: str, label: str, unit: str, target: float | None = None, higher: bool = False,
            note: str = "") -> Figure:
        f = Figure(key, self.name, label, unit, target=target, higher_is_better=higher, note=note)
        self.figures.append(f)
        return f

    def project(self):
        from labeller.config import load_config
        from labeller.core.cache import DigestCache
        from labeller.core.project import Project

        cfg = load_config(self.root)
        return Project(cfg, DigestCache(cfg.layout.cache_dir))

    # builds --------------------------------------------------------------------------
    def builds(self) -> None:
        floor = self.fig("floor_s", "floor: read + canonicalise + hash the corpus (subprocess)", "s",
                         note="python -c load_corpus(...): what any tool must do to know the corpus")
        cold = self.fig("build_cold_s", "labeller build, cold (fresh cache)", "s", 5.0)
        ratio = self.fig("build_cold_ratio", "cold build / floor", "x", 10.0)
        unchanged = self.fig("check_unchanged_s", "labeller build --check, nothing changed", "s", 1.0)
        edited = self.fig("check_edit_s", "labeller build --check, one document edited", "s", 2.0)
        floor_code = ("import sys; from pathlib import Path; from labeller.core.corpus import load_corpus; "
                      "c = load_corpus(Path(sys.argv[1])); c.digest")
        for _ in range(self.repeat):
            floor.runs.append(timed([sys.executable, "-c", floor_code, "corpus"], self.root, fig=floor))
            clear_cache(self.root)
            cold.runs.append(timed(cli("build", "--root", "."), self.root, fig=cold))
        ratio.runs = [c / f for c, f in zip(cold.runs, floor.runs)]
        for _ in range(self.repeat):
            unchanged.runs.append(timed(cli("build", "--check", "--root", "."), self.root, fig=unchanged))
        victim = self.edit_target()
        original = victim.read_bytes()
        try:
            for n in range(self.repeat):
                victim.write_bytes(original + EDIT_LINE.format(n=f"{n}-{time.time_ns()}").encode())
                edited.runs.append(timed(cli("build", "--check", "--root", "."), self.root, ok=(0, 1), fig=edited))
        finally:
            victim.write_bytes(original)
        mem = self.fig("peak_build_mb", "peak memory, cold build", "MB", 1024.0)
        clear_cache(self.root)
        mem.runs.append(peak_mb(cli("build", "--root", "."), self.root)[0])

    def profile_cold_build(self, out_dir: Path, top: int = 25) -> Path:
        """One cold build under cProfile, on one core so that every call is in the profile:
        where the time of the figure furthest from its target goes. Writes the ``.prof``
        (open it with ``python -m pstats`` or snakeviz) and the top functions as text."""
        import pstats

        out_dir.mkdir(parents=True, exist_ok=True)
        stem = out_dir / f"{self.name.replace(' ', '-')}-cold-build"
        clear_cache(self.root)
        cmd = [sys.executable, "-m", "cProfile", "-o", f"{stem}.prof", "-m", "labeller.cli", "build", "--root", "."]
        proc = subprocess.run(cmd, cwd=self.root, env={**os.environ, "LABELLER_WORKERS": "1"},
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"profiled build failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        with open(f"{stem}.txt", "w", encoding="utf-8") as fh:
            stats = pstats.Stats(f"{stem}.prof", stream=fh)
            stats.strip_dirs().sort_stats("cumulative").print_stats(top)
            stats.sort_stats("tottime").print_stats(top)
        print(f"  {self.name}: profile of one cold build on one core: {stem}.prof, top functions in {stem}.txt")
        return stem

    def edit_target(self) -> Path:
        """The largest labelled document: the worst case for re-chunking and re-parsing one file."""
        docs = sorted((p.stat().st_size, p) for p in (self.root / "corpus").rglob("*.md"))
        return docs[-1][1]

    # repair ---------------------------------------------------------------------------
    def repair(self, n_labels: int = 300) -> None:
        """``labeller repair --moves`` after a reorganisation: on a copy, built, then the most
        labelled documents renamed (``moved/<name>``) until ``n_labels`` quote labels name a gone
        document; the figure is the repair's wall time (no git here: the content pairs them)."""
        f = self.fig("repair_moves_s", f"labeller repair --moves, {n_labels} labels of renamed documents", "s", 10.0,
                     note="issue 35's bound is for a 1.2 MB corpus (--size 1.2MB)")
        copy = self.root.parent / f"{self.root.name}-repair"
        for _ in range(self.repeat):
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(self.root, copy, ignore=shutil.ignore_patterns(".labeller"))
            timed(cli("build", "--root", "."), copy)
            per_doc: dict[str, int] = {}
            for line in (copy / "golden" / "questions.jsonl").read_text(encoding="utf-8").splitlines():
                rec = json.loads(line) if line.strip() and not line.lstrip().startswith("//") else {}
                for loc in rec.get("locators", ()):
                    if loc.get("doc") and loc.get("quote"):
                        per_doc[loc["doc"]] = per_doc.get(loc["doc"], 0) + 1
            moved = 0
            for doc, n in sorted(per_doc.items(), key=lambda kv: (-kv[1], kv[0])):
                if moved >= n_labels:
                    break
                target = copy / "corpus" / "moved" / doc
                target.parent.mkdir(parents=True, exist_ok=True)
                (copy / "corpus" / doc).rename(target)
                moved += n
            cpu, proc_t = _children_cpu(), time.perf_counter()
            done = subprocess.run(cli("repair", "--moves", "--root", ".", "--format", "json", "--as", "bench"),
                                  cwd=copy, capture_output=True, text=True)
            f.runs.append(time.perf_counter() - proc_t)
            f.cpu.append(_children_cpu() - cpu)
            if done.returncode not in (0, 1):
                raise SystemExit(f"repair failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
            summary = json.loads(done.stdout)["summary"]
            f.note = (f"{summary['moved']} locators re-pointed ({moved} quote labels in the renamed documents), "
                      f"{summary['left']} left; issue 35's bound is for a 1.2 MB corpus")
        shutil.rmtree(copy, ignore_errors=True)

    # traffic --------------------------------------------------------------------------
    def traffic(self) -> None:
        """Issue 39: ``labeller traffic sample`` on a generated Parquet log of ``traffic_lines``
        requests (traffic_log.py), timed with its peak memory in a subprocess, as a user runs it.
        Run on the synthetic project only (``main``): the figure is about the log, not the corpus."""
        lines = traffic_log.SMOKE_LINES if self.smoke else self.traffic_lines
        log = self.root / "traffic.parquet"
        traffic_log.write_log(log, lines)
        label = (f"traffic sample --n {traffic_log.SAMPLE:,}, a {lines:,}-line Parquet log "
                 f"({log.stat().st_size / 2**20:,.0f} MiB)")
        secs = self.fig("traffic_sample_s", label, "s")
        mem = self.fig("traffic_sample_peak_mb", f"peak memory, {label}", "MB", traffic_log.TARGET_MB)
        cmd = cli("traffic", "sample", str(log), "--root", ".", "--n", str(traffic_log.SAMPLE), "--out",
                  "traffic-queue.jsonl", "--tenant", "tenant", "--feedback", "feedback", "--stratify-by", "tenant",
                  "--format", "json")
        try:
            for _ in range(self.repeat):
                cpu = _children_cpu()
                peak, elapsed = peak_mb(cmd, self.root)
                secs.cpu.append(_children_cpu() - cpu)
                secs.runs.append(elapsed)
                mem.runs.append(peak)
        finally:
            log.unlink()

    # resolve ------------------------------------------------------------------------
    def resolve(self, n: int = 500) -> None:
        f = self.fig("resolve_p95_ms", "resolve one quote in-process, p95", "ms", 10.0,
                     note=f"Resolver.resolve on {n} random quote locators, warm disk cache")
        from labeller.core.resolve import Span

        project = self.project()
        locs = [(q.id, loc) for q in project.load_questions().questions for loc in q.locators if loc.quote]
        rng = random.Random(7)
        sample = [rng.choice(locs) for _ in range(n)]
        resolver = project.resolver
        for _ in range(self.repeat):
            times = []
            for qid, loc in sample:
                t = time.perf_counter()
                res = resolver.resolve(loc, qid)
                times.append((time.perf_counter() - t) * 1000)
                if not isinstance(res, Span):
                    raise SystemExit(f"{qid}: {loc} did not resolve: {res.message}")
            f.runs.append(p95(times))
            resolver = self.project().resolver  # next repeat: a fresh session on the same disk cache

    # leaks ----------------------------------------------------------------------------
    def leaks(self) -> None:
        try:
            from labeller.eval.leaks import found_per_document, needles
        except ImportError:
            self.fig("leak_scan_s", "leak scan, 1,000 queries", "s", 0.5).skipped = "labeller.eval.leaks not present"
            return
        from labeller.core.build import build

        project = self.project()
        records = build(project, project.load_questions().questions).records
        chunks = project.all_chunks
        ndl = needles(records)
        scan = self.fig("leak_scan_s", f"leak scan, {len(records):,} queries ({len(ndl):,} needles)", "s", 0.5)
        naive = self.fig("leak_naive_s", "same scan as a per-query str.find loop", "s")
        speedup = self.fig("leak_speedup", "leak scan speed-up over the loop", "x", 5.0, higher=True)
        from labeller.eval.leaks import find_leaks

        for _ in range(self.repeat):
            t = time.perf_counter()
            find_leaks(chunks, records)
            scan.runs.append(time.perf_counter() - t)
        expected = found_per_document(chunks, ndl)
        for _ in range(1 if self.smoke else min(self.repeat, 2)):
            t = time.perf_counter()
            got = naive_found_per_document(chunks, ndl)
            naive.runs.append(time.perf_counter() - t)
            if got != expected:
                raise SystemExit("the per-query loop and the leak scan disagree: the comparison is void")
        speedup.runs = [naive.value / s for s in scan.runs]

    # eval ---------------------------------------------------------------------------
    def eval(self) -> None:
        if not (REPO / "labeller" / "commands" / "eval.py").exists():
            self.fig("eval_warm_s", "labeller eval, warm index", "s", 60.0).skipped = "labeller eval not present"
            return
        project = self.project()
        if self.smoke:
            self.fig("bm25_index_s", "BM25 index build, in-process", "s").skipped = \
                "smoke run: the cold eval below builds the index"
        else:
            self.bm25_peers(project)
        n = len(project.load_questions().questions)
        cmd = cli("eval", "--root", ".", "--include-holdout", "--no-history", "--format", "json")
        # One cold run (reported, no target), measured with its peak memory; the warm
        # eval, which has the target, gets every repeat.
        cold = self.fig("eval_cold_s", f"labeller eval, {n:,} queries, cold index", "s",
                        note="golden set cached; BM25 index built and saved; one run")
        warm = self.fig("eval_warm_s", f"labeller eval, {n:,} queries, warm index", "s", 60.0)
        mem = self.fig("peak_eval_mb", "peak memory, eval (cold index)", "MB", 1024.0)
        shutil.rmtree(self.project().layout.bm25_index, ignore_errors=True)
        peak, elapsed = peak_mb(cmd, self.root)
        mem.runs.append(peak)
        cold.runs.append(elapsed)
        for _ in range(self.repeat):
            warm.runs.append(timed(cmd, self.root, fig=warm))

    def bm25_peers(self, project) -> None:
        """labeller's BM25 index build and query beside tantivy's and bm25s's, in this process
        (``peers.py``), each labeller figure also as a ratio, per run, to tantivy with its own
        tokenizer and to the fastest peer on labeller's tokens, and every engine's recall@10."""
        import peers
        from labeller.core.build import build
        from labeller.eval.analysis import get_analyzer
        from labeller.eval.retrievers.bm25 import B, K1, distinct_chunks, field_weights

        chunks = distinct_chunks(project.all_chunks)
        analyzer = get_analyzer(project.config.eval.analyzer)
        weights = field_weights(project.config.eval.field_weights)
        records = build(project, project.load_questions().questions).records
        queries = [(r.question.id, r.question.query) for r in records]
        golden = {r.question.id: r.chunk_ids for r in records if not r.question.unanswerable}
        by_engine: dict[str, list] = {}
        for _ in range(self.repeat):
            for run in peers.compare(chunks, analyzer, weights, queries, golden, K1, B):
                by_engine.setdefault(run.name, []).append(run)
        ours, *rest = by_engine.values()
        own = [p for p in rest if p[0].name == peers.TANTIVY_OWN]
        others = [p for p in rest if p[0].name in ("tantivy", "bm25s")]  # on labeller's tokens
        note = "analysis included on every side; same chunks, fields, weights, k1, b"
        for key, attr, unit, label, target in (
                ("bm25_index", "build_s", "s", f"BM25 index build ({len(chunks):,} chunks)", 3.0),
                ("bm25_query", "query_ms", "ms", f"BM25 query, mean of {len(queries):,}", 1.5)):
            self.fig(f"{key}_{unit}", f"{label}: labeller", unit, note=note).runs = [getattr(r, attr) for r in ours]
            for peer in [*own, *others]:
                slug = _slug(peer[0].name)
                self.fig(f"{key}_{slug}_{unit}", f"{label}: {peer[0].name}", unit, note=note).runs = \
                    [getattr(r, attr) for r in peer]
            # per run: labeller over the peer of that same run (same machine load)
            for p in own:
                self.fig(f"{key}_ratio_own", f"{label}: labeller / tantivy, each its own tokenizer", "x", target,
                         note="issue 26.8").runs = [getattr(o, attr) / getattr(p[i], attr) for i, o in enumerate(ours)]
            if others:
                ratios = [getattr(o, attr) / min(getattr(p[i], attr) for p in others) for i, o in enumerate(ours)]
                fastest = min(others, key=lambda p: statistics.median(getattr(r, attr) for r in p))[0].name
                self.fig(f"{key}_ratio", f"{label}: labeller / fastest peer ({fastest}), shared tokens", "x",
                         2.0).runs = ratios
        for runs in by_engine.values():
            for k in (5, 10):
                self.fig(f"recall{k}_{_slug(runs[0].name)}", f"BM25 recall@{k} vs golden set: {runs[0].name}", "r",
                         note=f"share of answer-bearing chunks in the top {k}, mean over answerable records").runs = \
                    [getattr(r, f"recall{k}") for r in runs]
        if not rest:
            return
        best = max(rest, key=lambda p: statistics.median(r.recall5 for r in p))
        synthetic = self.name.startswith("synthetic")  # random words, not an outside set: reported only
        self.fig("recall5_gap", f"BM25 recall@5: best peer ({best[0].name}) - labeller", "r",
                 None if synthetic else 0.01, note="issue 29.4: on real corpora the default within 0.01 of the "
                 "best peer, or better (docs/performance.md)").runs = [b.recall5 - o.recall5 for b, o in zip(best, ours)]

    def foreign(self, n_chunks: int = 20_000, depth: int = 10) -> None:
        """``labeller eval --chunks --run``: a foreign chunking (sliding windows with 50% overlap,
        ``n_chunks`` of them, as offsets) and a run of ``depth`` results per golden query."""
        if not (REPO / "labeller" / "core" / "chunkfile.py").exists():
            self.fig("foreign_eval_warm_s", "eval --chunks --run, warm", "s", 10.0).skipped = "chunk files not present"
            return
        project = self.project()
        docs = list(project.corpus)
        window = max(2, 2 * project.corpus.chars // n_chunks)
        rows = []
        for doc in docs:
            n = len(doc.text)
            for i, start in enumerate(range(0, max(1, n - window // 2), window // 2)):
                rows.append({"id": f"{doc.doc_id}#{i}", "doc": doc.doc_id, "start": start, "end": min(n, start + window)})
        chunk_file = self.root / "foreign-chunks.jsonl"
        chunk_file.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        rng = random.Random(7)
        ids = [r["id"] for r in rows]
        qids = [q.id for q in project.load_questions().questions]
        run = self.root / "foreign.run"
        run.write_text("".join(f"{q} Q0 {cid} {r} {depth - r}.0 bench\n" for q in qids
                               for r, cid in enumerate(rng.sample(ids, depth), 1)), encoding="utf-8")
        cmd = cli("eval", "--root", ".", "--include-holdout", "--no-history", "--format", "json",
                  "--chunks", chunk_file.name, "--run", run.name)
        cold = self.fig("foreign_eval_cold_s", f"eval --chunks ({len(rows):,} chunks) --run ({len(qids):,} queries), "
                        "first run", "s", note="golden set cached by the eval step or this run; one run")
        warm = self.fig("foreign_eval_warm_s", f"eval --chunks ({len(rows):,} chunks) --run ({len(qids):,} queries), "
                        "warm", "s", 10.0)
        cold.runs.append(timed(cmd, self.root, fig=cold))
        for _ in range(self.repeat):
            warm.runs.append(timed(cmd, self.root, fig=warm))
        __import__("locate").figures(self)  # chunk texts placed by chunks --locate: exact, and rendered (issue 24)

    def compare(self) -> None:
        """``labeller chunkers compare`` of four chunkings: cold (the whole cache cleared:
        golden set, the three other chunkings, four BM25 indexes) once, then warm."""
        if not (REPO / "labeller" / "eval" / "compare.py").exists():
            self.fig("compare_warm_s", "chunkers compare, warm", "s", 10.0).skipped = "chunkers compare not present"
            return
        n = len(self.project().load_questions().questions)
        cmd = cli("chunkers", "compare", *COMPARE_SPECS, "--root", ".", "--format", "json")
        label = f"chunkers compare, {len(COMPARE_SPECS)} chunkings, {n:,} questions"
        cold = self.fig("compare_cold_s", f"{label}, cold (fresh cache)", "s", 60.0,
                        note="chunks, golden set and every BM25 index built and cached; one run")
        warm = self.fig("compare_warm_s", f"{label}, warm", "s", 10.0)
        mem = self.fig("peak_compare_mb", "peak memory, chunkers compare (cold)", "MB", note="reported, no target")
        clear_cache(self.root)
        peak, elapsed = peak_mb(cmd, self.root)
        mem.runs.append(peak)
        cold.runs.append(elapsed)
        for _ in range(self.repeat):
            warm.runs.append(timed(cmd, self.root, fig=warm))

    # hostile ----------------------------------------------------------------------------
    def hostile(self) -> None:
        """The stall cases of issue 18: Markdown that once cost quadratic time, at n and 2n
        lines (their ratio is about 2 when the work is linear, 4 when quadratic), and a
        1,600-character quote not found in this corpus (suggestions once scored every chunk)."""
        cases = (("unclosed front matter, then bullets", "fm", "---\n", "- item {i}\n", 16_000),
                 ("a --- rule at the top, then bullets", "rule", "---\n\n# Notes\n\n", "- bullet number {i}\n", 3_000))
        for label, key, head, line, n in cases:
            times = {}
            for lines in (n, 2 * n):
                f = self.fig(f"hostile_{key}_{lines}_s", f"hostile: {label}, {lines:,} lines, build", "s", 2.0)
                root = self.root.parent / f"hostile-{key}-{lines}"
                shutil.rmtree(root, ignore_errors=True)
                (root / "corpus").mkdir(parents=True)
                (root / "golden").mkdir()
                (root / "corpus" / "a.md").write_text(head + "".join(line.format(i=i) for i in range(lines)))
                last = line.format(i=lines - 1).strip().lstrip("- ")
                (root / "golden" / "questions.jsonl").write_text(json.dumps(
                    {"id": "h1", "query": "where?", "expected_answer": "x",
                     "locators": [{"doc": "a.md", "quote": last}]}) + "\n")
                for _ in range(self.repeat):
                    clear_cache(root)
                    f.runs.append(timed(cli("build", "--root", "."), root, fig=f))
                times[lines] = f.value
            ratio = self.fig(f"hostile_{key}_ratio", f"hostile: {label}, time at 2n / time at n", "x", 3.0,
                             note="about 2 when linear, 4 when quadratic (process start-up included)")
            ratio.runs.append(times[2 * n] / times[n])
        self.hostile_quote()
        self.hostile_memory()
        importlib.import_module("hostile_output").measure(self, sys.modules[__name__])  # issue 23.3: output floods
        importlib.import_module("hostile_resolution").measure(self)  # issue 23: hostile questions files
        importlib.import_module("realistic_break").measure(self)  # issue 35: many quotes lightly edited
        importlib.import_module("hostile_run").measure(self, sys.modules[__name__])  # run files at their bound

    def hostile_quote(self) -> None:
        from labeller.core.corpus import load_corpus

        short = self.fig("hostile_short_quote_s", "hostile: build with a 3-word quote not found", "s",
                         note="each run rebuilds (the question changes), chunks and blocks cached")
        long = self.fig("hostile_long_quote_s", "hostile: build with a 1,600-char quote not found", "s",
                        note="same; the difference from the 3-word build is what the long quote's suggestions cost")
        extra = self.fig("hostile_quote_extra_s", "hostile: extra cost of the 1,600-char quote's suggestions", "s", 1.0)
        questions = self.root / "golden" / "questions.jsonl"
        original = questions.read_bytes()
        doc = max(load_corpus(self.root / "corpus"), key=lambda d: len(d.text))
        words = doc.text.split()
        passage = " ".join(words[len(words) // 3:])[:1600]
        near_miss = "".join("#" if i % 40 == 20 and ch != " " else ch for i, ch in enumerate(passage))
        timed(cli("build", "--root", "."), self.root)  # the chunks and blocks are cached: only resolving differs
        try:
            for n in range(self.repeat):
                for fig, quote in ((short, f"zq{n} unfound words"), (long, near_miss)):
                    rec = {"id": f"hostile-{n}-{time.time_ns()}", "query": "a quote not found?",
                           "expected_answer": "x", "locators": [{"quote": quote}]}
                    questions.write_bytes(original + (json.dumps(rec) + "\n").encode())
                    fig.runs.append(timed(cli("build", "--root", "."), self.root, ok=(1,), fig=fig))
                extra.runs.append(long.runs[-1] - short.runs[-1])
        finally:
            questions.write_bytes(original)

    def hostile_memory(self) -> None:
        """Peak memory of a build of one huge table and of one deeply nested document, at
        9 and 18 MB: the 18 MB table once took 2.9 GB (every cell a markdown-it token). The
        slope between the two sizes is what grows with the document (the interpreter's own
        hundred-odd MB is in both), about constant when memory is linear."""
        shapes = (("table", "one Markdown table", "# Big table\n\n| id | name | value | note |\n|---|---|---|---|\n",
                   lambda i: f"| {i} | name {i} | value {i * 7} | some note text for row {i} |\n"),
                  ("nesting", "lists and block quotes nested 40 deep", "# Deep\n\n",
                   lambda i: "".join("  " * d + f"- item {i} depth {d}\n" for d in range(40)) + "\n"
                   + "> " * 40 + f"quote {i}\n\n"))
        sizes = (9, 18)
        for key, label, head, unit in shapes:
            peaks = {}
            for mb in sizes:
                f = self.fig(f"hostile_{key}_{mb}mb_peak_mb", f"hostile: peak memory, build of {label}, {mb} MB",
                             "MB", note="reported, no target; cold (fresh cache), workers included")
                root = self.root.parent / f"hostile-{key}-{mb}mb"
                shutil.rmtree(root, ignore_errors=True)
                (root / "corpus").mkdir(parents=True)
                (root / "golden").mkdir()
                parts, size, i = [head], len(head), 0
                while size < mb * 1_000_000:
                    parts.append(unit(i))
                    size += len(parts[-1])
                    i += 1
                (root / "corpus" / "big.md").write_text("".join(parts))
                quote = unit(i // 2).strip().split("\n")[0].strip("|- ")  # a line in the middle of the document
                (root / "golden" / "questions.jsonl").write_text(json.dumps(
                    {"id": "m1", "query": "where?", "expected_answer": "x",
                     "locators": [{"doc": "big.md", "quote": quote}]}) + "\n")
                clear_cache(root)
                peak, _ = peak_mb(cli("build", "--root", "."), root)
                f.runs.append(peak)
                peaks[mb] = peak
                shutil.rmtree(root, ignore_errors=True)
            slope = self.fig(f"hostile_{key}_mb_per_mb", f"hostile: {label}, peak MB per MB of document "
                             f"({sizes[0]} → {sizes[1]} MB)", "x", 10.0,
                             note="the 2.9 GB table of issue 18 was about 160")
            slope.runs.append((peaks[sizes[1]] - peaks[sizes[0]]) / (sizes[1] - sizes[0]))

    # app ------------------------------------------------------------------------------
    def app(self, example: Path | None) -> None:
        try:
            import app_bench
        except ImportError as exc:
            self.fig("keystroke_p95_ms", "app: keystroke to highlighted span, p95", "ms", 50.0).skipped = str(exc)
            return
        keys = self.fig("keystroke_p95_ms", "app: keystroke to highlighted span, p95 (Pilot)", "ms", 50.0)
        start = self.fig("app_start_s", "app: start to first screen (bundled example)", "s", 1.5)
        minimal = self.fig("app_start_minimal_s", "minimal Textual app (Header, DataTable, Footer): start", "s")
        ratio = self.fig("app_start_ratio", "app start / minimal Textual app start", "x", 2.0)
        for _ in range(1 if self.smoke else self.repeat):
            result = asyncio.run(app_bench.keystrokes(self.root, n=5 if self.smoke else 60))
            if result.skipped:
                keys.skipped = result.skipped
                break
            keys.runs.append(p95(result.times_ms))
            keys.note = result.note
        where = example if example is not None else self.root
        ours, peer = app_bench.start_times(where, 1 if self.smoke else max(self.repeat, 5))
        for fig, result in ((start, ours), (minimal, peer)):
            fig.runs, fig.note, fig.skipped = result.runs, result.note, result.skipped
        ratio.runs = [a / b for a, b in zip(ours.runs, peer.runs)]  # each pair ran back to back
        ratio.skipped = ours.skipped or peer.skipped
        # the same app on this benchmark's corpus: the table is up before the corpus is read
        shown = self.fig("app_large_shown_s", "app: question table shown (this corpus)", "s")
        resolved = self.fig("app_large_resolved_s", "app: every status filled in (this corpus)", "s")
        loading = app_bench.loading_times(self.root, 1 if self.smoke else self.repeat)
        shown.runs, resolved.runs = loading.shown_s, loading.resolved_s
        shown.note = resolved.note = loading.note
        shown.skipped = resolved.skipped = loading.skipped
        self.big_document(app_bench)

    def big_document(self, app_bench) -> None:
        """Issue 17.7: a 1 MB document, in a project of its own beside this one (app_bench)."""
        opened = self.fig("big_open_ms", "app: open a record in a 1 MB document to its quote highlighted (Pilot)",
                          "ms", 300.0)
        first = self.fig("big_first_open_ms", "app: the same, the first open in a fresh app (Pilot)", "ms", 300.0)
        suggest = self.fig("big_suggest_ms", "app: not-found quote in a 1 MB document to its suggestions (Pilot)",
                           "ms", 500.0)
        model = self.fig("big_suggest_model_ms", "session model: not-found suggestions in a 1 MB document", "ms",
                         note="preview_locator with suggestions, no UI: the core's share of the figure above")
        keys = self.fig("big_keystroke_p95_ms", "app: keystroke to highlighted span in a 1 MB document, p95 (Pilot)",
                        "ms", 50.0)
        root = self.root.parent / "big-document"
        shutil.rmtree(root, ignore_errors=True)
        big = app_bench.big_document_project(root)
        for _ in range(1 if self.smoke else self.repeat):
            result = asyncio.run(app_bench.big_document(root, big, n=3 if self.smoke else 10,
                                                        fresh=1 if self.smoke else 3))
            if result.skipped:
                opened.skipped = first.skipped = suggest.skipped = model.skipped = result.skipped
                break
            opened.runs.append(statistics.median(result.open_ms))
            first.runs.append(statistics.median(result.first_open_ms))
            first.note = (f"median per run of the first open in each of {len(result.first_open_ms)} fresh apps "
                          "(the author screen shown and the 1 MB document loaded the first time)")
            suggest.runs.append(statistics.median(result.suggest_ms))
            model.runs.append(statistics.median(result.suggest_model_ms))
            opened.note = suggest.note = result.note + " (median per run)"
            keyed = asyncio.run(app_bench.keystrokes(root, n=5 if self.smoke else 40, only_doc=big))
            if keyed.skipped:
                keys.skipped = keyed.skipped
            else:
                keys.runs.append(p95(keyed.times_ms))
                keys.note = keyed.note


STEPS, Bench.big_inputs = (*STEPS, "big_inputs"), __import__("big_inputs").measure  # run file, chunks, bootstrap
STEPS, Bench.scoring = (*STEPS, "scoring"), __import__("scoring").figures  # labeller vs ranx vs ir_measures
STEPS, Bench.eval_whole = (*STEPS, "eval_whole"), __import__("eval_whole").figures  # the whole command vs ranx's


def naive_found_per_document(chunks, needle_list) -> dict[str, set[int]]:
    """The leak scan's baseline: one ``str.find`` loop per query over each field.

    Fields are normalised once (not per query) and each field of all chunks is joined
    with ``\\n``, which no normalised needle contains, so no match can straddle two fields
    or two chunks; this is the fastest honest loop, not a straw man.
    """
    import bisect

    from labeller.eval.leaks import FIELDS, normalise

    found: dict[str, set[int]] = {}
    for _, attr in FIELDS:
        texts = [normalise(getattr(c, attr)) for c in chunks]
        starts, pos = [], 0
        for t in texts:
            starts.append(pos)
            pos += len(t) + 1
        joined = "\n".join(texts)
        for i, needle in enumerate(needle_list):
            at = joined.find(needle.text)
            while at != -1:
                c = chunks[bisect.bisect_right(starts, at) - 1]
                found.setdefault(c.doc_id, set()).add(i)
                at = joined.find(needle.text, at + 1)
    return found


# -- projects -----------------------------------------------------------------------------

def synthetic_project(size: int, root: Path, n_questions: int, seed: int) -> dict:
    t = time.perf_counter()
    syn = synth.generate(size, n_questions, seed)
    synth.write_project(syn, root)
    return {"docs": len(syn.docs), "questions": len(syn.questions), "bytes": dir_bytes(root / "corpus"),
            "generated_in_s": round(time.perf_counter() - t, 2), "seed": seed}


def real_project(src: Path, root: Path, n_questions: int, seed: int, make=None) -> dict:
    """A copy of a real corpus and questions quoting distinctive passages of it (``make``:
    ``synth.questions_for_corpus``, or another generator with its signature)."""
    shutil.copytree(src, root / "corpus", symlinks=True, ignore=shutil.ignore_patterns(".git"))
    questions = (make or synth.questions_for_corpus)(root / "corpus", n_questions, seed)
    (root / "golden").mkdir(parents=True, exist_ok=True)
    (root / "golden" / "questions.jsonl").write_text(
        "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")
    return {"docs": sum(1 for _ in (root / "corpus").rglob("*.md")), "questions": len(questions),
            "bytes": dir_bytes(root / "corpus"), "source": str(src)}


def dir_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*.md") if p.is_file())


def machine() -> dict:
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    versions = {}
    for pkg in PACKAGES:
        try:
            versions[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            versions[pkg] = None
    return {"cpu_count": os.cpu_count(), "cpus_usable": usable, "python": platform.python_version(),
            "implementation": platform.python_implementation(), "platform": platform.platform(),
            "machine": platform.machine(), "load_average_at_start": _load(),
            "two_process_throughput": parallel_probe(), "packages": versions}


_SPIN = "sum(i * i for i in range(6_000_000))"


def parallel_probe() -> float:
    """How much work two processes get done at once relative to one (2.0 on two idle
    cores; less when other jobs share the machine): the context for every figure that
    uses worker processes."""
    def spin(n: int) -> float:
        t = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(n)]
        for p in procs:
            p.wait()
        return time.perf_counter() - t

    one = spin(1)
    return round(2 * one / spin(2), 2)


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


# -- output ---------------------------------------------------------------------------------

def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "ms":
        return f"{value:.2f} ms"
    if unit == "x":
        return f"{value:.1f}×"
    if unit == "r":
        return f"{value:.3f}"
    if unit == "MB":
        return f"{value:,.0f} MB"
    return f"{value:.3f} s" if value < 10 else f"{value:.1f} s"


def print_table(figures: list[Figure], title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=title)
    for col in ("corpus", "figure", "median", "runs", "target", "result"):
        t.add_column(col, justify="right" if col in ("median", "runs", "target") else "left")
    for f in figures:
        target = "" if f.target is None else ("≥ " if f.higher_is_better else "≤ ") + fmt(f.target, f.unit)
        result = ("[dim]skipped: " + f.skipped + "[/]" if f.skipped else
                  "[green]pass[/]" if f.passed else "[red]MISS[/]" if f.passed is False else "[dim]reported[/]")
        t.add_row(f.corpus, f.label, fmt(f.value, f.unit), str(len(f.runs)), target, result)
    Console(width=max(150, shutil.get_terminal_size().columns)).print(t)


def markdown_table(figures: list[Figure]) -> str:
    """The README's table: one row per figure, median and target."""
    rows = ["| corpus | figure | median | target | result |", "|---|---|---:|---:|---|"]
    for f in figures:
        target = "" if f.target is None else ("≥ " if f.higher_is_better else "≤ ") + fmt(f.target, f.unit)
        result = (f"skipped ({f.skipped})" if f.skipped else "pass" if f.passed else "**miss**"
                  if f.passed is False else "reported")
        rows.append(f"| {f.corpus} | {f.label} | {fmt(f.value, f.unit)} | {target} | {result} |")
    return "\n".join(rows) + "\n"


_printed: set[int] = set()


def progress(current: list[Figure], done: list[Figure], results: dict, json_path: str | None) -> None:
    """Print each new figure as it lands and keep the JSON file current, so a long run
    that is interrupted still leaves what it measured."""
    for f in current:
        if id(f) not in _printed:
            _printed.add(id(f))
            print(f"  {f.corpus}: {f.label}: {f.skipped or fmt(f.value, f.unit)}", flush=True)
    if json_path:
        results["figures"] = [f.as_json() for f in [*done, *current]]
        Path(json_path).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="10MB", help="synthetic corpus size (10MB, 500KB, 1MiB; default 10MB)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure; the median is reported (default 3)")
    ap.add_argument("--json", help="write the results here as JSON")
    ap.add_argument("--markdown", help="write the table here as Markdown (the README's table)")
    ap.add_argument("--corpora", action="append", help="also run on this real corpus folder (repeatable; default "
                    "../shared/corpora/textual-docs relative to the repository when present)")
    ap.add_argument("--questions", type=int, help="golden questions per corpus (default 1000; 200 with --smoke)")
    ap.add_argument("--seed", type=int, default=20260101)
    ap.add_argument("--traffic-lines", type=int, default=traffic_log.LINES, help="lines of the generated query log "
                    f"the traffic figure samples (default {traffic_log.LINES:,}; a smoke run uses "
                    f"{traffic_log.SMOKE_LINES:,})")
    ap.add_argument("--smoke", action="store_true", help="CI mode: every step runs once; times are not judged")
    ap.add_argument("--keep", help="write the projects here instead of a temporary folder, and keep them")
    ap.add_argument("--only", help=f"comma-separated steps to run (default all: {','.join(STEPS)})")
    ap.add_argument("--profile", metavar="DIR", help="also profile one cold build per corpus (cProfile, one core) "
                    "and write the .prof files and their top functions here")
    ap.add_argument("--sizes", help="with --curve: comma-separated synthetic corpus sizes (e.g. 1MB,10MB,50MB,100MB)")
    ap.add_argument("--curve", metavar="OUT", help="measure build, --check and eval at every --sizes and write "
                    "OUT.json, OUT.md (exponents) and OUT.svg (the curve) instead of the figures (curve.py)")
    args = ap.parse_args(argv)
    if bool(args.curve) != bool(args.sizes):
        ap.error("--curve and --sizes go together")
    steps = args.only.split(",") if args.only else list(STEPS)
    if set(steps) - set(STEPS):
        ap.error(f"--only takes {','.join(STEPS)}")
    if args.smoke:
        args.repeat = 1
    if args.questions is None:
        args.questions = 200 if args.smoke else 1000
    corpora = args.corpora if args.corpora is not None else [str(REPO.parent / "shared" / "corpora" / "textual-docs")]
    size = synth.parse_size(args.size)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="labeller-bench-"))
    # whoosh's in-memory index writer spills to <tmp>/MAIN.tmp, a name shared by every
    # process on the machine; a private temp folder keeps concurrent runs from colliding.
    private_tmp = work / "tmp"
    private_tmp.mkdir(parents=True, exist_ok=True)
    os.environ["TMPDIR"] = tempfile.tempdir = str(private_tmp)
    if args.curve:
        import curve

        try:
            curve.run_curve({synth.parse_size(s): s for s in args.sizes.split(",")}, Path(args.curve), args.repeat,
                            args.questions, args.seed, work, keep=bool(args.keep), synthetic_project=synthetic_project,
                            cli=cli, machine=machine, load=_load)
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
        print(f"wrote {args.curve}.json, .md and .svg")
        return 0
    results: dict = {"schema": "labeller.benchmarks.v1", "machine": machine(), "size": args.size,
                     "repeat": args.repeat, "smoke": args.smoke, "corpora": {}, "figures": []}
    figures: list[Figure] = []
    try:
        root = work / "synthetic"
        shutil.rmtree(root, ignore_errors=True)
        results["corpora"]["synthetic"] = synthetic_project(size, root, args.questions, args.seed)
        print(f"synthetic corpus: {results['corpora']['synthetic']}", flush=True)
        b = Bench(f"synthetic {args.size}", root, args.repeat, args.smoke, args.traffic_lines)
        for step in steps:
            if step == "app":
                b.app(REPO if (REPO / "golden" / "questions.jsonl").exists() else None)
            else:
                getattr(b, step)()
            progress(b.figures, figures, results, args.json)
        figures += b.figures
        if args.profile:
            b.profile_cold_build(Path(args.profile))
        for src in map(Path, corpora):
            if not src.is_dir():
                print(f"skipping {src}: folder not found (run from a checkout next to shared/, or pass --corpora)")
                results["corpora"][src.name] = {"skipped": f"{src} not found"}
                continue
            root = work / src.name
            shutil.rmtree(root, ignore_errors=True)
            results["corpora"][src.name] = real_project(src, root, args.questions, args.seed)
            print(f"{src.name}: {results['corpora'][src.name]}", flush=True)
            rb = Bench(src.name, root, args.repeat, args.smoke)
            for step in steps:
                # the app, hostile and traffic figures are about the synthetic corpus, the bundled example
                # and a generated log; a smoke run evaluates the synthetic corpus only, to stay within a minute
                if step not in ("app", "hostile", "repair", "traffic") and \
                        not (args.smoke and step in ("eval", "foreign", "compare")):
                    getattr(rb, step)()
                    progress(rb.figures, figures, results, args.json)
            figures += rb.figures
            if args.profile:
                rb.profile_cold_build(Path(args.profile))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    results["machine"]["load_average_at_end"] = _load()
    results["figures"] = [f.as_json() for f in figures]
    title = "labeller benchmarks" + (" (smoke: times not judged)" if args.smoke else
                                     f" (median of {args.repeat}; targets are for 10 MB on 2 cores)")
    print_table(figures, title)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    if args.markdown:
        Path(args.markdown).write_text(markdown_table(figures), encoding="utf-8")
        print(f"wrote {args.markdown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
