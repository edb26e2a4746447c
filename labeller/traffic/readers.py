"""Reading traffic where it is: a query log (JSONL, CSV, Parquet) or a trace export.

Logs are read through DuckDB, which streams a file of any size in batches (Parquet by row
group). The log is opened once with ``io.open_untrusted`` (a regular file, no symlink) and
DuckDB reads that very descriptor (``/dev/fd/N``), so the file checked is the file read.

A log repeats itself (the head of the traffic is a few queries asked millions of times), and
what the sampling pass does to a request (redact, normalise, fold, hash) depends only on its
logged values. So identical requests are counted here, a window of lines at a time, and each
comes out once with how often it was logged (``LogRow.times``) and its first line: the work is
done per distinct request. The window holds at most ``FOLD_DISTINCT`` distinct requests (then
it is handed on and begun again), so memory stays bounded whatever the log's variety; a
request repeated across windows comes out once per window, which changes nothing downstream
(counts add up, the first line is the smallest). The counting is in Python, not a DuckDB
``GROUP BY``, because a ``GROUP BY`` larger than memory spills to disk, and this is the
unredacted log: nothing of it may be written anywhere.

A trace export is OpenInference's: a RETRIEVER span carries the query in ``input.value`` and
what the pipeline retrieved in ``retrieval.documents.<i>.document.id`` / ``.content`` /
``.score``. Exporters lay that out three ways, and all are read: OTLP JSON lines (the
OpenTelemetry collector's file exporter: ``resourceSpans[].scopeSpans[].spans[]`` with
``attributes`` as ``[{key, value: {stringValue|intValue|doubleValue}}]``), one span object a
line with an ``attributes`` mapping (nested or dotted; Phoenix's span export), and
Phoenix's dataframe shape, where the attributes are top-level columns ``attributes.<name>``
and ``retrieval.documents`` is a list of ``{"document.id": ...}`` objects.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from labeller.config import TrafficConfig
from labeller.errors import InvalidInput
from labeller.io import open_regular_file, parse_json

MAX_LOG_BYTES = 1 << 44  # 16 TiB: a bound only against a device posing as a file; logs stream
MAX_SPAN_LINE = 64 << 20  # one exported line (a trace batch) at most
BATCH = 8192
FOLD_DISTINCT = 20_000  # distinct requests one counting window holds (see the module docstring)
FORMATS = ("jsonl", "csv", "parquet", "spans")
ROLES = ("query", "tenant", "feedback", "intent", "doc_ids", "doc_texts", "doc_scores")
_SUFFIX = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv", ".tsv": "csv",
           ".parquet": "parquet", ".pq": "parquet"}


@dataclass(frozen=True)
class Doc:
    id: str | None
    text: str | None
    score: float | None


class LogRow(NamedTuple):
    """One request of the log as read, or ``times`` identical ones (unredacted: the caller redacts
    before keeping any of it). A named tuple: one is made per distinct request of the log."""

    line: int  # 1-based, in the file's order (of the first of the ``times``)
    query: str
    tenant: str | None = None
    feedback: str | None = None
    intent: str | None = None
    docs: tuple[Doc, ...] = ()
    times: int = 1


def detect_format(path: Path, given: str | None) -> str:
    if given:
        return given
    fmt = _SUFFIX.get(path.suffix.lower())
    if fmt is None:
        raise InvalidInput(f"cannot tell the log's format from its name; give --format ({', '.join(FORMATS)})",
                           path=str(path))
    return fmt


def iter_rows(path: Path, fmt: str, columns: TrafficConfig) -> Iterator[LogRow]:
    """The log's requests in file order; blank queries are skipped (not requests)."""
    if fmt == "spans":
        yield from iter_spans(path, columns)
        return
    import duckdb

    with open_regular_file(path, max_bytes=MAX_LOG_BYTES, what="log") as fh:
        fd = fh.fileno()
        source = f"/dev/fd/{fd}" if os.path.exists(f"/dev/fd/{fd}") else str(path)
        con = duckdb.connect(config={"threads": 2, "memory_limit": "256MB", "enable_external_access": True})
        try:
            yield from _duck_rows(con, path, _scan(fmt, source), columns)
        except duckdb.Error as exc:
            said = str(exc).splitlines()[0].replace(f'"{source}"', "the log")  # DuckDB names the descriptor
            where = _first_bad_line(fh) if fmt == "jsonl" else None
            raise InvalidInput(f"cannot read the log as {fmt}: {where or said[:300]}", path=str(path)) from None
        finally:
            con.close()


def _first_bad_line(fh) -> str | None:
    """Where a JSONL log stops being one JSON object a line, as a person counts lines (DuckDB's
    own message counts one more, and names the descriptor it read): the line and why."""
    fh.seek(0)
    for n, raw in enumerate(fh, 1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except ValueError as exc:
            return f"line {n} is not JSON ({str(exc)[:200]})"
        if not isinstance(value, dict):
            return f"line {n} is a JSON {type(value).__name__}, not an object"
    return None


def _scan(fmt: str, source: str) -> str:
    lit = "'" + source.replace("'", "''") + "'"
    if fmt == "jsonl":
        return f"read_json({lit}, format='newline_delimited', maximum_object_size=16777216)"
    if fmt == "csv":
        return f"read_csv({lit}, header=true, all_varchar=true)"
    if fmt == "parquet":
        return f"read_parquet({lit})"
    raise InvalidInput(f"unknown log format {fmt!r}; formats: {', '.join(FORMATS)}")


def _duck_rows(con, path: Path, scan: str, columns: TrafficConfig) -> Iterator[LogRow]:
    described = {r[0]: r[1] for r in con.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()}
    have = list(described)
    wanted = {role: getattr(columns, role) for role in ROLES if getattr(columns, role) is not None}
    for role, name in sorted(wanted.items()):
        if name not in have:
            shown = ", ".join(have[:30]) + (" ..." if len(have) > 30 else "")
            raise InvalidInput(f"the log has no column {name!r} (mapped to {role}; set [traffic] {role} or "
                               f"--{role.replace('_', '-')}); its columns: {shown}", path=str(path))
    roles = list(wanted)
    select = ", ".join('"' + wanted[r].replace('"', '""') + '"' for r in roles)
    cur = con.execute(f"SELECT {select} FROM {scan}")
    # Text columns are their own identity; any other value (a list of passage ids, a number) is
    # told apart by its repr, which separates what == joins and prints apart (0.0 and -0.0)
    by_repr = any(described[wanted[r]] != "VARCHAR" for r in roles)
    line = 0
    window: dict[Any, list] = {}  # the values -> [first line, count, values]
    while batch := cur.fetchmany(BATCH):
        for values in batch:
            line += 1
            key = repr(values) if by_repr else values
            seen = window.get(key)
            if seen is None:
                window[key] = [line, 1, values]
            else:
                seen[1] += 1
        if len(window) >= FOLD_DISTINCT:
            yield from _counted(window, roles, path)
            window = {}
    yield from _counted(window, roles, path)


def _counted(window: dict[Any, list], roles: list[str], path: Path) -> Iterator[LogRow]:
    """The window's distinct requests as rows, in the order of their first lines (so a bad value
    is reported at its first line, as a line-by-line reader would); blank queries skipped."""
    at = {r: roles.index(r) for r in roles}
    q, t, f, i = at["query"], at.get("tenant"), at.get("feedback"), at.get("intent")
    has_docs = any(r in at for r in ("doc_ids", "doc_texts", "doc_scores"))
    for line, count, values in window.values():
        query = values[q]
        if query is None or not str(query).strip():
            continue
        yield LogRow(line, str(query), None if t is None else _text(values[t]),
                     None if f is None else _text(values[f]), None if i is None else _text(values[i]),
                     _docs(dict(zip(roles, values)), path, line) if has_docs else (), count)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _as_list(value: Any, path: Path, line: int, role: str) -> list:
    if value is None:
        return []
    if isinstance(value, str):  # a CSV cell: a JSON array, written as text
        try:
            parsed = parse_json(value, str(path), line)
        except InvalidInput:
            parsed = None
        if not isinstance(parsed, list):
            raise InvalidInput(f"the {role} column must hold a list (a JSON array in a CSV cell)", path=str(path),
                               line=line)
        return parsed
    if isinstance(value, (list, tuple)):
        return list(value)
    raise InvalidInput(f"the {role} column must hold a list, not {type(value).__name__}", path=str(path), line=line)


def _docs(row: dict, path: Path, line: int) -> tuple[Doc, ...]:
    ids = _as_list(row.get("doc_ids"), path, line, "doc_ids")
    texts = _as_list(row.get("doc_texts"), path, line, "doc_texts")
    scores = _as_list(row.get("doc_scores"), path, line, "doc_scores")
    n = max(len(ids), len(texts), len(scores))
    return tuple(Doc(_text(ids[i]) if i < len(ids) else None, _text(texts[i]) if i < len(texts) else None,
                     _score(scores[i]) if i < len(scores) else None) for i in range(n))


def _score(value: Any) -> float | None:
    try:
        return None if value is None or isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        return None


# -- OpenInference retriever spans ---------------------------------------------------------------

_DOC_KEY = re.compile(r"^retrieval\.documents\.(\d+)\.document\.(id|content|score)$")


def iter_spans(path: Path, columns: TrafficConfig) -> Iterator[LogRow]:
    """The RETRIEVER spans of a trace export, one ``LogRow`` each, in file order. ``[traffic]``
    ``tenant`` / ``feedback`` / ``intent`` name span (or resource) attributes here."""
    n = 0
    with open_regular_file(path, max_bytes=MAX_LOG_BYTES, what="trace export") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if len(raw) > MAX_SPAN_LINE:
                raise InvalidInput(f"a line over {MAX_SPAN_LINE} bytes", path=str(path), line=lineno)
            text = raw.decode("utf-8", errors="replace").strip()
            if not text:
                continue
            obj = parse_json(text, str(path), lineno)
            if not isinstance(obj, dict):
                raise InvalidInput("each line must be a JSON object (a span or an OTLP export)", path=str(path),
                                   line=lineno)
            for attrs in _spans_of(obj):
                if str(attrs.get("openinference.span.kind", "")).upper() != "RETRIEVER":
                    continue
                query = attrs.get("input.value")
                if not isinstance(query, str) or not query.strip():
                    continue
                n += 1
                tenant, feedback, intent = (_text(attrs.get(name)) if name else None
                                            for name in (columns.tenant, columns.feedback, columns.intent))
                yield LogRow(n, query, tenant, feedback, intent, _span_docs(attrs))


def _spans_of(obj: dict) -> Iterator[dict[str, Any]]:
    """Each span's attributes as one flat ``{dotted.key: value}`` (resource attributes under them)."""
    if "resourceSpans" in obj:
        for rs in obj.get("resourceSpans") or []:
            resource = _otlp_attrs((rs.get("resource") or {}).get("attributes"))
            for ss in rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []:
                for span in ss.get("spans") or []:
                    yield resource | _otlp_attrs(span.get("attributes"))
        return
    attrs = obj.get("attributes")
    flat: dict[str, Any] = {}
    if isinstance(attrs, list):
        flat = _otlp_attrs(attrs)
    elif isinstance(attrs, dict):
        _flatten(attrs, "", flat)
    for key, value in obj.items():  # Phoenix's dataframe columns: attributes.<name>
        if key.startswith("attributes."):
            _flatten({key.removeprefix("attributes."): value}, "", flat)
    if "span_kind" in obj and "openinference.span.kind" not in flat:
        flat["openinference.span.kind"] = obj["span_kind"]
    yield flat


def _otlp_attrs(attrs: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for a in attrs or []:
        if isinstance(a, dict) and isinstance(a.get("key"), str):
            _flatten({a["key"]: _otlp_value(a.get("value") or {})}, "", out)
    return out


def _otlp_value(v: dict) -> Any:
    for kind in ("stringValue", "doubleValue", "boolValue"):
        if kind in v:
            return v[kind]
    if "intValue" in v:
        return int(v["intValue"])  # OTLP JSON writes 64-bit integers as strings
    if "arrayValue" in v:
        return [_otlp_value(x) for x in (v["arrayValue"] or {}).get("values") or []]
    if "kvlistValue" in v:
        return {kv["key"]: _otlp_value(kv.get("value") or {}) for kv in (v["kvlistValue"] or {}).get("values") or []}
    return None


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    """Nested mappings and lists as dotted keys (a list item by its index), the way OpenInference
    flattens ``retrieval.documents``; a leaf keeps its value."""
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(v, f"{prefix}{k}." if prefix or k else prefix, out) if isinstance(v, (dict, list)) \
                else out.__setitem__(f"{prefix}{k}", v)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _flatten(v, f"{prefix}{i}.", out) if isinstance(v, (dict, list)) else out.__setitem__(f"{prefix}{i}", v)
    else:
        out[prefix.rstrip(".")] = value


def _span_docs(attrs: dict[str, Any]) -> tuple[Doc, ...]:
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        m = _DOC_KEY.match(key)
        if m:
            found.setdefault(int(m.group(1)), {})[m.group(2)] = value
    return tuple(Doc(_text(d.get("id")), _text(d.get("content")), _score(d.get("score")))
                 for _, d in sorted(found.items()))
