"""``build --check``: rebuild in memory and say exactly what differs from the committed files.

Byte comparison decides; the diff of records and documents is there so the author knows
which labels rotted and which corpus edit did it, and the changed records are split into the
classes of ``drift_classes`` so that the few whose answer text changed are not lost among the
many whose offsets or chunk ids merely moved.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from labeller.config import MAX_RECORDS
from labeller.core.build import BuildResult, artifact_record
from labeller.core.committed import read_committed
from labeller.core.corpus import Corpus
from labeller.core.drift_classes import DriftClasses, OldTexts, classify
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
    classes: DriftClasses = field(default_factory=DriftClasses)  # records_changed, each in one class

    @property
    def ok(self) -> bool:
        return self.artifact_ok and self.manifest_ok

    def change_rows(self) -> list[tuple[str, list[str]]]:
        """What the text and Markdown reports list, in this order and only when not empty: the
        records a person must re-read first (SPEC §13), then the rest."""
        rows = [("records added", self.records_added), ("records removed", self.records_removed),
                ("docs changed", self.docs_changed), ("docs added", self.docs_added),
                ("docs removed", self.docs_removed), ("settings changed", self.settings_changed)]
        return self.classes.rows() + [(label, items) for label, items in rows if items]

    def as_json(self) -> dict:
        """The fields as they are, the classes' lists beside them (``answer_text_changed``,
        ``answer_text_not_comparable``, ``edited_only``, ``derived_only``) and their counts."""
        plain = {k: v for k, v in self.__dict__.items() if k != "classes"}
        return plain | self.classes.as_json() | {"ok": self.ok, "problem_count": self.problems.total}


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


def check(result: BuildResult, artifact_path: Path, manifest_path: Path,
          corpus: Callable[[], Corpus] | None = None, old_texts: OldTexts | None = None) -> Drift:
    """What differs; given the corpus the build read (``corpus()``, called only when records
    changed), the changed records' classes too (``old_texts``: where the committed build's
    changed documents may be found; without ``corpus`` every changed record is not comparable)."""
    fresh_artifact, fresh_manifest = result.artifact_bytes(), result.manifest_bytes()
    old_artifact, old_manifest = read_committed(artifact_path), read_committed(manifest_path)
    drift = Drift(artifact_ok=old_artifact == fresh_artifact, manifest_ok=old_manifest == fresh_manifest)
    # the committed build's manifest: what pins the documents its spans were taken from
    old_m = (result.manifest if drift.manifest_ok else
             {} if old_manifest is None else _committed_manifest(old_manifest, drift.problems))
    if old_artifact is None:
        drift.problems.append(f"{artifact_path} is missing")
    elif not drift.artifact_ok:
        if not old_artifact.endswith(b"\n"):
            drift.problems.append("the artifact does not end with a newline (truncated?)")
        old_recs = committed_records(old_artifact, drift.problems, artifact_path)
        new_recs = {r.question.id: artifact_record(r, result.manifest) for r in result.records}
        drift.records_added = [i for i in new_recs if i not in old_recs]
        drift.records_removed = [i for i in old_recs if i not in new_recs]
        drift.records_changed = _changed(old_recs, new_recs)
        if not (drift.records_added or drift.records_removed or drift.records_changed):
            drift.problems.append("records are equal but the bytes differ (order or formatting changed)")
        drift.classes = (classify(drift.records_changed, old_recs, new_recs, corpus(), old_m, old_texts)
                         if corpus is not None and drift.records_changed else DriftClasses(not_comparable=list(drift.records_changed)))
    if old_manifest is None:
        drift.problems.append(f"{manifest_path} is missing")
    elif not drift.manifest_ok:
        new_m = result.manifest
        old_docs, new_docs = old_m.get("docs", {}), new_m["docs"]
        drift.docs_added = sorted(d for d in new_docs if d not in old_docs)
        drift.docs_removed = sorted(d for d in old_docs if d not in new_docs)
        drift.docs_changed = sorted(d for d in new_docs if d in old_docs and old_docs[d] != new_docs[d])
        drift.settings_changed = sorted(k for k in new_m if k != "docs" and old_m.get(k) != new_m[k])
    return drift


def beside_refusals(result: BuildResult, artifact_path: Path, manifest_path: Path, corpus: Corpus,
                    old_texts: OldTexts | None = None) -> DriftClasses:
    """The classes of a refused build's records that still resolve and differ from the committed
    artifact.

    A refused build has no artifact to compare, so ``check`` never ran on one, and a pull
    request that broke one label hid every answer text it changed elsewhere until that label
    was fixed: the reviewer saw one refusal and approved the rest unread. The labels that
    resolve are compared as ``check`` compares them; refused and new records are not (a refused
    one has no span, a new one nothing committed). A damaged committed artifact or manifest is
    the clean check's to report: its unreadable lines are simply not compared here."""
    old_artifact = read_committed(artifact_path)
    if old_artifact is None:
        return DriftClasses()
    problems: Bounded[str] = Bounded()
    old_recs = committed_records(old_artifact, problems, artifact_path)
    new_recs = {r.question.id: artifact_record(r, result.manifest) for r in result.records if not r.refusals}
    changed = _changed(old_recs, new_recs)
    if not changed:
        return DriftClasses()
    old_manifest = read_committed(manifest_path)
    old_m = {} if old_manifest is None else _committed_manifest(old_manifest, problems)
    return classify(changed, old_recs, new_recs, corpus, old_m, old_texts)


def _changed(old_recs: dict[str, dict], new_recs: dict[str, dict]) -> list[str]:
    """The ids in both whose records differ as JSON (``1`` and ``1.0``, ``true`` and ``1`` differ
    there, not as Python values), in the new artifact's order."""
    def dumped(rec: dict) -> str:
        return json.dumps(rec, ensure_ascii=False, sort_keys=True)
    return [i for i in new_recs if i in old_recs and dumped(old_recs[i]) != dumped(new_recs[i])]


def _committed_manifest(data: bytes, problems: Bounded[str]) -> dict:
    """The committed manifest parsed, its ``docs`` an object of objects; a damaged one is a
    problem (drift, which a build repairs) and reads as ``{}``, never a crash: a ``docs`` list
    or number reached ``old_docs[d]`` and exited 3."""
    try:
        manifest = parse_json(data)
    except InvalidInput:
        manifest = None
    if not isinstance(manifest, dict):
        problems.append("the committed manifest is not valid JSON")
        return {}
    docs = manifest.get("docs", {})
    if not isinstance(docs, dict) or not all(isinstance(info, dict) for info in docs.values()):
        problems.append("the committed manifest's \"docs\" is not an object of one object per document")
        return {k: v for k, v in manifest.items() if k != "docs"}
    return manifest
