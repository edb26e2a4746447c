"""Stale labels: which refused records were broken by a corpus change since the last build.

The committed artifact and manifest are read with the core's own readers
(``labeller.core.check``, what ``build --check`` compares against); a damaged file only
means fewer records are recognised as stale, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from typing import TYPE_CHECKING

from labeller.config import ProjectConfig
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.io import parse_json

if TYPE_CHECKING:  # the build is imported when the committed state is first read (a worker)
    from labeller.core.build import RecordResult


@dataclass
class CommittedState:
    """What the last committed build said: which documents changed since, and which
    documents each record's spans were in. A record is *stale* when it fails to resolve
    now and one of its committed documents changed or disappeared."""

    changed_docs: set[str] = field(default_factory=set)
    record_docs: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def read(cls, config: ProjectConfig, project: Project) -> "CommittedState":
        from labeller.core.check import committed_records, read_committed

        layout = config.layout
        try:
            manifest_bytes = read_committed(layout.manifest)
            if manifest_bytes is None:
                return cls()
            manifest = parse_json(manifest_bytes, str(layout.manifest))
            committed = committed_records(read_committed(layout.artifact) or b"", [], layout.artifact)
        except (OSError, InvalidInput):
            return cls()
        docs = manifest.get("docs") if isinstance(manifest, dict) else None
        if not isinstance(docs, dict):
            docs = {}
        corpus = project.corpus
        changed = {d for d, info in docs.items()
                   if d not in corpus or not isinstance(info, dict) or corpus[d].sha256 != info.get("sha256")}
        record_docs: dict[str, set[str]] = {}
        for rid, rec in committed.items():
            try:
                record_docs[rid] = {str(s["doc_id"]) for s in rec["answer_spans"]}
            except (KeyError, TypeError):
                continue
        return cls(changed, record_docs)

    def is_stale(self, record_id: str, result: RecordResult | None) -> bool:
        return bool(result is not None and result.refusals
                    and self.record_docs.get(record_id, set()) & self.changed_docs)
