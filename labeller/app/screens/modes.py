"""The app's screens, in the order of their keys: one line per screen (see ``screens/spec.py``)."""

from __future__ import annotations

from labeller.app.screens import author, coverage, eval, help, questions, review, stale
from labeller.app.screens.spec import ModeSpec

SCREENS: list[ModeSpec] = [
    help.SPEC,
    questions.SPEC,
    author.SPEC,
    coverage.SPEC,
    stale.SPEC,
    eval.SPEC,
    review.SPEC,
]
