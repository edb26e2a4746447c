"""Every path labeller reads or writes in a project, in one place.

The configured places (corpus, questions, output folder, run history) come from
``labeller.toml``; everything else is derived from them here, so no module spells a
file name of its own and moving a file is a one-line change. Bottom layer: imports
nothing of labeller.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

CONFIG_NAME = "labeller.toml"
ARTIFACT_NAME = "golden-set.v1.jsonl"
MANIFEST_NAME = "golden-set.v1.manifest.json"
REVIEW_LOG_NAME = "reviews.jsonl"
JUDGMENTS_NAME = "judgments.jsonl"
ANNOTATIONS_DIR = "annotations"
CACHE_DIR = ".labeller-cache"
STATE_DIR = ".labeller"
JOURNAL_NAME = "journal.json"
GIT_MARKER = ".git"  # a folder in a clone, a file in a worktree or a submodule


def project_tree(root: Path) -> Path:
    """The folder every configured path must stay in: the git work tree ``root`` sits in
    (the nearest folder at or above it holding ``.git``), else ``root`` itself.

    Not the root alone, so that a monorepo's ``[corpus] root = "../docs"`` keeps working;
    not the whole machine, because ``build --check`` runs on forks' pull requests, whose
    ``labeller.toml`` could otherwise name ``/home/runner/.aws`` as the corpus and print it.
    Found by looking, never by running git (a planted ``.git/config`` can run commands).
    """
    root = Path(os.path.realpath(root))
    for folder in (root, *root.parents):
        if os.path.lexists(folder / GIT_MARKER):
            return folder
    return root


def inside(tree: Path, path: Path) -> bool:
    """Whether ``path``, every symlink along it followed, lands in ``tree`` (a physical path):
    ``..``, an absolute path or a committed link out of the tree all land elsewhere."""
    real = os.path.realpath(path)
    return os.path.commonpath([real, str(tree)]) == str(tree)


def in_repo(path: Path, root: Path, top: Path) -> str:
    """A project path as git names it at a revision: relative to the work tree ``top``, with ``/``.

    Links in the root's own path are resolved (as ``top`` is), none below it: a symlink in
    the working tree (``golden -> decoy``) must not choose which of a revision's files is read."""
    lexical = os.path.normpath(os.path.join(os.path.realpath(root), os.path.relpath(path, root)))
    return Path(os.path.relpath(lexical, top)).as_posix()


@dataclass(frozen=True)
class ProjectLayout:
    """The paths of one project; all absolute when ``root`` is."""

    root: Path
    corpus: Path
    questions: Path
    out: Path
    run_history: Path
    """``[eval] history``: the DuckDB database of every eval run."""

    @property
    def config_file(self) -> Path:
        """``labeller.toml``: optional, read first."""
        return self.root / CONFIG_NAME

    @property
    def artifact(self) -> Path:
        """The derived golden set, committed and checked by ``build --check``."""
        return self.out / ARTIFACT_NAME

    @property
    def manifest(self) -> Path:
        return self.out / MANIFEST_NAME

    @property
    def review_log(self) -> Path:
        """Append-only review decisions, next to the questions they judge."""
        return self.questions.with_name(REVIEW_LOG_NAME)

    @property
    def judgments(self) -> Path:
        """Verdicts on pooled passages (SPEC §11), next to the questions they judge."""
        return self.questions.with_name(JUDGMENTS_NAME)

    @property
    def annotations_dir(self) -> Path:
        """One ``<annotator>.jsonl`` per blind second annotator."""
        return self.questions.parent / ANNOTATIONS_DIR

    def annotation(self, annotator: str) -> Path:
        """The file of ``annotator`` (the caller checks the name is a safe file name)."""
        return self.annotations_dir / f"{annotator}.jsonl"

    @property
    def cache_dir(self) -> Path:
        """Derived data (chunks, blocks, windows) keyed by digests; safe to delete."""
        return self.root / CACHE_DIR

    @property
    def bm25_index(self) -> Path:
        """The default retriever's on-disk index."""
        return self.cache_dir / "bm25"

    @property
    def state_dir(self) -> Path:
        """Per-user working state (journal, run history by default); git-ignored."""
        return self.root / STATE_DIR

    @property
    def journal(self) -> Path:
        """The app's autosave of unsaved edits."""
        return self.state_dir / JOURNAL_NAME
