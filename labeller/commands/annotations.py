"""What ``annotate``, ``agreement`` and ``adjudicate`` share: opening one annotator's file."""

from __future__ import annotations

from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.review.annotations import Annotations, check_annotator, load_annotations


def open_annotations(project: Project, name: str, *, must_exist: bool) -> Annotations:
    """NAME's blind annotations; ``must_exist`` refuses a name that has annotated nothing yet,
    since comparing with nobody would report a perfect disagreement instead of a mistake."""
    ann = load_annotations(project.config, check_annotator(name))
    if must_exist and not ann.path.exists():
        raise InvalidInput(f"no annotations by {name!r} yet (run labeller annotate --as {name})", path=str(ann.path))
    return ann
