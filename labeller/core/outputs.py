"""Where labeller may write: never over one of the project's own inputs.

``--out``, ``--write-run``, ``[golden] out`` and ``[eval] history`` name a file freely; one that
is the questions file, ``labeller.toml``, the review log, an annotator's file or a corpus
document would silently replace the labels or the text they quote with a report. So every
output is checked here against the project's inputs first, then as every write is
(``io.check_output_path``: no symlinked folder, only a regular file replaced). Core, not
``io``: whether a path is a corpus document is the corpus's own glob rule.
"""

from __future__ import annotations

import os
from pathlib import Path

from labeller.config import ProjectConfig
from labeller.core.corpus import selected
from labeller.errors import InvalidInput
from labeller.io import check_output_path


def check_output(config: ProjectConfig, path: Path | str, what: str) -> Path:
    """``path`` as a safe place for ``what`` (e.g. ``--out``) to be written; else ``InvalidInput``
    naming the path and why."""
    path = Path(path)
    input_kind = project_input(config, path)
    if input_kind is not None:
        raise InvalidInput(f"{what} is {input_kind}, one of the project's inputs; labeller does not write over its "
                           "inputs: choose another path", path=str(path))
    check_output_path(path)
    return path


def project_input(config: ProjectConfig, path: Path) -> str | None:
    """What input of the project ``path`` is (symlinks followed, so no alias slips by), or None."""
    real = os.path.realpath(path)
    layout = config.layout
    named = {os.path.realpath(layout.questions): "the questions file",
             os.path.realpath(layout.config_file): "labeller.toml",
             os.path.realpath(layout.review_log): "the review log"}
    if real in named:
        return named[real]
    if os.path.dirname(real) == os.path.realpath(layout.annotations_dir) and real.endswith(".jsonl"):
        return "an annotator's file"
    corpus = os.path.realpath(layout.corpus)
    if os.path.commonpath([real, corpus]) == corpus and real != corpus:
        doc_id = Path(os.path.relpath(real, corpus)).as_posix()
        if selected(doc_id, config.include, config.exclude):
            return f"a corpus document ({doc_id!r})"
    return None
