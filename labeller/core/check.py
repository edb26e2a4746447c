"""``build --check``: rebuild in memory and say exactly what differs from the committed files.

Byte comparison decides; the diff of records and documents is there so the author knows
which labels rotted and which corpus edit did it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from labeller.config import MAX_RECORDS
from labeller.core.build import BuildResult, artifact_record
from labeller.core.committed import read_committed
from labeller.diagnostics import Bounded
from labeller.errors import InvalidInput
from labeller.io import iter_jsonl, parse_json, refuse_many_lines


@dataclass
class Drift:
    artifact_ok: bool
    manifest_ok: bool
    problems: Bounded[str] = field(default_factory=Bounded)  # a planted artifact may have a million bad lines
    records_changed: list[str] = field(default_factory=list)
    records_added: list[str] = field(default_factory=list)
    records_removed: list[str] = field(default_factory=list)
    docs_changed: list[str] = field(default_factory=list)
    docs_added: list[str] = field(default_factory=list)
    docs_removed: list[str] = field(default_factory=list)
    settings_changed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.artifact_ok and self.manifest_ok

    def as_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items()} | {"ok": self.ok, "problem_count": self.problems.total}


def committed_records(data: bytes, problems: list[str], path: Path = Path("artifact")) -> dict[str, dict]:
    """The records of a committed artifact by query id; a damaged line is a problem, not a crash.
    One of more lines than a golden set can have records (``MAX_RECORDS``) is refused before
    any is parsed (``InvalidInput``): 8 MB of newlines took 28 s, the 512 MiB bound half an hour.

    The app reads the same records to tell which documents each label was in (stale labels)."""
    refuse_many_lines(data, path, MAX_RECORDS, "committed golden-set artifact")
    out = {}
    for jl in iter_jsonl(data, "artifact"):
        if jl.skipped:
            continue
        if jl.error is None and isinstance(jl.value, dict) and "query_id" in jl.value:
            out[str(jl.value["query_id"])] = jl.value
        else:
            problems.append(f"artifact line {jl.line} is not a valid record (truncated or hand-edited?)")
    return out


def check(result: BuildResult, artifact_path: Path, manifest_path: Path) -> Drift:
    fresh_artifact, fresh_manifest = result.artifact_bytes(), result.manifest_bytes()
    old_artifact, old_manifest = read_committed(artifact_path), read_committed(manifest_path)
    drift = Drift(artifact_ok=old_artifact == fresh_artifact, manifest_ok=old_manifest == fresh_manifest)
    if old_artifact is None:
        drift.problems.append(f"{artifact_path} is missing")
    elif not drift.artifact_ok:
        if not old_artifact.endswith(b"\n"):
            drift.problems.append("the artifact does not end with a newline (truncated?)")
        old = {i: json.dumps(rec, ensure_ascii=False, sort_keys=True)
               for i, rec in committed_records(old_artifact, drift.problems, artifact_path).items()}
        new = {r.question.id: json.dumps(artifact_record(r, result.manifest), ensure_ascii=False, sort_keys=True)
               for r in result.records}
        drift.records_added = [i for i in new if i not in old]
        drift.records_removed = [i for i in old if i not in new]
        drift.records_changed = [i for i in new if i in old and old[i] != new[i]]
        if not (drift.records_added or drift.records_removed or drift.records_changed):
            drift.problems.append("records are equal but the bytes differ (order or formatting changed)")
    if old_manifest is None:
        drift.problems.append(f"{manifest_path} is missing")
    elif not drift.manifest_ok:
        try:
            old_m = parse_json(old_manifest)
        except InvalidInput:
            old_m = None
        if not isinstance(old_m, dict):
            drift.problems.append("the committed manifest is not valid JSON")
            old_m = {}
        new_m = result.manifest
        old_docs, new_docs = old_m.get("docs", {}) or {}, new_m["docs"]
        drift.docs_added = sorted(d for d in new_docs if d not in old_docs)
        drift.docs_removed = sorted(d for d in old_docs if d not in new_docs)
        drift.docs_changed = sorted(d for d in new_docs if d in old_docs and old_docs[d] != new_docs[d])
        drift.settings_changed = sorted(k for k in new_m if k != "docs" and old_m.get(k) != new_m[k])
    return drift
