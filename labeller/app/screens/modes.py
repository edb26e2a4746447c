"""The app's screens, in the order of their keys: one line per screen (see ``screens/spec.py``).

Only the line is read at start-up; a screen's module is imported when it is first shown or
its keys are listed, so the first screen does not wait for the others' imports. Another
package adds a screen through the ``labeller.screens`` entry-point group (a ``ModeSpec``),
after these, never replacing one.
"""

from __future__ import annotations

from labeller.app.screens.spec import ModeSpec
from labeller.registry import Registry

SCREEN_SPECS: Registry[ModeSpec] = Registry(__package__ or __name__, {spec.name: spec for spec in (
    ModeSpec("help", "Help", "f1", "Every key binding, by where it applies", "help:HelpScreen", open_at="help:open_help"),
    ModeSpec("questions", "Questions", "f2", "The question list, with filters and statuses", "questions:QuestionsScreen"),
    ModeSpec("author", "Author", "f3", "Edit a question and anchor it in the corpus", "author:AuthorScreen"),
    ModeSpec("coverage", "Coverage", "f4", "Labels per document and per tag", "coverage:CoverageScreen"),
    ModeSpec("stale", "Broken", "f5", "Broken labels: re-anchor what the corpus broke", "stale:StaleScreen"),
    ModeSpec("eval", "Eval", "f6", "Run the eval: recall@k, per-query ranks, leaks", "eval:EvalScreen"),
    ModeSpec("review", "Review", "f7", "Review mode: accept, flag or edit the records not reviewed as they stand",
             "review:ReviewScreen", open_at="review:open_review"),
    ModeSpec("traffic", "Traffic", "f10", "The traffic queue: label the queries sampled from a query log",
             "traffic:TrafficScreen"),
)}, group="labeller.screens", what="screen")

# What the app reads: its bindings, palette commands, F1 groups and modes come from this list.
SCREENS: list[ModeSpec] = SCREEN_SPECS.implementations()
