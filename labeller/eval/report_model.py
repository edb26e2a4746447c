"""The eval report ``labeller.eval-report.v1`` as typed models: what code reads instead of string keys.

The JSON (SPEC §9) stays the contract: ``EvalReport.of(report)`` validates the dict the
runner builds, and ``EvalReport.json_value()`` gives back exactly the keys that were given
(``exclude_unset``: an optional key absent from the report — ``comparison``, ``located``,
``all@k`` of a single-hop query — stays absent, not ``null``), so rendering the model is
byte-identical to rendering the dict. Every model keeps unknown keys (``extra="allow"``):
SPEC §9 lets fields be added, and a baseline written by a newer labeller must round-trip.
Numbers are ``int | float`` where the report may hold either (a run file's integer score):
a field typed ``float`` would turn ``3`` into ``3.0`` and change the bytes.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

Num = int | float


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    def json_value(self) -> Any:
        """This part as its JSON value: the keys it was given, no more."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class Stat(_Part):
    """One aggregate: mean, bootstrap interval and n (``value`` null when ``n`` is 0)."""

    value: Num | None
    ci_low: Num | None
    ci_high: Num | None
    n: int


class Aggregate(_Part):
    """Per level, metric name (``recall@5``) -> its aggregate; ``chars`` is absent in a breakdown."""

    chunk: dict[str, Stat]
    doc: dict[str, Stat]
    chars: dict[str, Stat] | None = None

    def levels(self) -> dict[str, dict[str, Stat]]:
        """The rank-metric levels (``metrics.LEVELS``' order) by name."""
        return {"chunk": self.chunk, "doc": self.doc}


class Records(_Part):
    golden: int
    scored: int
    negatives: int
    not_selected: int


class Config(_Part):
    shipped_k: int
    bootstrap_samples: int
    seed: int
    confidence: Num
    split: str | None
    include_holdout: bool
    build_hit_rule: str
    retrieved_depth: int
    budgets: list[int] = []
    questions: str
    records: Records
    condensed: bool = False  # unjudged chunks dropped from each ranking first (trec_eval -J)
    judgments: dict[str, int] | None = None  # resolved, stale, relevant (SPEC §11)


class Fingerprint(_Part):
    chunker: str
    max_chars: int | None
    hit_rule: str
    retriever: dict[str, Any]
    k: list[int]
    golden_set_digest: str
    corpus_digest: str
    chunking: dict[str, Any] | None = None
    tool_version: str
    digest: str


class ChunkingSummary(_Part):
    name: str
    digest: str
    origin: str
    n_chunks: int
    mean_chars: Num | None
    precision_omega: Stat
    unreachable_spans: int
    located: dict[str, Any] | None = None
    unplaced: dict[str, Any] | None = None


class Diagnostic(_Part):
    check: str
    value: Num | None
    status: str
    reading: str


class Retrieved(_Part):
    rank: int
    chunk_id: str
    doc_id: str
    heading_path: str
    score: Num | None


class QueryRow(_Part):
    query_id: str
    query: str
    hop: str
    split: str | None
    tags: list[str]
    answer_spans: list[dict[str, Any]]
    answer_docs: list[str]
    hit_ranks: list[int | None]
    doc_ranks: list[int | None]
    chunk: dict[str, Num | None]
    doc: dict[str, Num | None]
    miss: bool
    retrieved: list[Retrieved]
    chars: dict[str, Num | None]
    precision_omega: Num | None
    unreachable_spans: int

    def levels(self) -> dict[str, tuple[dict[str, Num | None], list[int | None]]]:
        """Per rank-metric level (``metrics.LEVELS``' order): its values and its ranks."""
        return {"chunk": (self.chunk, self.hit_ranks), "doc": (self.doc, self.doc_ranks)}

    @property
    def first_rank(self) -> int | None:
        """The best rank at which any answer span was hit (None: a miss at every depth)."""
        ranks = [r for r in self.hit_ranks if r is not None]
        return min(ranks) if ranks else None


class NegativeRow(_Part):
    query_id: str
    query: str
    split: str | None
    tags: list[str]
    top_score: Num | None
    retrieved: list[Retrieved]


class Quoted(_Part):
    query_id: str
    rank_in_top_k: int | None = None


class Finding(_Part):
    check: str
    path: str
    quoted: list[Quoted]


class Delta(Stat):
    baseline: Num | None
    current: Num | None


class Comparison(_Part):
    baseline_fingerprint: str | None
    fingerprint_differences: list[dict[str, Any]]
    gate_metric: str
    deltas: dict[str, dict[str, Delta]] | None
    regression: bool
    chars_deltas: dict[str, Delta] | None
    comparable: bool
    reason: str | None
    paired: int
    mdd: dict[str, Any] | None = None  # minimum detectable difference at 80% power (eval.power)


class EvalReport(_Part):
    """The whole report; ``of`` validates the runner's dict, ``json_value`` gives it back."""

    schema_: str
    fingerprint: Fingerprint
    config: Config
    aggregate: Aggregate
    chunking: ChunkingSummary
    breakdowns: dict[str, dict[str, Aggregate]]
    diagnostics: list[Diagnostic]
    queries: list[QueryRow]
    negatives: list[NegativeRow]
    findings: list[Finding]
    comparison: Comparison | None = None
    power: dict[str, Any] | None = None  # ``eval --power DELTA``: questions that difference needs
    subset: dict[str, Any] | None = None  # ``eval --subset N``: the strata taken and the minimum detectable difference
    traffic: dict[str, Any] | None = None  # traffic-weighted estimates (SPEC §14, eval.weighted), when sampled records

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True,
                              alias_generator=lambda name: "schema" if name == "schema_" else name)

    @classmethod
    def of(cls, report: dict) -> EvalReport:
        return cls.model_validate(report)

