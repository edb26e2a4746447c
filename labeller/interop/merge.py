"""Merging imported records into questions.jsonl, in memory; the caller saves atomically."""

from __future__ import annotations

from dataclasses import dataclass, field

from labeller.core.models import Question
from labeller.core.project import Project
from labeller.core.questions import QuestionsFile, load_questions, prepare_questions
from labeller.errors import InvalidInput


@dataclass
class Merge:
    added: list[str]
    replaced: list[str]
    qf: QuestionsFile
    unchanged: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.replaced)


def merge(project: Project, questions: list[Question], replace: bool) -> Merge:
    """Merge imported records into questions.jsonl (in memory; the caller saves atomically).

    Existing records keep their lines and comments; a replaced record keeps its line; new
    records append in file order. A record identical to the one already under its id is
    ``unchanged`` and left alone, so running the same import twice changes nothing; only a
    different record under an existing id is refused (replaced with ``replace``). The merged
    text is checked by ``prepare_questions`` with the project's bounds, so a merge can never
    write a file the next build would refuse.
    """
    cfg = project.config
    path = cfg.questions
    if path.exists() or path.is_symlink():
        qf = load_questions(path, cfg.limits)
    else:
        qf = QuestionsFile(path=path)
    existing = {q.id: q for q in qf.questions}
    unchanged = [q.id for q in questions if q.id in existing and q.as_json() == existing[q.id].as_json()]
    same = set(unchanged)
    clashes = [q.id for q in questions if q.id in existing and q.id not in same]
    incoming = {q.id: q for q in questions}
    if clashes and not replace:
        details = [{"path": str(path), "id": i, "message": "id already in the questions file, with a different "
                    "record"} for i in clashes]
        raise InvalidInput(f"{len(clashes)} imported id(s) already exist with a different record; use --replace to "
                           "overwrite those records (nothing was written)", path=str(path)).with_details(details)
    added = [q for q in questions if q.id not in existing]
    merged = prepare_questions(qf, changed=[incoming[i] for i in clashes], added=added, limits=cfg.limits)
    return Merge(added=[q.id for q in added], replaced=clashes, qf=merged, unchanged=unchanged)
