"""The leak report ``golden-queries-quoted`` (SPEC §7): documents that quote two or more golden queries.

A document that contains a golden query word for word is the strongest match for it,
so it can take the top slot from the labelled answer without any metric failing. Such
a document is either a note *about* the evaluation (a leak) or the source the query
was written from (a missing label); only the author of the golden set can tell which,
so the report states the observation and both causes and never touches the exit code.

Every detail below trades recall for a report that stays quiet on a healthy corpus:
one quotation is what a document about a topic looks like, so one is never enough;
short queries match by chance, so they are not searched; one quotation of a long query
also matches any query it contains, so contained matches are dropped; a document that
answers the query contains its wording legitimately, so it is exempt; and text is
matched inside one indexed field of one chunk only, because joining fields or chunks
would let unrelated text on either side of a seam read as a quote.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import ahocorasick

from labeller.core.build import RecordResult
from labeller.core.chunkers import Chunk, get_chunker
from labeller.core.corpus import Document
from labeller.diagnostics import TEXT_LIMIT, listing, more_line, shorten
from labeller.display import visible_line

LEAK_CHECK = "golden-queries-quoted"
# Shorter queries appear in unrelated documents by chance and would only add noise to a
# count that the whole rule depends on; counted in code points, so CJK is not penalised.
MIN_NEEDLE_CODE_POINTS = 12
# The indexed fields of a chunk (SPEC §4), by attribute name: ``text`` is the body. They
# are exactly the fields BM25 searches, i.e. the text able to displace a labelled answer.
FIELDS = (("heading", "heading"), ("breadcrumb", "breadcrumb"), ("body", "text"))

_NON_SPACE = re.compile(r"\S+")  # re's \s is exactly str.isspace, the separator of str.split()


def normalise(text: str) -> str:
    """The one normalisation of both queries and corpus fields: whitespace runs (any
    Unicode whitespace, U+3000 included) become one space, ends trimmed, then lower case."""
    return " ".join(text.split()).lower()


@dataclass(frozen=True)
class Needle:
    """One normalised query text and every record (in file order) whose query has it.

    Records sharing a wording are one needle, or a single quotation of that wording
    would count twice and clear the two-quote threshold on its own.
    """

    text: str
    records: tuple[RecordResult, ...]

    @property
    def query_id(self) -> str:
        return self.records[0].question.id

    def exempt_in(self, doc_id: str) -> bool:
        """True if any record sharing the wording labels an answer in ``doc_id``: that
        document contains the wording because it is the answer (whole document, not just
        the labelled section, matching the per-document granularity of the rule)."""
        return any(span.doc_id == doc_id for rec in self.records for span in rec.spans)

    def rank_in(self, doc_id: str, ranks: Mapping[str, Mapping[str, int]] | None) -> int | None:
        """The document's best rank in the retrieved top k of any record sharing the wording."""
        if ranks is None:
            return None
        found = [ranks[r.question.id][doc_id] for r in self.records
                 if doc_id in ranks.get(r.question.id, {})]
        return min(found) if found else None


def needles(records: Sequence[RecordResult]) -> list[Needle]:
    """The golden queries that are searched for, folded by normalised text, in file order.

    Unanswerable records are golden queries too; having no spans, they are never exempt.
    """
    by_text: dict[str, list[RecordResult]] = {}
    for rec in records:
        text = normalise(rec.question.query)
        if len(text) >= MIN_NEEDLE_CODE_POINTS:
            by_text.setdefault(text, []).append(rec)
    return [Needle(text, tuple(recs)) for text, recs in by_text.items()]


def _automaton(needle_list: Sequence[Needle]) -> ahocorasick.Automaton:
    """One automaton for all needles; each word's value is (needle index, length)."""
    auto = ahocorasick.Automaton()
    for i, needle in enumerate(needle_list):
        auto.add_word(needle.text, (i, len(needle.text)))
    auto.make_automaton()
    return auto


def _matches(auto: ahocorasick.Automaton, normalised: str) -> Iterator[tuple[int, int, int]]:
    """``(needle index, start, end)`` of every (overlapping) match in one normalised field."""
    for last, (i, length) in auto.iter(normalised):
        yield i, last + 1 - length, last + 1


def _field_texts(chunk: Chunk) -> Iterator[tuple[str, str]]:
    for name, attr in FIELDS:
        yield name, getattr(chunk, attr)


def found_per_document(chunks: Iterable[Chunk], needle_list: Sequence[Needle]) -> dict[str, set[int]]:
    """Indexes of the needles found in each document: one automaton for all needles, one
    pass over each field of each chunk on its own (no field or chunk is ever joined)."""
    found: dict[str, set[int]] = {}
    if not needle_list:
        return found
    auto = _automaton(needle_list)
    for chunk in chunks:
        hits = {i for _, text in _field_texts(chunk) for i, _, _ in _matches(auto, normalise(text))}
        if hits:
            found.setdefault(chunk.doc_id, set()).update(hits)
    return found


def find_leaks(chunks: Iterable[Chunk], records: Sequence[RecordResult],
               ranks: Mapping[str, Mapping[str, int]] | None = None) -> list[dict]:
    """SPEC §7 findings over the whole corpus (every chunk, not only retrieved ones).

    ``records`` are the build's records in file order. ``ranks`` maps a query id to
    ``{doc_id: best 1-based rank of that document in the query's retrieved top k}``;
    without retrieval it is None and every ``rank_in_top_k`` is null.
    """
    needle_list = needles(records)
    findings = []
    for doc_id, hits in sorted(found_per_document(chunks, needle_list).items()):
        texts = {needle_list[i].text for i in hits}
        # A match explained by a longer one is not independent evidence; applied before the
        # exemption, as SPEC §7 orders it.
        kept = [needle_list[i] for i in hits
                if not any(needle_list[i].text in other and needle_list[i].text != other for other in texts)]
        kept = [n for n in kept if not n.exempt_in(doc_id)]
        if len(kept) >= 2:
            quoted = [{"query_id": n.query_id, "rank_in_top_k": n.rank_in(doc_id, ranks)}
                      for n in sorted(kept, key=lambda n: n.query_id)]
            findings.append({"check": LEAK_CHECK, "path": doc_id, "quoted": quoted})
    return findings


CLEAN = "no document quotes two or more golden queries"
"""What a leak scan with no finding says, in the CLI (``labeller leaks``) and the app's Leaks tab alike."""


def format_warning(findings: Sequence[dict], k: int | None = None, *, one_line: bool = False) -> str:
    """The human warning for stderr ("" when clean), shared by ``labeller leaks`` and ``eval``;
    the first ``diagnostics.TEXT_LIMIT`` documents, each with its first quoted queries.
    ``one_line``: only its first line, for ``--format json`` (whose JSON lists the findings).

    ``k`` is the retrieval depth when ranks were measured; a null rank then reads "not in
    top k". Without it (no retrieval ran) ranks are not mentioned at all, since null then
    says nothing about retrieval.
    """
    if not findings:
        return ""
    n = len(findings)
    lines = [f"warning: {LEAK_CHECK}: {n} document{'s' if n != 1 else ''} quote{'s' if n == 1 else ''} "
             "two or more golden queries word for word"]
    if one_line:
        return lines[0]
    for f in findings[:TEXT_LIMIT]:
        quoted = listing([_describe_quote(q, k) for q in f["quoted"]], "queries")
        lines.append(f"  {visible_line(shorten(f['path']))}: {quoted}")
    more = more_line(TEXT_LIMIT, n, "documents")
    if more:
        lines.append(f"  {more}")
    lines += [
        "  Each is one of two things, and only the golden set's author can tell which:",
        "  - a note about the evaluation: it leaks the queries into the corpus and can outrank the labelled",
        "    answers; move it out of the corpus (or exclude it) so the measurement stays honest;",
        "  - a source the queries were written from: the golden file should list it as an expected answer",
        "    (add a locator in it to those records).",
        "  Nothing was changed and the exit code is unaffected.",
    ]
    return "\n".join(lines)


def _describe_quote(q: dict, k: int | None) -> str:
    qid = visible_line(q["query_id"])
    if k is None:
        return qid
    rank = q["rank_in_top_k"]
    return f"{qid} (rank {rank})" if rank is not None else f"{qid} (not in top {k})"


@dataclass(frozen=True)
class LeakLocation:
    """Where one quoted query was found, for highlighting.

    ``start``/``end`` index ``text``, the field as the chunk holds it. ``doc_start``/
    ``doc_end`` are canonical offsets into the document when the match can be placed
    there: always for ``body``, for ``heading`` when the document is given (the title in
    its heading line), never for ``breadcrumb``, which is assembled (front-matter title or
    file name plus heading titles) and is not a slice of the document.
    """

    query_id: str
    doc_id: str
    field: str
    text: str
    start: int
    end: int
    doc_start: int | None
    doc_end: int | None


def leak_locations(chunks: Iterable[Chunk], finding: dict, records: Sequence[RecordResult],
                   docs: Mapping[str, Document] | None = None) -> list[LeakLocation]:
    """Every place in ``finding["path"]`` where one of its quoted queries' wording occurs.

    The same normalisation and automaton as the scan, so what is highlighted is exactly
    what was counted. A heading or breadcrumb shared by several chunks is reported once.
    """
    doc_id = finding["path"]
    wanted = {q["query_id"] for q in finding["quoted"]}
    needle_list = [n for n in needles(records) if n.query_id in wanted]
    if not needle_list:
        return []
    auto = _automaton(needle_list)
    doc = docs.get(doc_id) if docs is not None else None
    heading_lines = _heading_lines(doc) if doc is not None else []
    out: dict[LeakLocation, None] = {}
    for chunk in chunks:
        if chunk.doc_id != doc_id:
            continue
        for name, text in _field_texts(chunk):
            offsets = None
            for i, nstart, nend in _matches(auto, normalise(text)):
                if offsets is None:
                    offsets = _source_offsets(text)
                start, end = offsets[nstart], offsets[nend - 1] + 1
                base = _field_base(name, chunk, doc, heading_lines)
                out[LeakLocation(needle_list[i].query_id, doc_id, name, text, start, end,
                                 None if base is None else base + start,
                                 None if base is None else base + end)] = None
    return sorted(out, key=lambda loc: (loc.query_id, loc.doc_start is None, loc.doc_start or 0, loc.field,
                                        loc.start))


def _source_offsets(text: str) -> list[int]:
    """For each code point of ``normalise(text)``, the offset in ``text`` it comes from.

    Built per code point while ``normalise`` lowers the whole string at once: the only
    context rule of ``str.lower`` (final sigma) never changes a length, so the counts agree.
    """
    offsets: list[int] = []
    for m in _NON_SPACE.finditer(text):
        if offsets:
            offsets.append(m.start() - 1)  # the one space standing for the whitespace run
        for pos in range(m.start(), m.end()):
            offsets.extend([pos] * len(text[pos].lower()))
    return offsets


def _heading_lines(doc: Document) -> list[tuple[int, int]]:
    """Offsets ``[start, end)`` of the document's heading lines, as every chunker reads them
    (md-struct-v1's: SPEC §4). Among the lines md-struct-v1 leaves out of its chunks (headings,
    blank lines, thematic breaks) they are the ones that begin with ``#``."""
    return [(s, e) for s, e in get_chunker("md-struct-v1").unchunked_lines(doc) if doc.text.startswith("#", s)]


def _field_base(name: str, chunk: Chunk, doc: Document | None,
                heading_lines: list[tuple[int, int]]) -> int | None:
    """Document offset where the field's text starts, if the field is a slice of it."""
    if name == "body":
        return chunk.start
    if name != "heading" or doc is None:
        return None
    # The chunk's heading is the title of the last heading line starting before it (heading
    # lines lie in no chunk). A heading line is ``#``s, whitespace, the title, whitespace.
    k = bisect.bisect_right(heading_lines, (chunk.start, len(doc.text))) - 1
    if k < 0:
        return None
    start, end = heading_lines[k]
    line = doc.text[start:end].splitlines()[0]
    after = line.lstrip("#")
    if after.strip() != chunk.heading:
        return None
    return start + len(line) - len(after.lstrip())
