"""The sampling pass: a log of any size in, a queue of ``n`` folded queries out.

Each request is redacted and folded as it streams past (``redact``, ``normal``) and only then
kept, in a DuckDB table of the process's own (identical requests arrive counted, as one row:
``readers``; the work is per distinct request, the counts per request) (memory bounded by ``MEMORY_LIMIT``; what does
not fit spills to a private temporary folder, and what spills is already redacted). DuckDB
then folds the requests (``GROUP BY`` fold key and tenant: frequency summed, the first-seen
phrasing kept) and places every folded query in its band by the traffic ahead of it (a
window sum). Two passes over the folded queries follow, streamed from DuckDB: the first counts each
cell (the allocation needs the sizes), the second draws with a reservoir per cell that keeps
the ``n_h`` smallest seeded hash priorities (``design.priority``), so memory is the sample's
size, and the result is the warehouse SQL's (docs/traffic.md), row for row.

Queries of the golden set, and their near-duplicates (the same fold key), are left out
before anything is counted: they are labelled already. The report says how much traffic
that was.
"""

from __future__ import annotations

import hashlib
import heapq
import hmac
import json
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from labeller.config import TrafficConfig
from labeller.display import json_dumps
from labeller.traffic.design import Cell, allocate, band, cell_factor, cell_name, priority, split_of
from labeller.traffic.normal import fold_key, normalise
from labeller.traffic.queue import QueueItem, Retrieved
from labeller.traffic.readers import LogRow
from labeller.traffic.redact import Redactor

MEMORY_LIMIT = "512MB"
INSERT_BATCH = 50_000


@dataclass
class Sampled:
    items: list[QueueItem]
    report: dict = field(default_factory=dict)


def salted_hash(salt: bytes, text: str) -> str:
    """HMAC-SHA256 of the raw query keyed by the salt, 32 hex digits (docs/traffic.md)."""
    return hmac.digest(salt, text.encode("utf-8", "surrogatepass"), "sha256").hex()[:32]


def sample(rows: Iterable[LogRow], *, n: int, seed: int, cfg: TrafficConfig, golden_keys: frozenset[str],
           redact: Redactor | None, salt: bytes) -> Sampled:
    """Draw the queue (see the module docstring). ``redact`` None: the text is kept as logged
    (``--no-redact``, the command line's choice only)."""
    import duckdb

    def keep(text: str, times: int) -> str:
        return text if redact is None else redact(text, times)

    column = cfg.stratify_by if cfg.stratify_by in ("tenant", "intent") else None  # feedback: the |negative cell
    negatives = {v.casefold() for v in cfg.negative_feedback}
    with tempfile.TemporaryDirectory(prefix="labeller-traffic-") as spill:
        con = duckdb.connect(config={"threads": 2, "memory_limit": MEMORY_LIMIT, "temp_directory": spill,
                                     "preserve_insertion_order": False})
        try:
            con.execute("CREATE TABLE lines (line BIGINT, n BIGINT, key VARCHAR, query VARCHAR, tenant VARCHAR, "
                        "intent VARCHAR, neg BOOLEAN, hash VARCHAR, docs VARCHAR)")
            counts = {"requests": 0, "golden_requests": 0}
            batch: list[tuple] = []

            def flush() -> None:
                if not batch:
                    return
                cols = list(zip(*batch))
                data = {name: np.array(values, dtype=object) for name, values in
                        zip(("line", "n", "key", "query", "tenant", "intent", "neg", "hash", "docs"), cols)}
                data["line"] = np.array(cols[0], dtype=np.int64)
                data["n"] = np.array(cols[1], dtype=np.int64)
                data["neg"] = np.array(cols[6], dtype=bool)
                con.register("incoming", data)
                con.execute("INSERT INTO lines SELECT * FROM incoming")
                con.unregister("incoming")
                batch.clear()

            for row in rows:
                times = row.times
                counts["requests"] += times
                text = normalise(keep(row.query, times))
                key = fold_key(text)
                if key in golden_keys:
                    counts["golden_requests"] += times
                    continue
                fb = row.feedback
                neg = fb is not None and fb.strip().casefold() in negatives
                docs = json_dumps([{"id": d.id, "text": None if d.text is None else keep(d.text, times),
                                    "score": d.score} for d in row.docs]) if row.docs else None
                # written (and named) as given: redacted too
                tenant = None if row.tenant is None else keep(row.tenant, times)
                intent = None if row.intent is None else keep(row.intent, times)
                batch.append((row.line, times, key, text, tenant, intent, neg, salted_hash(salt, row.query), docs))
                if len(batch) >= INSERT_BATCH:
                    flush()
            flush()
            return _draw(con, n=n, seed=seed, cfg=cfg, column=column, counts=counts)
        finally:
            con.close()


def _draw(con, *, n: int, seed: int, cfg: TrafficConfig, column: str | None, counts: dict) -> Sampled:
    con.execute("CREATE TABLE units AS SELECT key, tenant, sum(n)::BIGINT AS freq, bool_or(neg) AS neg, "
                "arg_min(query, line) AS query, arg_min(hash, line) AS hash, arg_min(docs, line) AS docs, "
                "arg_min(intent, line) AS intent FROM lines GROUP BY key, tenant")
    con.execute("DROP TABLE lines")
    total = con.execute("SELECT coalesce(sum(freq), 0), count(*) FROM units").fetchone()
    traffic, n_units = int(total[0]), int(total[1])
    sizes: dict[str, list[int]] = {}  # cell -> [folded queries, requests]
    for cell, freq, _ in _cells(con, cfg, column, traffic):  # the first pass: how big each cell is
        c = sizes.setdefault(cell, [0, 0])
        c[0] += 1
        c[1] += freq
    cells = [Cell(name, u, t, cell_factor(name, cfg.tail_factor, cfg.negative_factor))
             for name, (u, t) in sorted(sizes.items())]
    take = allocate(cells, n)
    reservoirs: dict[str, list[tuple[_Desc, tuple]]] = {}  # cell -> the kept, largest priority on top
    # the second pass: a reservoir per cell
    for cell, _, r in _cells(con, cfg, column, traffic, "key, tenant, freq, neg, query, hash, docs, intent"):
        k = take[cell]
        if k == 0:
            continue
        p = priority(seed, r[0] + "\0" + (r[1] or ""))
        heap = reservoirs.setdefault(cell, [])
        if len(heap) < k:
            heapq.heappush(heap, (_Desc(p), r))
        elif p < heap[0][0].value:
            heapq.heapreplace(heap, (_Desc(p), r))
    items = []
    for cell, heap in sorted(reservoirs.items()):
        pi = round(take[cell] / sizes[cell][0], 12)
        for _, (key, tenant, freq, neg, query, hsh, docs, intent, *_rest) in heap:
            items.append(QueueItem(
                id="t-" + hashlib.sha256(f"{key}\0{tenant or ''}".encode("utf-8")).hexdigest()[:12], query=query,
                key=key, frequency=freq, stratum=cell, pi=pi, split=split_of(key, cfg.splits), log_hash=hsh,
                tenant=tenant, intent=intent, negative=bool(neg),
                retrieved=[Retrieved(**d) for d in json.loads(docs)] if docs else []))
    items.sort(key=lambda it: (it.stratum, it.id))
    strata = {c.name: {"units": c.units, "traffic": c.traffic, "traffic_share": round(c.traffic / traffic, 6),
                       "factor": c.factor, "sampled": take[c.name],
                       "pi": round(take[c.name] / c.units, 12)} for c in cells}
    report = {"requests": counts["requests"], "golden_requests_left_out": counts["golden_requests"],
              "folded_queries": n_units, "sampled": len(items), "seed": seed, "strata": strata}
    return Sampled(items, report)


def _cells(con, cfg: TrafficConfig, column: str | None, traffic: int,
           fields: str = "NULL") -> Iterator[tuple[str, int, tuple]]:
    """Every folded query's cell and frequency, and its ``fields``, streamed: the band from the
    traffic ahead of it (a window sum in DuckDB), the cell from ``design`` (the one definition of
    both). The counting pass asks for no fields: a text fetched is a Python string made."""
    cur = con.cursor().execute(
        "SELECT freq, neg, " + (column or "NULL") + ", coalesce(sum(freq) OVER (ORDER BY freq DESC, key, tenant "
        "NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0), " + fields + " FROM units")
    head, torso = cfg.head_share, cfg.torso_share
    while batch := cur.fetchmany(INSERT_BATCH):
        for r in batch:
            yield cell_name(band(r[3], traffic, head, torso), bool(r[1]), column, None if column is None else r[2]), \
                r[0], r[4:]


class _Desc:
    """A priority ordered the other way round, so ``heapq`` (a min-heap) keeps the largest of the
    kept priorities on top: the one a smaller newcomer replaces."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __lt__(self, other: "_Desc") -> bool:
        return self.value > other.value
