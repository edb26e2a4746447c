"""``labeller runs compare BEFORE AFTER``: two runs of the history compared as ``eval --baseline`` compares reports.

The history keeps each run's fingerprint, config and per-query metrics (``history.read_run``),
which is all ``eval --baseline`` reads of a report to pair them. So the comparison is that
very function (``report.compare_with_mdd``): the same pairing by query id, the same seeded
paired bootstrap (the after run's samples and seed, as ``eval --baseline`` uses the current
run's), the same minimum detectable difference, the same comparability rule. Two runs that
measured different quantities (another hit rule or chunking) are refused rather than shown
side by side. Only the metrics at the shipped k are compared: the history's per-query table
holds the five rank metrics of every k, and a sweep of deltas is noise to read. It keeps no
per-query character metrics, so ``chars_deltas`` is null: compare reports for those.

The result ``labeller.runs-comparison.v1`` holds no timestamp but the runs' own, so the same
history gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path

from labeller.config import MAX_BOOTSTRAP_SAMPLES, MAX_K
from labeller.errors import InvalidInput
from labeller.eval.bootstrap import CONFIDENCE
from labeller.eval.history import QUERY_COLUMNS, read_run
from labeller.eval.metrics import LEVELS
from labeller.eval.present import delta_verdict
from labeller.eval.report import compare_with_mdd
from labeller.eval.report_model import Delta

SCHEMA = "labeller.runs-comparison.v1"


def compare_runs(path: Path, before_ref: str, after_ref: str) -> dict:
    """Paired deltas (after - before) of each rank metric at the after run's shipped k, chunk
    and document level, with intervals and the MDD; InvalidInput when not comparable."""
    before, after = read_run(path, before_ref), read_run(path, after_ref)
    if before["run_id"] == after["run_id"]:
        raise InvalidInput(f"{before_ref} and {after_ref} are the same run {before['run_id']}; compare two runs",
                           path=str(path))
    cfg = after["config"]
    shipped_k, samples, seed = (cfg.get(key) for key in ("shipped_k", "bootstrap_samples", "seed"))
    bounds = {"shipped_k": (shipped_k, MAX_K), "bootstrap_samples": (samples, MAX_BOOTSTRAP_SAMPLES),
              "seed": (seed, None)}
    for key, (value, top) in bounds.items():
        if type(value) is not int or value < (0 if key == "seed" else 1) or (top is not None and value > top):
            raise InvalidInput(f"refused: run {after['run_id']} records {key} = {value!r}, which labeller never "
                               "writes (a planted database?)", path=str(path))
    names = [f"{m}@{shipped_k}" for m in QUERY_COLUMNS]

    def at_shipped_k(run: dict) -> dict:
        return {**run, "aggregate": {level: {n: run["aggregate"][level][n] for n in names
                                             if n in run["aggregate"][level]} for level in LEVELS}}

    comparison, _ = compare_with_mdd(at_shipped_k(after), at_shipped_k(before), shipped_k, samples, seed)
    if not comparison["comparable"]:
        differing = "; ".join(f"{d['field']}: {d['baseline']} → {d['current']}"
                              for d in comparison["fingerprint_differences"])
        raise InvalidInput(f"runs {before['run_id']} and {after['run_id']} are not comparable: "
                           f"{comparison['reason']}" + (f" (differing: {differing})" if differing else ""),
                           path=str(path))
    return {"schema": SCHEMA, "history": str(path),
            "before": _run_summary(before), "after": _run_summary(after),
            "shipped_k": shipped_k, "bootstrap_samples": samples, "seed": seed,
            "confidence": CONFIDENCE, "comparison": comparison,
            "verdicts": {level: {name: delta_verdict(Delta.model_validate(d)) for name, d in deltas.items()}
                         for level, deltas in comparison["deltas"].items()}}


def _run_summary(run: dict) -> dict:
    fp = run["fingerprint"]
    retriever = fp.get("retriever")
    return {"run_id": run["run_id"], "started_at": run["started_at"],
            "retriever": retriever if isinstance(retriever, dict) else None,
            "fingerprint": fp.get("digest"), "queries": len(run["queries"])}
