"""The committed build's documents, from git: what ``build --check`` compares answer texts with.

The committed manifest pins each document the last build read by the sha256 of its canonical
text; ``drift_classes`` asks here for the ones that have changed since. The revisions tried are
HEAD and the last few that committed the manifest (a build is committed with the corpus it
read, and in a pull request that did not rebuild, the committed artifact is the base's). A
document is looked for at the same path in each, one ``ls-tree`` and one ``cat-file --batch``
a revision, and a text is kept only when it hashes to the pinned sha256 (``drift_classes``
checks again), so a wrong revision costs time, never a wrong class. Git is looked for, never required: without it, or
in a shallow clone that lacks the build's revision, those records are *not comparable*.
"""

from __future__ import annotations

from collections.abc import Mapping

from labeller.commands.git_blobs import commits_touching, git_installed, read_blobs, regular_files
from labeller.core.canon import canonicalize, sha256_hex
from labeller.core.check import committed_records
from labeller.core.committed import read_committed
from labeller.core.drift_classes import OldTexts
from labeller.core.last_build import LastBuild
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.io import parse_json
from labeller.layout import GIT_MARKER, in_repo, project_tree

MANIFEST_REVISIONS = 3  # of the manifest's last commits tried, after HEAD
# Bytes of old documents read at most (over every revision tried): past it, the rest are not
# comparable. Each is bounded by ``[corpus] max_file_bytes`` too.
MAX_OLD_BYTES = 256 * 1024 * 1024


def committed_texts(project: Project) -> OldTexts | None:
    """``drift_classes.OldTexts`` reading the project's git history; ``None`` outside a git work tree."""
    layout = project.config.layout
    top = project_tree(layout.root)
    if not (top / GIT_MARKER).exists() or not git_installed():
        return None
    corpus = in_repo(project.config.corpus, layout.root, top)
    prefix = "" if corpus == "." else corpus + "/"
    max_file = project.config.max_file_bytes

    def old_texts(wanted: Mapping[str, str]) -> dict[str, str]:
        found: dict[str, str] = {}
        budget = MAX_OLD_BYTES
        revisions = ["HEAD", *commits_touching(top, in_repo(layout.manifest, layout.root, top), MANIFEST_REVISIONS)]
        for rev in dict.fromkeys(revisions):
            missing = [d for d in wanted if d not in found]
            if not missing:
                break
            files = regular_files(top, rev, corpus)
            blobs = {}
            for doc_id in missing:
                blob = files.get(prefix + doc_id)
                if blob is not None and blob[1] <= min(max_file, budget):
                    blobs[doc_id] = blob[0]
                    budget -= blob[1]
            data = read_blobs(top, sorted(set(blobs.values())))
            for doc_id, blob_id in blobs.items():
                try:
                    text = canonicalize(data[blob_id].decode("utf-8"))
                except (KeyError, UnicodeDecodeError):
                    continue
                if sha256_hex(text) == wanted[doc_id]:  # else an older revision may hold it
                    found[doc_id] = text
        return found

    return old_texts


def last_build(project: Project) -> LastBuild | None:
    """The committed build (artifact, manifest, and the corpus then through git: ``labeller
    repair``'s, and the app's suggestions, handed in by ``labeller app``), or None when
    there is none to read: a damaged committed file only means nothing is known of it."""
    layout = project.config.layout
    artifact, manifest = read_committed(layout.artifact), read_committed(layout.manifest)
    if artifact is None or manifest is None:
        return None
    try:
        records = committed_records(artifact, [], layout.artifact)
        docs = parse_json(manifest).get("docs")
    except (InvalidInput, AttributeError):
        return None
    if not isinstance(docs, dict):
        return None
    return LastBuild(records, docs, project.corpus, committed_texts(project))
