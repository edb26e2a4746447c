"""The eval report ``labeller.eval-report.v1`` (SPEC §9): what CI scripts and the app parse.

Top level: ``schema``, ``fingerprint``, ``config``, ``aggregate``, ``chunking``,
``breakdowns``, ``diagnostics``, ``queries``, ``negatives``, ``findings`` and, with a
baseline, ``comparison``. Every aggregate is ``{"value", "ci_low", "ci_high", "n"}`` with
``value`` null when ``n`` is 0 (no data is not a zero). ``aggregate`` has the ``chunk`` and
``doc`` levels and ``chars``, the character metrics (SPEC §8.1); ``chunking`` names what was
scored (``name``, ``digest``, ``origin``, ``n_chunks``, ``mean_chars``) with its ceiling
``precision_omega`` and its ``unreachable_spans``. The report holds no timestamps and is
rendered with sorted keys, so the same inputs give the same bytes.

The fingerprint names everything that decides the numbers: chunker and max_chars (which
built the golden set), the chunking scored (name and digest), hit rule, retriever and its
settings (analyzer, field weights), the k sweep, the digest of the scored golden records,
the corpus digest and the tool version. Leak findings are not part of it: they describe the
corpus, they do not change a score.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterator, Sequence
from itertools import islice, repeat

import numpy as np

from labeller import __version__
from labeller.display import json_chunks
from labeller.errors import InvalidInput
from labeller.core.chunkfile import Chunking
from labeller.core.parallel import gc_paused
from labeller.eval.bootstrap import Pending, bootstrap_cis, paired_delta_cis
from labeller.eval.chars import CharScore, char_metric_names
from labeller.eval.metrics import LEVELS, QueryScore, measures
from labeller.eval.power import mdd
from labeller.io import atomic_write_chunks, parse_json, read_regular_file

SCHEMA = "labeller.eval-report.v1"
REPORT_MAX_BYTES = 256 * 1024 * 1024
RANKING_LOW, RANKING_HIGH = 0.6, 0.85  # recall@1 / recall@10 bands (see docs/eval.md)
DEPTH_EXHAUSTED = 0.02  # recall@50 - recall@10 below this: deeper candidates find nothing new
FLOOR = 0.95  # recall@50 floor for candidate generation


def rnd(x: float | None) -> float | None:
    """Six decimals in reports: enough to rank, short enough to read; applied after all checks."""
    return None if x is None else round(x, 6)


def rnd_values(values: dict) -> dict:
    """``{k: rnd(v)}`` of a row's metrics, by one C pass when none is None (20,000 rows of
    ~60 values: a Python call each was a tenth of building the report)."""
    vs = list(values.values())
    if None in vs:
        return {k: rnd(v) for k, v in values.items()}
    return dict(zip(values, map(round, vs, repeat(6))))


_SCALE = 1e6  # six decimals
_EXACT = 1e9  # |x| * 1e6 below this: the product's rounding error is below 1.2e-7 of a unit


def rnd_many(rows: Sequence[dict]) -> list[dict]:
    """``[rnd_values(r) for r in rows]`` by one numpy pass over every float (20,000 query rows
    of ~65 values: ``round`` a value at a time was a thirtieth of the command). Python's
    ``round(x, 6)`` is the double nearest the decimal of ``x`` correctly rounded to six
    places, and ``rint(x * 1e6) / 1e6`` is the same double whenever ``x * 1e6``'s own rounding
    cannot cross a half (it lies over 1e-6 from one, and below 1e9) and is finite: the
    integer is then exact and the division is one correctly rounded IEEE operation. Every
    other value (and a row with anything but floats) goes through ``round``."""
    flat = [v for r in rows for v in r.values()]
    if not flat or set(map(type, flat)) != {float}:
        return [rnd_values(r) for r in rows]
    x = np.fromiter(flat, dtype=np.float64, count=len(flat))
    with np.errstate(all="ignore"):  # a huge or non-finite value is unsafe, and rounded by ``round``
        scaled = x * _SCALE
        whole = np.rint(scaled)
        off = np.abs(np.subtract(scaled, whole, out=scaled), out=scaled)  # within 0.5 of a whole
        unsafe = ~((off < 0.5 - 1e-6) & (np.abs(x) < _EXACT / _SCALE))
    out = np.divide(whole, _SCALE, out=whole).tolist()
    for i in np.flatnonzero(unsafe).tolist():
        out[i] = round(flat[i], 6)
    it = iter(out)
    return [dict(zip(r, islice(it, len(r)))) for r in rows]


def canonical_json(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def render_chunks(report: dict) -> Iterator[str]:
    """The report as printed and written, piece by piece: display's JSON (``json_chunks``),
    so a query's control characters are escaped (the same JSON value) rather than sent to
    the terminal."""
    yield from json_chunks(report, sort_keys=True, indent=2)
    yield "\n"


def render(report: dict) -> str:
    return "".join(render_chunks(report))


@gc_paused()
def write_report(path, report: dict, keep: bool = False) -> list[str]:
    """Written as it is encoded (a 20,000-query report is tens of MB of text: never held
    whole, nor again as bytes); the same bytes as ``render``. ``keep``: also return the text
    pieces (joined, ``render``'s text), for a caller that prints the report it wrote: the
    pure-Python encoder is a fifth of a large eval's time, so the report is encoded once.
    The cycle collector is paused: the encoder's containers make none, and each full pass
    would walk the whole report and its run."""
    kept: list[str] = []

    def encoded() -> Iterator[bytes]:
        for piece in render_chunks(report):
            if keep:
                kept.append(piece)
            yield piece.encode("utf-8")

    atomic_write_chunks(path, encoded())
    return kept


def make_fingerprint(*, chunker: str, max_chars: int | None, hit_rule: str, retriever: dict, ks: Sequence[int],
                     golden_set_digest: str, corpus_digest: str, chunking: dict, **more) -> dict:
    """``chunker``/``max_chars`` are the project's (they built the golden set); ``chunking``
    (``{name, digest}``) is what was scored: the project's chunks or a chunk file's; ``more``:
    anything else that decides the numbers (the judgments and ``condensed``, when used)."""
    fp = {"chunker": chunker, "max_chars": max_chars, "hit_rule": hit_rule, "retriever": retriever,
          "k": list(ks), "golden_set_digest": golden_set_digest, "corpus_digest": corpus_digest,
          "chunking": chunking, "tool_version": __version__, **more}
    fp["digest"] = hashlib.sha256(canonical_json(fp).encode("utf-8")).hexdigest()
    return fp


def stat(values: list[float], ci: tuple[float, float] | None) -> dict:
    """One aggregate ``{value, ci_low, ci_high, n}`` of per-query values and their interval."""
    return _stat(values, ci)


def _stat(values: list[float], ci: tuple[float, float] | Pending | None) -> dict:
    mean = math.fsum(values) / len(values) if values else None
    if isinstance(ci, Pending):  # asked inside bootstrap.gathered(): ``settle`` writes the bounds
        return {"value": rnd(mean), "ci_low": ci, "ci_high": ci, "n": len(values)}
    return {"value": rnd(mean), "ci_low": rnd(ci[0]) if ci else None, "ci_high": rnd(ci[1]) if ci else None,
            "n": len(values)}


def settle(tree):
    """``tree`` (aggregates, breakdowns: dicts and lists) with every interval asked inside
    ``bootstrap.gathered()`` written in, once that block has ended; returns ``tree``. A copied
    aggregate holds the same ``Pending``, so each copy is settled too."""
    if isinstance(tree, dict):
        ci = tree.get("ci_low")
        if isinstance(ci, Pending):
            tree["ci_low"], tree["ci_high"] = (rnd(ci.ci[0]), rnd(ci.ci[1])) if ci.ci else (None, None)
        else:
            for v in tree.values():
                settle(v)
    elif isinstance(tree, list):
        for v in tree:
            settle(v)
    return tree


def level_aggregate(scores: Sequence[QueryScore], level: str, ks: Sequence[int], samples: int,
                    seed: int) -> dict[str, dict]:
    """Mean, interval and n of every measure; multi-hop-only ones (``all@k``) over the multi-hop queries only."""
    ms = measures(ks)
    out: dict[str, dict] = {}
    groups = ((list(scores), [m.name for m in ms if not m.multi_only]),
              ([s for s in scores if s.multi], [m.name for m in ms if m.multi_only]))
    for subset, cols in groups:
        matrix = [[values[c] for c in cols] for values in (s.level(level) for s in subset)]
        cis = bootstrap_cis(matrix, samples, seed) if subset else [None] * len(cols)
        for j, col in enumerate(cols):
            out[col] = _stat([row[j] for row in matrix], cis[j])
    return out


def aggregate(scores: Sequence[QueryScore], ks: Sequence[int], samples: int, seed: int) -> dict:
    return {level: level_aggregate(scores, level, ks, samples, seed) for level in LEVELS}


def chars_aggregate(scores: Sequence[CharScore], ks: Sequence[int], budgets: Sequence[int], samples: int,
                    seed: int) -> dict[str, dict]:
    """``aggregate.chars``: mean, interval and n of each character metric (SPEC §8.1), by the
    same seeded bootstrap over queries as the chunk and doc levels."""
    names = char_metric_names(ks, budgets)
    matrix = [[s.values[n] for n in names] for s in scores]
    cis = bootstrap_cis(matrix, samples, seed) if scores else [None] * len(names)
    return {n: _stat([row[j] for row in matrix], cis[j]) for j, n in enumerate(names)}


def chunking_summary(chunking: Chunking, scores: Sequence[CharScore], unreachable: dict[str, int], samples: int,
                     seed: int) -> dict:
    """The top-level ``chunking`` object: what was scored, and its retriever-free ceiling."""
    omega = [s.precision_omega for s in scores]
    ci = bootstrap_cis([[v] for v in omega], samples, seed)[0] if omega else None
    mean = chunking.mean_chars
    return {"name": chunking.name, "digest": chunking.digest, "origin": chunking.origin,
            "n_chunks": chunking.n_chunks, "mean_chars": None if mean is None else round(mean, 1),
            "precision_omega": _stat(omega, ci), "unreachable_spans": sum(unreachable.values()),
            **({"located": chunking.located} if chunking.located is not None else {})}


def group_members(scores: Sequence[QueryScore], questions: dict) -> dict[str, dict[str, list[QueryScore]]]:
    """The queries of each split, tag (a query counts under each of its tags) and hop group, in
    score order: the groups of ``breakdowns``, and of any check made per group."""
    groups: dict[str, dict[str, list[QueryScore]]] = {"split": {}, "tag": {}, "hop": {}}
    for s in scores:
        q = questions[s.query_id]
        groups["split"].setdefault(q.split or "(none)", []).append(s)
        for tag in q.tags or ["(untagged)"]:
            groups["tag"].setdefault(tag, []).append(s)
        groups["hop"].setdefault(q.hop, []).append(s)
    return groups


def breakdowns(scores: Sequence[QueryScore], questions: dict, ks: Sequence[int], samples: int, seed: int,
               chunk_extra: Callable[[Sequence[QueryScore]], dict] | None = None) -> dict:
    """The aggregate again per split, per tag (a query counts under each of its tags) and per hop;
    ``chunk_extra(members)``: more chunk-level aggregates of each group (the runner's ``judged@k``,
    computed by the function that computes the report's, which lives above this module)."""
    groups = group_members(scores, questions)

    def group_aggregate(members: Sequence[QueryScore]) -> dict:
        agg = aggregate(members, ks, samples, seed)
        if chunk_extra is not None:
            agg["chunk"].update(chunk_extra(members))
        return agg

    # A group holding every query (one split, no tags, one hop: the common case) has the same
    # aggregate each time: bootstrapped once, copied into each such group.
    whole: dict | None = None
    out: dict[str, dict[str, dict]] = {kind: {} for kind in groups}
    for kind, by in groups.items():
        for name, members in sorted(by.items()):
            if len(members) == len(scores) and all(a is b for a, b in zip(members, scores)):
                whole = whole or group_aggregate(members)
                out[kind][name] = {level: {m: dict(s) for m, s in stats.items()} for level, stats in whole.items()}
            else:
                out[kind][name] = group_aggregate(members)
    return out


def diagnostics(chunk_agg: dict, ks: Sequence[int], shipped_k: int) -> list[dict]:
    """The ratio readings of the chunk-level recall curve: each says which stage to work on."""
    known = {k: v for k in ks if (v := chunk_agg.get(f"recall@{k}", {}).get("value")) is not None}

    def recall(k: int) -> float:
        """Only read after ``missing`` found the value."""
        return known[k]

    def missing(*need: int) -> str | None:
        lacking = [k for k in need if k not in ks]
        if lacking:
            return f"not computed: the k sweep lacks {', '.join(map(str, lacking))}"
        if any(k not in known for k in need):
            return "not computed: no scored queries"
        return None

    out: list[dict] = []
    why = missing(1, 10)
    if why is None and recall(10) == 0:
        why = "not computed: recall@10 is 0"
    if why:
        out.append({"check": "ranking_ratio", "value": None, "status": "n/a", "reading": why})
    else:
        ratio = recall(1) / recall(10)
        if ratio < RANKING_LOW:
            status, reading = "warn", ("answers are found but ranked low: ranking work (a reranker, fusion "
                                       "weights) is the cheapest gain")
        elif ratio > RANKING_HIGH:
            status, reading = "ok", ("ranking is already good: further gains must come from candidate "
                                     "generation (chunking, representation, ingestion)")
        else:
            status, reading = "ok", "between the bands: both ranking and candidate generation leave room"
        out.append({"check": "ranking_ratio", "value": rnd(ratio), "status": status,
                    "reading": f"recall@1 / recall@10 = {ratio:.2f}: {reading}"})
    why = missing(10, 50)
    if why:
        out.append({"check": "depth_gain", "value": None, "status": "n/a", "reading": why})
    else:
        gain = recall(50) - recall(10)
        if gain >= DEPTH_EXHAUSTED:
            status, reading = "ok", "deeper candidates still find answers that the top 10 miss"
        elif recall(50) >= FLOOR:
            status, reading = "ok", "little is left to find deeper: the top 10 already hold almost every answer"
        else:
            status, reading = "warn", ("depth is exhausted: answers not found by 10 are not found at all (a "
                                       "representation, chunking or ingestion problem, not a ranking one)")
        out.append({"check": "depth_gain", "value": rnd(gain), "status": status,
                    "reading": f"recall@50 - recall@10 = {gain:+.2f}: {reading}"})
    why = missing(50)
    if why:
        out.append({"check": "recall_floor", "value": None, "status": "n/a", "reading": why})
    else:
        ok = recall(50) >= FLOOR
        out.append({"check": "recall_floor", "value": rnd(recall(50)), "status": "ok" if ok else "fail",
                    "reading": f"recall@50 = {recall(50):.2f} " + (
                        f">= {FLOOR}: candidate generation keeps the answers" if ok else
                        f"< {FLOOR}: candidate generation loses answers for good; fix chunking, retrieval or "
                        "ingestion before tuning ranking or prompts")})
    why = missing(shipped_k, 50)
    if why:
        out.append({"check": "shipped_gap", "value": None, "status": "n/a", "reading": why})
    else:
        gap = recall(50) - recall(shipped_k)
        out.append({"check": "shipped_gap", "value": rnd(gap), "status": "ok",
                    "reading": f"recall@50 - recall@{shipped_k} = {gap:+.2f}: the share of answers retrieval "
                    f"finds but the shipped budget of {shipped_k} cuts"})
    return out


def negatives_diagnostic(negatives: list[dict], answerable_top: list[float]) -> dict:
    """How the scores negatives draw compare with answerable queries' top scores."""
    drawn = [n["top_score"] for n in negatives if n["top_score"] is not None]
    if not negatives or not answerable_top:
        return {"check": "negative_scores", "value": None, "status": "n/a",
                "reading": "not computed: needs both negatives and answerable queries"}
    median = sorted(answerable_top)[len(answerable_top) // 2]
    above = sum(1 for s in drawn if s >= median)
    reading = (f"{above} of {len(negatives)} negative(s) drew a top score >= the answerable queries' median top "
               f"score ({median:.3g})")
    reading += ": a score threshold could not abstain on those" if above else ": a score threshold could abstain"
    return {"check": "negative_scores", "value": rnd(above / len(negatives)), "status": "warn" if above else "ok",
            "reading": reading}


def retrieved_rows(hits, limit: int, shown) -> list[dict]:
    """The top ``limit`` hits; ``shown(chunk_id)``: its document and heading path (``ChunkPositions.shown``)."""
    rows = []
    for rank, h in enumerate(hits[:limit], 1):
        doc_id, heading_path = shown(h.chunk_id)
        rows.append({"rank": rank, "chunk_id": h.chunk_id, "doc_id": doc_id, "heading_path": heading_path,
                     "score": rnd(h.score)})
    return rows


def query_row(rec, score: QueryScore, hits, shipped_k: int, shown, chars: CharScore, unreachable: int,
              rounded: Sequence[dict] | None = None) -> dict:
    """``rounded``: the row's chunk, doc and chars values already rounded (``rnd_many`` over
    every row at once); None rounds them here."""
    q = rec.question
    chunk, doc, char_values = rounded or (rnd_values(score.chunk), rnd_values(score.doc), rnd_values(chars.values))
    row = {"query_id": q.id, "query": q.query, "hop": q.hop, "split": q.split, "tags": list(q.tags),
           "answer_spans": [s.as_json() for s in rec.spans], "answer_docs": score.answer_docs,
           "hit_ranks": score.hit_ranks, "doc_ranks": score.doc_ranks,
           "chunk": chunk, "doc": doc,
           "miss": any(r is None or r > shipped_k for r in score.hit_ranks),  # some span not in the top k
           "retrieved": retrieved_rows(hits, shipped_k, shown),
           "chars": char_values, "precision_omega": rnd(chars.precision_omega),
           "unreachable_spans": unreachable}
    return row


def query_values(scores: Sequence[QueryScore], chars: Sequence[CharScore]) -> list[tuple[dict, dict, dict]]:
    """Each query row's chunk, doc and chars values rounded (``query_row``'s ``rounded``), by one ``rnd_many``."""
    n = len(scores)
    flat = rnd_many([*(s.chunk for s in scores), *(s.doc for s in scores), *(c.values for c in chars)])
    return list(zip(flat[:n], flat[n:2 * n], flat[2 * n:]))


def negative_row(rec, hits, shipped_k: int, shown) -> dict:
    q = rec.question
    return {"query_id": q.id, "query": q.query, "split": q.split, "tags": list(q.tags),
            "top_score": rnd(hits[0].score) if hits else None, "retrieved": retrieved_rows(hits, shipped_k, shown)}


# -- baseline comparison --------------------------------------------------------------------


def read_report(path) -> dict:
    """A previous report for ``--baseline``: refused (exit 2) unless it is a v1 eval report."""
    data = read_regular_file(path, max_bytes=REPORT_MAX_BYTES, what="baseline report")
    try:
        report = parse_json(data, str(path))
    except InvalidInput as exc:
        raise InvalidInput(f"not a JSON eval report: {exc.reason}", path=str(path), line=exc.line) from None
    if not isinstance(report, dict) or report.get("schema") != SCHEMA:
        raise InvalidInput(f"not a {SCHEMA} report (schema: {report.get('schema') if isinstance(report, dict) else None!r})",
                           path=str(path))
    agg = report.get("aggregate")
    ok = (isinstance(report.get("fingerprint"), dict) and isinstance(report.get("queries"), list)
          and isinstance(agg, dict) and all(isinstance(agg.get(level), dict) for level in LEVELS)
          and all(isinstance(r, dict) and isinstance(r.get("query_id"), str)
                  and all(isinstance(r.get(level), dict) for level in LEVELS) for r in report["queries"]))
    if not ok:
        raise InvalidInput("malformed eval report: needs a fingerprint, chunk and doc aggregates and query rows "
                           "with chunk and doc metrics",
                           path=str(path))
    return report


def fingerprint_differences(baseline: dict, current: dict, prefix: str = "") -> list[dict]:
    """Differing fields, nested ones (the retriever's settings) named ``retriever.analyzer``."""
    out = []
    for key in sorted((set(baseline) | set(current)) - ({"digest"} if not prefix else set())):  # its own digest
        b, c = baseline.get(key), current.get(key)
        if isinstance(b, dict) and isinstance(c, dict):
            out.extend(fingerprint_differences(b, c, f"{prefix}{key}."))
        elif b != c:
            out.append({"field": prefix + key, "baseline": b, "current": c})
    return out


def chunk_blockers(baseline: dict, current: dict, diffs: list[dict]) -> list[str]:
    """Fingerprint fields whose difference makes the chunk-level numbers different quantities.

    The hit rule, and the chunking: its digest when both reports name one; a baseline from
    before chunkings were named scored its project's chunks, so it is compared by chunker and
    max_chars, and never with a chunk file's chunking."""
    fields = {d["field"] for d in diffs}
    out = [f for f in ("hit_rule",) if f in fields]
    b_fp, c_fp = baseline["fingerprint"], current["fingerprint"]
    if isinstance(b_fp.get("chunking"), dict) and isinstance(c_fp.get("chunking"), dict):
        if b_fp["chunking"].get("digest") != c_fp["chunking"].get("digest"):
            out.append("chunking")
    else:
        out += [f for f in ("chunker", "max_chars") if f in fields]
        if (current.get("chunking") or {}).get("origin") == "file":
            out.append("chunking")
    return out


def paired_deltas(cur_rows: dict, base_rows: dict, paired: list[str], level: str, names: Sequence[str],
                  samples: int, seed: int) -> dict[str, dict]:
    """Per metric: the mean paired delta (current - baseline) with its interval, over the
    queries that have the metric in both reports."""
    out = {}
    for name in names:
        ids = [q for q in paired if _num((cur_rows[q].get(level) or {}).get(name))
               and _num((base_rows[q].get(level) or {}).get(name))]
        cur = [[cur_rows[q][level][name]] for q in ids]
        base = [[base_rows[q][level][name]] for q in ids]
        ci = paired_delta_cis(cur, base, samples, seed)[0] if ids else None
        d = [c[0] - b[0] for c, b in zip(cur, base)]
        out[name] = {**_stat(d, ci), "baseline": _stat([b[0] for b in base], None)["value"],
                     "current": _stat([c[0] for c in cur], None)["value"]}
    return out


def compare(current: dict, baseline: dict, shipped_k: int, samples: int, seed: int) -> dict:
    """Paired per-query deltas (current - baseline) with bootstrap intervals.

    Fingerprint differences are listed, never hidden. A different hit rule or chunking
    (``chunk_blockers``) means the chunk-level numbers are different quantities: no chunk or
    doc deltas are computed and there is no verdict. The character metrics (SPEC §8.1) do
    not depend on either, so ``chars_deltas`` compares them whenever both reports have them
    — across chunkings too. Any other difference (retriever, corpus, golden set, tool) is
    what a comparison is for; the queries present in both reports are paired by id. The
    regression verdict: chunk-level recall at the shipped k dropped and the interval on the
    delta lies wholly below zero.
    """
    diffs = fingerprint_differences(baseline["fingerprint"], current["fingerprint"])
    out = {"baseline_fingerprint": baseline["fingerprint"].get("digest"), "fingerprint_differences": diffs,
           "gate_metric": f"chunk recall@{shipped_k}", "deltas": None, "regression": False}
    base_rows = {r["query_id"]: r for r in baseline["queries"]}
    cur_rows = {r["query_id"]: r for r in current["queries"]}
    paired = [qid for qid in cur_rows if qid in base_rows]
    base_chars = baseline["aggregate"].get("chars")
    if isinstance(base_chars, dict) and "chars" in current["aggregate"]:
        names = [n for n in current["aggregate"]["chars"] if n in base_chars]
        out["chars_deltas"] = paired_deltas(cur_rows, base_rows, paired, "chars", names, samples, seed)
    else:
        out["chars_deltas"] = None
    blocking = chunk_blockers(baseline, current, diffs)
    if blocking:
        also = "; the character metrics are compared (chars_deltas)" if out["chars_deltas"] is not None else ""
        out.update(comparable=False, reason=f"different {', '.join(blocking)}: the chunk-level numbers measure "
                   f"different quantities and are not compared{also}", paired=0)
        return out
    deltas = {level: paired_deltas(cur_rows, base_rows, paired, level,
                                   [n for n in current["aggregate"][level] if n in baseline["aggregate"][level]],
                                   samples, seed) for level in LEVELS}
    out.update(deltas=deltas, paired=len(paired), only_in_baseline=len(set(base_rows) - set(cur_rows)),
               only_in_current=len(set(cur_rows) - set(base_rows)))
    gate = deltas["chunk"].get(f"recall@{shipped_k}")
    if gate is None or gate["value"] is None:
        out.update(comparable=False, reason=f"recall@{shipped_k} is not in both reports' k sweeps or no query "
                   "is in both")
        return out
    out.update(comparable=True, reason=None,
               regression=gate["value"] < 0 and gate["ci_high"] is not None and gate["ci_high"] < 0)
    key = f"recall@{shipped_k}"
    changed = [{"query_id": q, "baseline": base_rows[q]["chunk"][key], "current": cur_rows[q]["chunk"][key]}
               for q in paired if _num(cur_rows[q]["chunk"].get(key)) and _num(base_rows[q]["chunk"].get(key))
               and cur_rows[q]["chunk"][key] != base_rows[q]["chunk"][key]]
    out["changed_queries"] = sorted(changed, key=lambda c: (c["current"] - c["baseline"], c["query_id"]))
    return out


def compare_with_mdd(current: dict, baseline: dict, shipped_k: int, samples: int,
                     seed: int) -> tuple[dict, list[float] | None]:
    """``compare``, plus the minimum detectable difference of the gate metric at 80% power
    (``power.mdd``) when the comparison measured like with like; and those per-query gate
    deltas (None otherwise), which ``eval --power`` reads. ``eval --baseline`` and
    ``runs compare`` both call this, so the two report the same numbers for the same runs."""
    comparison = compare(current, baseline, shipped_k, samples, seed)
    if comparison["deltas"] is None:
        return comparison, None
    key = f"recall@{shipped_k}"
    base = {r["query_id"]: r for r in baseline["queries"]}
    deltas = []
    for row in current["queries"]:
        b = (base.get(row["query_id"]) or {}).get("chunk") or {}
        if _num(b.get(key)) and _num(row["chunk"].get(key)):
            deltas.append(row["chunk"][key] - b[key])
    comparison["mdd"] = {"metric": f"chunk {key}", **mdd(deltas, samples, seed)}
    return comparison, deltas


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)
