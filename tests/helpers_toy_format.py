"""A toy format, written the way a new format is: one module ending with ``FORMAT = Format(...)``.

``quotes-tsv``: one label a line, ``id SEP query SEP doc SEP quote``; the lines of one id are
its locators. It declares options in both directions so that the tests can see the flags
appear in ``--help`` and reach ``read``/``export``.
"""

from __future__ import annotations

from pathlib import Path

from labeller.core.models import Locator
from labeller.interop.files import read_text
from labeller.interop.format import Exported, Format, Option
from labeller.interop.records import Candidate, Incoming, Target


def read(path: Path, project, options) -> Incoming:
    records: dict[str, Candidate] = {}
    lines = read_text(path, project.config.limits, "quotes file").split("\n")
    for n, line in enumerate(lines[1:] if options.skip_header else lines, start=2 if options.skip_header else 1):
        if not line:
            continue
        rid, query, doc, quote = line.split(options.separator)
        cand = records.setdefault(rid, Candidate(rid, query, f"{path}:{n}"))
        cand.targets.append(Target("locator", locator=Locator(doc=doc, quote=quote)))
    return Incoming(list(records.values()))


def export(project, result, options) -> Exported:
    rows = [options.separator.join(("id", "query", "doc", "quote"))] if options.header else []
    records = sorted(result.records, key=lambda r: r.question.id, reverse=options.order == "id-descending")
    for rec in records:
        for loc, span in zip(rec.question.locators, rec.spans):
            rows.append(options.separator.join((rec.question.id, rec.question.query, span.doc_id, loc.quote)))
    return Exported({"": "".join(r + "\n" for r in rows).encode("utf-8")}, [f"{len(rows)} line(s)"])


FORMAT = Format(
    "quotes-tsv", "one quote label a line: id, query, doc, quote", read=read, export=export,
    import_options=(Option("separator", "field separator of the toy file", default="\t", metavar="SEP"),
                    Option("skip-header", "the first line is a header", type=bool, default=False)),
    export_options=(Option("separator", "field separator of the toy file", default="\t", metavar="SEP"),
                    Option("header", "write a header line first", type=bool, default=False),
                    Option("order", "record order", default="id", choices=("id", "id-descending"))))
