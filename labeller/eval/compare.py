"""Compare chunkings on one golden set: ``labeller chunkers compare`` (``labeller.chunker-comparison.v1``).

Span labels do not depend on a chunking, so one golden set can score many: each chunking
is run through the eval itself (``run_eval``: the same golden set, the same retriever
rebuilt over that chunking, the same seeded bootstrap) and the comparison only gathers what
the eval reports — no metric is computed here a second time:

- the chunking's counts and chunk sizes (code points);
- its ceiling ``precision_omega`` (retriever-free, SPEC §8.1);
- character recall, precision and IoU at each k, and recall at equal context budgets
  (SPEC §8.1), which are the fair comparison when chunk sizes differ;
- chunk-level recall@k under the build hit rule, kept apart (``chunk_recall@k``) because
  it is not comparable across chunkings (SPEC §5): a bigger chunk hits more spans;
- for every chunking after the first, the paired per-query difference of each comparable
  metric against the first, with its bootstrap interval (the eval's seeded paired
  bootstrap over its own per-query rows), and a verdict naming the differences whose interval excludes zero.

The result is plain data with no timestamps; rendered with sorted keys it is byte-identical
across runs on the same inputs.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from labeller import __version__
from labeller.core.chunkers import chunker_spec, get_chunker
from labeller.core.project import Project
from labeller.diagnostics import bounded_comment, markdown_cell, markdown_text
from labeller.errors import InvalidInput
from labeller.eval import report as rp
from labeller.eval.bootstrap import CONFIDENCE, paired_delta_cis
from labeller.eval.chars import size, union
from labeller.eval.chunkset import chunker_chunk_set, load_chunk_set
from labeller.eval.retrievers import make_retriever
from labeller.eval.runner import EvalResult, parse_budgets, parse_ks, run_eval

SCHEMA = "labeller.chunker-comparison.v1"
# Prompt-sized context budgets in characters (about 125 to 2,000 tokens of English).
DEFAULT_BUDGETS = (500, 1000, 2000, 4000, 8000)
CHAR_METRICS = ("recall", "precision", "iou")

# (stage, done, total, chunking position 1.., spec)
CompareProgress = Callable[[str, int, int, int, str], None]


@dataclass
class Comparison:
    data: dict  # the labeller.chunker-comparison.v1 object
    results: list[EvalResult]  # one eval per chunking, in the order given


def comparable_metrics(ks: Sequence[int], budgets: Sequence[int]) -> list[str]:
    """The metrics that mean the same thing under every chunking, in display order."""
    return (["precision_omega"] + [f"chars_recall@budget={b}" for b in budgets]
            + [f"chars_{m}@{k}" for m in CHAR_METRICS for k in ks])


def size_distribution(lengths: Sequence[int]) -> dict:
    """min / median / mean / p90 / max of chunk lengths; p90 by nearest rank (an actual
    chunk's length), median the middle value or the mean of the two middle ones."""
    if not lengths:
        return {"min": None, "median": None, "mean": None, "p90": None, "max": None}
    xs = sorted(lengths)
    return {"min": xs[0], "median": statistics.median(xs), "mean": round(math.fsum(xs) / len(xs), 1),
            "p90": xs[math.ceil(0.9 * len(xs)) - 1], "max": xs[-1]}


def budget_depth(chunking, budgets: Sequence[int]) -> int:
    """How deep to retrieve so that the largest budget can fill: twice the number of
    median-sized chunks it holds (overlapping neighbours add less than their length). Where
    that is still too shallow, ``budget_unfilled`` says so."""
    lengths = [r.place.end - r.place.start for r in chunking.ranges]
    if not budgets or not lengths:
        return 1
    return 2 * math.ceil(max(budgets) / statistics.median(lengths))


def budget_unfilled(result: EvalResult, budgets: Sequence[int]) -> dict[str, int]:
    """Per budget, how many queries' whole retrieved list fits within it: for those the
    retrieved depth ran out before the budget did (or the retriever returned fewer), so
    their budget recall is a floor."""
    ids = [s.query_id for s in result.char_scores]
    sizes = [size(union(p for h in result.hits[q] for p in result.chunks.places(h.chunk_id))) for q in ids]
    return {str(b): sum(1 for s in sizes if s <= b) for b in budgets}


def _query_rows(result: EvalResult) -> dict[str, dict[str, float | None]]:
    """Per query, the comparable metrics under their comparison names, as the eval report
    holds them (its per-query rows, which ``--baseline`` comparisons pair too)."""
    rows = {}
    for row in result.model.queries:
        values: dict[str, float | None] = {f"chars_{name}": v for name, v in row.chars.items()}
        values["precision_omega"] = row.precision_omega
        rows[row.query_id] = values
    return rows


def paired_deltas(rows: dict, base_rows: dict, names: Sequence[str], samples: int, seed: int) -> dict[str, dict]:
    """Mean paired delta (this chunking - the baseline) of each metric, over the queries both
    scored, with its interval: every metric in one bootstrap call (one set of draws, as the
    eval's own paired deltas use per metric with the same seed, so the numbers are the same)."""
    paired = [q for q in rows if q in base_rows]
    cur = [[rows[q][n] for n in names] for q in paired]
    base = [[base_rows[q][n] for n in names] for q in paired]
    cis = paired_delta_cis(cur, base, samples, seed) if paired else [None] * len(names)
    out = {}
    for j, name in enumerate(names):
        mean = math.fsum(c[j] - b[j] for c, b in zip(cur, base)) / len(paired) if paired else None
        ci = cis[j]
        d = {"value": rp.rnd(mean), "ci_low": rp.rnd(ci[0]) if ci else None, "ci_high": rp.rnd(ci[1]) if ci else None,
             "n": len(paired)}
        out[name] = d | {"excludes_zero": _excludes_zero(d)}
    return out


def _excludes_zero(d: dict) -> bool:
    return d["ci_low"] is not None and (d["ci_low"] > 0 or d["ci_high"] < 0)


def chunking_entry(spec: str, version: str, result: EvalResult, ks: Sequence[int], budgets: Sequence[int]) -> dict:
    rep = result.model
    chunking = result.chunks.chunking
    entry: dict = {
        "name": spec, "chunker_version": version, "digest": chunking.digest, "chunks": chunking.n_chunks,
        "distinct_ids": len({r.id for r in chunking.ranges}),
        "chars": size_distribution([r.place.end - r.place.start for r in chunking.ranges]),
        "unreachable_spans": rep.chunking.unreachable_spans,
        "retrieved_depth": rep.config.retrieved_depth,
        "budget_unfilled": budget_unfilled(result, budgets),
        "precision_omega": rep.chunking.precision_omega.json_value(),
    }
    if chunking.located is not None:  # a chunk file: how its chunks were placed (SPEC §10.1)
        entry["located"] = chunking.located
        if rep.chunking.unplaced is not None:  # and what it left out (SPEC §10)
            entry["unplaced"] = {k: v for k, v in rep.chunking.unplaced.items() if k != "listed"}
    for name, stat in (rep.aggregate.chars or {}).items():  # an eval's top-level aggregate always has them
        entry[f"chars_{name}"] = stat.json_value()
    for k in ks:
        entry[f"chunk_recall@{k}"] = rep.aggregate.chunk[f"recall@{k}"].json_value()
    return entry


def verdict(entries: list[dict], names: Sequence[str]) -> list[dict]:
    """One line per chunking after the first: the differences whose interval excludes zero."""
    base = entries[0]["name"]
    out = []
    for e in entries[1:]:
        found = [{"metric": n, "direction": "higher" if e["deltas"][n]["value"] > 0 else "lower",
                  **{k: e["deltas"][n][k] for k in ("value", "ci_low", "ci_high", "n")}}
                 for n in names if _excludes_zero(e["deltas"][n])]
        if found:
            groups = []
            for direction in ("higher", "lower"):
                named = [f"{d['metric']} ({d['value']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}])"
                         for d in found if d["direction"] == direction]
                if named:
                    groups.append(f"{direction} {', '.join(named)}")
            rest = len(names) - len(found)
            line = f"{e['name']} vs {base}: {'; '.join(groups)}" + (
                f"; the other {rest} interval{'s include' if rest != 1 else ' includes'} zero" if rest else "")
        else:
            line = (f"{e['name']} vs {base}: no difference excludes zero; on this golden set the two cannot be "
                    "told apart")
        out.append({"chunking": e["name"], "baseline": base, "differences": found, "line": line})
    return out


def compare_chunkers(project: Project, specs: Sequence[str], *, ks=None, budgets=None, retriever: str = "bm25",
                     analyzer: str | None = None, progress: CompareProgress | None = None) -> Comparison:
    """Score each chunker spec with the same retriever and golden set; deltas against the first."""
    if len(specs) < 2:
        raise InvalidInput("chunkers compare needs at least two chunker specs (the first is the baseline)")
    if retriever == "run":
        raise InvalidInput("chunkers compare cannot use --retriever run: a run file ranks the chunks of one "
                           "chunking; give a retriever that works over any chunking (default bm25)")
    if analyzer is not None and retriever != "bm25":
        raise InvalidInput(f"--analyzer applies to the BM25 retriever, not to {retriever}")
    cfg = project.config
    # a spec ending in .jsonl is a pipeline's chunk file (SPEC §10), placed as eval --chunks places it
    chunkers = [None if s.endswith(".jsonl") else get_chunker(s, max_chars=cfg.max_chars) for s in specs]
    canonical = [s if c is None else chunker_spec(c) for s, c in zip(specs, chunkers)]
    repeated = sorted({s for s in canonical if canonical.count(s) > 1})
    if repeated:
        raise InvalidInput(f"chunker spec {repeated[0]} is given twice; compare distinct chunkings")
    ks = parse_ks([*(cfg.eval.k if ks is None else ks), cfg.eval.shipped_k])
    budgets = parse_budgets(DEFAULT_BUDGETS if budgets is None else budgets)
    results = []
    for i, (spec, chunker) in enumerate(zip(canonical, chunkers), 1):
        def step(stage: str, done: int, total: int, i: int = i, spec: str = spec) -> None:
            if progress:
                progress(stage, done, total, i, spec)

        step("chunk", 0, 1)
        chunk_set = load_chunk_set(project, spec) if chunker is None else chunker_chunk_set(project, chunker)
        step("chunk", 1, 1)
        options = {"analyzer": analyzer, "progress": step} if retriever == "bm25" else {"progress": step}
        ranker = make_retriever(retriever, project, chunks=chunk_set, **options)
        results.append(run_eval(project, ks=ks, retriever=ranker, chunks=chunk_set, budgets=budgets,
                                depth=budget_depth(chunk_set.chunking, budgets), progress=step))
    samples, seed = cfg.eval.bootstrap_samples, cfg.eval.seed
    names = comparable_metrics(ks, budgets)
    entries = [chunking_entry(spec, "chunk file" if c is None else c.version, r, ks, budgets)
               for spec, c, r in zip(canonical, chunkers, results)]
    base_rows = _query_rows(results[0])
    entries[0]["deltas"] = None
    for entry, result in zip(entries[1:], results[1:]):
        entry["deltas"] = paired_deltas(_query_rows(result), base_rows, names, samples, seed)
    first = results[0].model
    data = {
        "schema": SCHEMA,
        "config": {"k": list(ks), "budgets": list(budgets), "bootstrap_samples": samples, "seed": seed,
                   "confidence": CONFIDENCE, "build_hit_rule": project.hit_rule.name,
                   "retriever": first.fingerprint.retriever,
                   "queries": first.config.records.scored,
                   "golden_set_digest": first.fingerprint.golden_set_digest,
                   "corpus_digest": project.corpus.digest, "tool_version": __version__},
        "baseline": entries[0]["name"],
        "comparable_metrics": names,
        "not_comparable": {"metrics": [f"chunk_recall@{k}" for k in ks],
                           "reason": "chunk-level recall under the build hit rule counts a span as found when a "
                           "chunk hits it, so bigger chunks score higher whatever they cost: compare it within a "
                           "row (a chunking against itself), never across rows"},
        "chunkings": entries,
        "verdict": verdict(entries, names),
    }
    return Comparison(data, results)


# -- views: one row model for the text table and the Markdown table ---------------------------


def metric_label(name: str) -> str:
    if name == "precision_omega":
        return "precision_Ω (ceiling)"
    if name.startswith("chunk_"):
        return name.replace("chunk_recall", "chunk recall") + " †"
    return "chars " + name.removeprefix("chars_")


def fmt_stat(s: dict) -> str:
    if s["value"] is None:
        return "no data"
    ci = f" [{s['ci_low']:.3f}, {s['ci_high']:.3f}]" if s["ci_low"] is not None else ""
    return f"{s['value']:.3f}{ci}"


def fmt_delta(d: dict | None) -> str:
    if d is None or d["value"] is None:
        return ""
    ci = f" [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]" if d["ci_low"] is not None else ""
    return f"Δ {d['value']:+.3f}{ci}" + (" *" if d["excludes_zero"] else "")


def rows(data: dict) -> list[tuple[str, list[tuple[str, str]]]]:
    """(label, [(value, delta) per chunking]) for every row of the comparison table."""
    entries = data["chunkings"]
    out: list[tuple[str, list[tuple[str, str]]]] = [
        ("chunks", [(str(e["chunks"]), "") for e in entries]),
        ("chars min / median / mean", [(f"{e['chars']['min']} / {e['chars']['median']:g} / {e['chars']['mean']}", "")
                                       if e["chars"]["min"] is not None else ("no chunks", "") for e in entries]),
        ("chars p90 / max", [(f"{e['chars']['p90']} / {e['chars']['max']}", "") if e["chars"]["min"] is not None
                             else ("no chunks", "") for e in entries]),
        ("unreachable spans", [(str(e["unreachable_spans"]), "") for e in entries]),
    ]
    for name in data["comparable_metrics"]:
        out.append((metric_label(name), [(fmt_stat(e[name]), fmt_delta((e["deltas"] or {}).get(name)))
                                         for e in entries]))
    for name in data["not_comparable"]["metrics"]:
        out.append((metric_label(name), [(fmt_stat(e[name]), "") for e in entries]))
    return out


def header(data: dict, name: Callable[[str], str] = str) -> str:
    """The comparison's one-line setting; ``name`` renders each name a project chose (the
    retriever, its analyzer, the baseline chunking): Markdown escapes them."""
    c = data["config"]
    r = c["retriever"]
    return (f"{c['queries']} answerable queries · retriever {name(str(r.get('name')))}"
            f"{' (' + name(r['analyzer']) + ')' if r.get('analyzer') else ''} over each chunking · "
            f"{int(c['confidence'] * 100)}% paired bootstrap intervals ({c['bootstrap_samples']} samples, seed "
            f"{c['seed']}) · Δ against {name(data['baseline'])} · * the interval excludes zero")


FOOTNOTE = ("† not comparable across chunkings: chunk-level recall under the build hit rule rewards bigger "
            "chunks; read the character metrics instead")


def markdown(data: dict) -> str:
    """A table for a pull request: one column per chunking, one row per quantity. Chunking,
    retriever and analyzer names come from a project's files (untrusted on a fork's pull
    request), so each is neutralised as in the other PR comments (no mention, reference, link
    or broken table from a name) and
    the comment is bounded; the numbers and labels are labeller's own and stay readable."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    entries = data["chunkings"]
    lines = [f"**Chunker comparison** — {header(data, markdown_text)}", "",
             "| | " + " | ".join(markdown_cell(e["name"]) + (" (baseline)" if i == 0 else "")
                                 for i, e in enumerate(entries)) + " |",
             "|---|" + "---|" * len(entries)]
    for label, cells in rows(data):
        lines.append(f"| {cell(label)} | " + " | ".join(
            cell(v) + (f"<br>{cell(d)}" if d else "") for v, d in cells) + " |")
    lines += ["", FOOTNOTE, ""]
    for v in data["verdict"]:  # "<chunking> vs <baseline>: " and then labeller's own words
        said = v["line"][len(f"{v['chunking']} vs {v['baseline']}: "):]
        lines.append(f"- {markdown_text(v['chunking'])} vs {markdown_text(v['baseline'])}: {said}")
    return bounded_comment("\n".join(lines) + "\n", "`labeller chunkers compare --format json`")


def budget_plot(data: dict, width: int = 72, height: int = 18) -> str | None:
    """Chars recall against the context budget, one line per chunking, drawn with the
    chunking's number as its marker (readable without colour); None with fewer than two
    budgets."""
    budgets = data["config"]["budgets"]
    if len(budgets) < 2:
        return None
    import plotext as plt

    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("clear")
    plt.xscale("log")
    for i, e in enumerate(data["chunkings"], 1):
        ys = [e[f"chars_recall@budget={b}"]["value"] for b in budgets]
        if any(y is None for y in ys):
            continue
        plt.plot(budgets, ys, marker=str(i) if i < 10 else "•", label=f"{i} {e['name']}")
    plt.xticks(budgets, [str(b) for b in budgets])
    plt.ylim(0, 1)
    plt.xlabel("context budget (characters, log scale)")
    plt.title("chars recall within the budget")
    text = plt.uncolorize(plt.build())
    plt.clear_figure()
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
