"""Merging imported records into questions.jsonl, in memory; the caller saves atomically."""

from __future__ import annotations

from dataclasses import dataclass

from labeller.core.models import Question
from labeller.core.project import Project
from labeller.core.questions import QuestionsFile, load_questions, prepare_questions
from labeller.errors import InvalidInput


@dataclass
class Merge:
    added: list[str]
    replaced: list[str]
    qf: QuestionsFile


def merge(project: Project, questions: list[Question], replace: bool) -> Merge:
    """Merge imported records into questions.jsonl (in memory; the caller saves atomically).

    Existing records keep their lines and comments; a replaced record keeps its line; new
    records append in file order. The merged text is checked by ``prepare_questions`` with
    the project's bounds, so a merge can never write a file the next build would refuse.
    """
    cfg = project.config
    path = cfg.questions
    if path.exists() or path.is_symlink():
        qf = load_questions(path, cfg.limits)
    else:
        qf = QuestionsFile(path=path)
    existing = {q.id for q in qf.questions}
    incoming = {q.id: q for q in questions}
    clashes = [q.id for q in questions if q.id in existing]
    if clashes and not replace:
        details = [{"path": str(path), "id": i, "message": "id already in the questions file"} for i in clashes]
        raise InvalidInput(f"{len(clashes)} imported id(s) already exist; use --replace to overwrite those "
                           "records (nothing was written)", path=str(path)).with_details(details)
    merged = prepare_questions(qf, changed=[incoming[i] for i in clashes],
                               added=[q for q in questions if q.id not in existing], limits=cfg.limits)
    return Merge(added=[q.id for q in questions if q.id not in existing], replaced=clashes, qf=merged)
