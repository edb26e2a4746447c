"""What the eval report shows, computed once: the rows and cells both views render.

``labeller eval`` prints with Rich and the app's eval tab draws with Textual; each used to
walk the report dict on its own and pick metrics by string key, so the two could drift (a
metric added to one table and not the other, a different order, a different "no data").
Here each table is a list of plain rows built from the typed report (``report_model``),
with its cells already chosen and formatted; a view only lays them out and styles them.
"""

from __future__ import annotations

from dataclasses import dataclass

from labeller.diagnostics import listing
from labeller.eval.measures import FAMILIES
from labeller.eval.report_model import Aggregate, Comparison, Delta, EvalReport, QueryRow, Stat

CHAR_METRICS = ("recall", "precision", "iou")
MAX_TAG_ROWS = 12
# The paired deltas a comparison shows, per level: chunk level, then characters.
CHUNK_DELTAS = ("recall@", "mrr@")
CHARS_DELTAS = ("recall@", "iou@")


def value_text(s: Stat) -> str | None:
    """The value to three decimals (None: no data)."""
    return None if s.value is None else f"{s.value:.3f}"


def ci_text(s: Stat, sep: str = "–", digits: int = 2) -> str | None:
    """The interval (None when there is none)."""
    if s.ci_low is None or s.ci_high is None:
        return None
    return f"{s.ci_low:.{digits}f}{sep}{s.ci_high:.{digits}f}"


def inline(s: Stat) -> str:
    """``0.812 [0.70–0.90]`` on one line: a figure inside a sentence."""
    value = value_text(s)
    if value is None:
        return "no data"
    ci = ci_text(s)
    return value + (f" [{ci}]" if ci else "")


# The notes a reader of an eval needs beside its numbers, in the CLI's text report and the
# app's eval tab alike (issue 38: the app said "84 scored" of 93 with no word of the holdout).
PRECISION_OMEGA = "the precision a perfect retriever gets with these chunks"
ALL_AT_K = "all@k: every answer span of a multi-hop query retrieved by rank k (multi-hop records only)"


def scope_note(split: str | None, include_holdout: bool) -> str:
    """Which records were scored: the split, and whether the holdout split was left out."""
    return (f"split {split}" if split else "all splits") + (" incl. holdout" if include_holdout
                                                            else " (holdout excluded)")


def interval(s: Stat) -> str:
    """``0.812 [0.700, 0.900] n=40``: one table cell with its n."""
    value = value_text(s)
    if value is None:
        return f"no data (n={s.n})"
    ci = ci_text(s, ", ", 3)
    return f"{value} (n={s.n})" if ci is None else f"{value} [{ci}] n={s.n}"


def number(value: float | None) -> str:
    return "no data" if value is None else f"{value:.3f}"


def rank_text(rank: int | None) -> str:
    """Where an answer span was hit: ``rank 3``, or ``not retrieved``."""
    return f"rank {rank}" if rank is not None else "not retrieved"


def answer_ranks(q: QueryRow) -> str:
    """Each answer span's document and where it was hit: ``a.md (rank 3); b.md (not retrieved)``."""
    return "; ".join(f"{sp['doc_id']} ({rank_text(rank)})" for sp, rank in zip(q.answer_spans, q.hit_ranks))


def signed(value: float) -> str:
    """A difference, its sign always shown: ``+0.125``."""
    return f"{value:+.3f}"


def mdd_sentence(c: Comparison) -> str | None:
    """The smallest difference this paired comparison would likely detect (SPEC §11), as one
    sentence the text, Markdown and HTML views print alike (None: not computed)."""
    m = c.mdd
    if m is None or m.get("value") is None:
        return None
    return (f"minimum detectable difference in {m['metric']} at {m['power']:.0%} power: {m['value']:.3f} over "
            f"{m['n']} paired queries (a smaller true change is likely missed)")


def unplaced_sentence(u: dict, source: str = "the chunk file") -> str:
    """A chunk file's unplaced chunks (SPEC §10: every report says how many, and how many
    retrieved results were one of them) and the most they could change recall, as one sentence
    the text, Markdown and HTML views print alike; the chunks themselves are in the JSON report."""
    bound = u["recall_bound"]
    return (f"{u['chunks']} chunk(s) of {source} cannot be placed and were left out (they hit no span); "
            f"{u['retrieved']} retrieved result(s) were one of them, in {u['queries_affected']} quer(ies) within "
            f"the shipped k; placed, they could raise {bound['metric']} by at most {bound['max_increase']:.4f} "
            "(an upper bound: each could at most complete its query's recall)")


def power_sentence(p: dict) -> str:
    """``eval --power DELTA``'s answer: how many questions that difference needs, as one sentence."""
    needed = p["questions_needed"]
    return (f"power: to detect a difference of {p['delta']:g} in {p['metric']} with {p['power']:.0%} power "
            f"(alpha {p['alpha']:g}) takes " + (f"{needed} questions" if needed is not None else "(no data)")
            + f" (now {p['questions']}; variance: {p['variance']})")


def delta_verdict(d: Delta) -> str:
    """What one paired delta says: better or worse only when its interval excludes zero; an
    interval across zero is a change these queries cannot tell from resampling noise."""
    if d.ci_low is not None and d.ci_low > 0:
        return "better"
    if d.ci_high is not None and d.ci_high < 0:
        return "worse"
    return "no clear change"


@dataclass(frozen=True)
class GridRow:
    """One metric across the k sweep (the CLI's table): label, a stat per k, n."""

    label: str
    stats: list[Stat]
    n: int


@dataclass(frozen=True)
class PairRow:
    """One metric at one k, chunk and doc side by side (the app's table)."""

    name: str
    chunk: str
    doc: str


@dataclass(frozen=True)
class QueryLine:
    query_id: str
    first_rank: int | None
    recall: str
    mrr: str
    query: str


@dataclass(frozen=True)
class BreakdownRow:
    kind: str
    group: str
    values: list[Stat]
    n: int


@dataclass(frozen=True)
class MovedRow:
    """One query whose gate metric changed: its id, before, after and the difference."""

    query_id: str
    before: str
    after: str
    delta: str


MOVED_HEADER = ("id", "before", "after", "Δ")


def moved_rows(c: Comparison) -> list[MovedRow]:
    """The queries whose gate metric moved, in ``comparison.changed_queries``' order (most lost
    first, then by id): the rows ``eval --baseline --format markdown`` and ``runs compare``'s
    text and Markdown list (none: an empty list)."""
    moved = (c.model_extra or {}).get("changed_queries") or []
    return [MovedRow(m["query_id"], number(m["baseline"]), number(m["current"]), signed(m["current"] - m["baseline"]))
            for m in moved]


@dataclass(frozen=True)
class DeltaRow:
    name: str
    baseline: str
    current: str
    delta: str
    ci: str
    verdict: str


class ReportView:
    """The tables of one report, each computed on first use."""

    def __init__(self, report: EvalReport) -> None:
        self.report = report
        self.ks = report.fingerprint.k
        self.shipped = report.config.shipped_k

    # -- aggregates ---------------------------------------------------------------------

    def metric_grid(self, level: str) -> list[GridRow]:
        """Every registered measure family over the k sweep, in registration order."""
        agg = getattr(self.report.aggregate, level)
        rows = []
        for family in FAMILIES.implementations():
            stats = [agg[name] for k in self.ks if (name := family(k=k).name) in agg]
            if stats:
                rows.append(GridRow(family.label, stats, stats[0].n))
        return rows

    def judged_grid(self) -> list[GridRow]:
        """``judged@k`` over the k sweep (SPEC §11): how much of each top k someone judged."""
        agg = self.report.aggregate.chunk
        stats = [agg[f"judged@{k}"] for k in self.ks if f"judged@{k}" in agg]
        return [GridRow("judged", stats, stats[0].n)] if stats else []

    def metric_pairs(self) -> list[PairRow]:
        agg = self.report.aggregate
        return [PairRow(name, interval(s), interval(agg.doc[name]) if name in agg.doc else "")
                for name, s in agg.chunk.items()]

    def chars_grid(self) -> tuple[list[GridRow], list[GridRow]]:
        """Character metrics per k, then one row per budget (its one value)."""
        chars = self.report.aggregate.chars or {}
        per_k = [GridRow(f"chars {m}", [chars[f"{m}@{k}"] for k in self.ks], chars[f"{m}@{self.ks[0]}"].n)
                 for m in CHAR_METRICS]
        budgets = [GridRow(f"chars recall, budget {b}", [chars[f"recall@budget={b}"]],
                           chars[f"recall@budget={b}"].n) for b in self.report.config.budgets]
        return per_k, budgets

    def chars_pairs(self) -> list[tuple[str, str]]:
        chars = self.report.aggregate.chars or {}
        names = [f"{m}@{self.shipped}" for m in CHAR_METRICS] + [n for n in chars if "@budget=" in n]
        return [(name, interval(chars[name])) for name in names if name in chars]

    def recall_curve(self, level: str) -> list[tuple[int, float]]:
        """(position in the k sweep, recall@k) where there is a value: the app's plot."""
        agg = getattr(self.report.aggregate, level)
        return [(i, v) for i, k in enumerate(self.ks) if (v := agg[f"recall@{k}"].value) is not None]

    def breakdown_rows(self) -> tuple[list[str], list[BreakdownRow], int]:
        """Column names, one row per split, hop and tag, and how many tags were left out:
        with many tags only the weakest are listed, they are the ones to read. ``judged@k`` at
        the shipped k is a column when the groups have it (a run with judgments)."""
        deepest = max(self.ks)
        names = [f"recall@{self.shipped}", f"success@{self.shipped}", f"mrr@{deepest}"]
        every = [agg for by in self.report.breakdowns.values() for agg in by.values()]
        if every and all(f"judged@{self.shipped}" in agg.chunk for agg in every):
            names.append(f"judged@{self.shipped}")
        rows, hidden = [], 0
        for kind, groups in self.report.breakdowns.items():
            items: list[tuple[str, Aggregate]] = list(groups.items())
            if kind == "tag" and len(items) > MAX_TAG_ROWS:
                hidden = len(items) - MAX_TAG_ROWS
                items = sorted(items, key=lambda kv: (kv[1].chunk[names[0]].value, kv[0]))[:MAX_TAG_ROWS]
            for name, agg in items:
                rows.append(BreakdownRow(kind, name, [agg.chunk[m] for m in names], agg.chunk[names[0]].n))
        return names, rows, hidden

    # -- per query ----------------------------------------------------------------------

    def query_lines(self) -> list[QueryLine]:
        k = self.shipped
        return [QueryLine(q.query_id, q.first_rank, number(q.chunk[f"recall@{k}"]), number(q.chunk[f"mrr@{k}"]),
                          q.query) for q in self.report.queries]

    def misses(self) -> list[QueryRow]:
        return [q for q in self.report.queries if q.miss]

    def leak_rows(self) -> list[tuple[str, str]]:
        return [(f.path, ", ".join(f"{q.query_id} ({q.rank_in_top_k or '-'})" for q in f.quoted))
                for f in self.report.findings]

    # -- comparison ---------------------------------------------------------------------

    @staticmethod
    def delta_rows(deltas: dict[str, Delta], prefixes: tuple[str, ...]) -> list[DeltaRow]:
        return [DeltaRow(name, number(s.baseline), number(s.current), signed(s.value),
                         f"[{signed(s.ci_low)}, {signed(s.ci_high)}]", delta_verdict(s))
                for name, s in deltas.items()
                if name.startswith(prefixes) and s.value is not None and s.baseline is not None
                and s.current is not None and s.ci_low is not None and s.ci_high is not None]

    @property
    def comparison(self) -> Comparison | None:
        return self.report.comparison


# -- traffic-weighted estimates and the --subset (SPEC §14) ---------------------------------
#
# The report's ``traffic`` and ``subset`` objects, as the lines and rows every view shows: the
# text report, the Markdown comment, the HTML page and the app's Traffic tab. Tenant and
# stratum names come from a query log (untrusted): each view escapes them its own way.

SUBSET_COLUMNS = ("stratum", "taken", "of")


@dataclass(frozen=True)
class TrafficRow:
    """One stratum or tenant: the focus metric's weighted estimate, its interval, how many
    sampled queries it rests on, and whether its interval lies wholly below the rest's."""

    by: str
    group: str
    value: str
    ci: str
    n: int
    below: bool

    def cells(self) -> list[str]:
        """The row as ``traffic_columns``' text cells."""
        return [self.by, self.group, self.value, self.ci, str(self.n), "yes" if self.below else ""]


def traffic_lines(t: dict) -> list[str]:
    """What the weighted estimate says, as sentences: the estimate beside the unweighted mean of
    the same records, the estimator, and the tenants named below the rest (when any)."""
    focus = t["metric"]
    w, u = Stat.model_validate(t["weighted"][focus]), Stat.model_validate(t["unweighted"][focus])
    lines = [f"traffic-weighted {t.get('level', 'chunk')} {focus}: {inline(w)} over {t['records']} sampled queries "
             f"(unweighted {number(u.value)}; {t.get('authored_left_out', 0)} authored record(s) not in it)",
             f"estimator: {t['estimator']}"]
    if t["below_others"]:
        lines.append(f"below the rest of the traffic ({len(t['below_others'])} tenant(s)): "
                     + listing(t["below_others"], "tenants"))
    return lines


def traffic_columns(t: dict) -> tuple[str, ...]:
    """The header of the per-stratum and per-tenant table (the focus metric names its column)."""
    return ("by", "group", t["metric"], "95% interval", "n", "below rest")


def traffic_rows(t: dict) -> list[TrafficRow]:
    """Every stratum (by name), then every tenant, the weakest first (no data last, ties by
    name): with many tenants a bounded view shows the ones to read."""
    below = set(t["below_others"])

    def row(by: str, name: str, raw: dict) -> TrafficRow:
        s = Stat.model_validate(raw)
        return TrafficRow(by, name, number(s.value), ci_text(s, ", ", 3) or "-", s.n, by == "tenant" and name in below)

    tenants = sorted(t["tenants"].items(), key=lambda kv: (kv[1]["value"] is None, kv[1]["value"] or 0.0, kv[0]))
    return [row("stratum", h, s) for h, s in sorted(t["strata"].items())] + [row("tenant", n, s) for n, s in tenants]


def subset_sentence(s: dict) -> str:
    """``--subset N``: what was scored, and the smallest difference it still sees."""
    of = sum(v[1] for v in s["strata"].values())
    seen = f"{s['mdd']:.3f}" if s["mdd"] is not None else "(no data)"
    return (f"subset: {s['n']} of {of} records, stable and stratified over {len(s['strata'])} strata; minimum "
            f"detectable difference in {s['metric']} at {s['power']:.0%} power: {seen} ({s['variance']})")


def subset_rows(s: dict) -> list[list[str]]:
    """Each stratum of the subset (by name): how many records were taken of how many, as
    ``SUBSET_COLUMNS``' text cells."""
    return [[h, str(taken), str(of)] for h, (taken, of) in sorted(s["strata"].items())]
