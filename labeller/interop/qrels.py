"""Relevance judgments, as TREC qrels and BEIR qrels files hold them.

Both formats judge corpus ids (chunk ids or document paths) per query id and keep the query
text elsewhere; this module groups the judgments and turns them into candidate records.
Their exports write ids into whitespace- or tab-separated lines, which ``tsv_field`` guards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from labeller.display import CONTROL, visible
from labeller.errors import InvalidInput
from labeller.interop.records import Candidate, Target


@dataclass
class Judgments:
    """qrels rows grouped by query id, in first-seen order: ``{qid: {corpus_id: relevance}}``."""

    rows: dict[str, dict[str, int]] = field(default_factory=dict)
    where: dict[str, str] = field(default_factory=dict)

    def add(self, qid: str, corpus_id: str, rel: str, where: str) -> None:
        try:
            value = int(rel)
        except ValueError:
            raise InvalidInput(f"{where}: relevance {rel!r} is not an integer") from None
        judged = self.rows.setdefault(qid, {})
        if corpus_id in judged:
            raise InvalidInput(f"{where}: query {qid!r} judges {corpus_id!r} twice")
        judged[corpus_id] = value
        self.where.setdefault(qid, where)

    def update(self, other: "Judgments") -> None:
        """Add another file's judgments (a query judged in two files is the caller's to flag)."""
        for qid, rows in other.rows.items():
            self.rows.setdefault(qid, {}).update(rows)
            self.where.setdefault(qid, other.where[qid])


def candidates_from_judgments(judgments: Judgments, queries: dict[str, tuple[str, str]],
                              extra: dict[str, dict] | None = None) -> tuple[list[Candidate], int]:
    """Records for every judged query: relevance > 0 labels a corpus id; a query judged only
    non-relevant is a negative. Returns the candidates (in the queries file's order, then
    judged ids the queries file lacks) and how many queries were never judged.

    ``extra`` holds per-query fields the format carries (labeller's own metadata in BEIR).
    """
    extra = extra or {}
    out: list[Candidate] = []
    for qid, (text, where) in queries.items():
        fields = dict(extra.get(qid, {}))
        negative = fields.get("unanswerable") is True
        if negative:
            del fields["unanswerable"]  # set again from ``negative`` once the record is built
        if qid not in judgments.rows:
            if negative:  # declared a negative by the file's own metadata
                out.append(Candidate(qid, text, where, negative=True, fields=fields))
            continue
        relevant = [cid for cid, rel in judgments.rows[qid].items() if rel > 0]
        out.append(Candidate(qid, text, where, [Target("corpus_id", ident=cid) for cid in relevant],
                             negative=not relevant, fields=fields))
    for qid, where in judgments.where.items():
        if qid not in queries:
            out.append(Candidate(qid, "?", where, skip=("no_query", "judged, but the queries file has no text "
                                                                    "for this id")))
    never = sum(1 for qid in queries if qid not in judgments.rows and not extra.get(qid, {}).get("unanswerable"))
    return out, never


def tsv_field(value: str, what: str, record_id: str) -> str:
    """An id written into a whitespace- or tab-separated file must not contain the separator,
    nor control, bidi or other invisible characters (``display.CONTROL``), which would reach
    whatever terminal the file is shown on: TSV has no escape, so they are refused."""
    if not value or any(ch.isspace() for ch in value) or CONTROL.search(value):
        raise InvalidInput(f"{what} {visible(value)!r} is empty or holds whitespace, control or invisible "
                           "characters, which this format cannot hold", record_id=record_id)
    return value
