"""Review rounds, blind second annotation, agreement and adjudication (issue 6).

Nothing here feeds the build: the artifact is a function of the corpus and
questions.jsonl only. The review log and the annotation files are records *about* the
labels, kept beside them so a team can see which labels a second person has checked.
No module here imports textual; the screens live in ``labeller.app.screens``.
"""
