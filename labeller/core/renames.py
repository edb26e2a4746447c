"""Which documents were renamed since the last build: git's pairing, else the content's.

A label whose document is gone (``unknown_doc``) is most often a label whose document was
renamed (a book's chapters renumbered). Knowing the new name lets its moved suggestions be
grouped per file and its edited quotes be given nearest passages in the renamed file.

The last build is the commit that last changed the committed manifest (``git rev-list -1
HEAD -- manifest``): nothing more is recorded, so the manifest's bytes and SPEC §6's keys
stay as they are. git pairs the files of that commit's corpus folder with HEAD's
(``diff-tree -M``: tree to tree, so nothing in the work tree is read and no filter runs;
``labeller.core.git`` says how git is run). A rename not committed yet, a project outside
git, or no git installed falls back to the content: a gone document whose sha256 (from the
manifest) is that of exactly one new document, or else the new document holding most of the
gone document's quotes verbatim (at least half of them, and more than any other). Only a gone
document (in the manifest, not in the corpus) and a new one (in the corpus, not in the
manifest) are ever paired.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from labeller.config import ProjectConfig
from labeller.core.git import MAX_OUTPUT, git_installed, run_git
from labeller.layout import GIT_MARKER, in_repo, project_tree

GIT_PAIRING = "git"
CONTENT_PAIRING = "content"


@dataclass(frozen=True)
class Renames:
    """``pairs``: gone document → its new name; ``by``: who paired each (``git`` or ``content``)."""

    pairs: dict[str, str] = field(default_factory=dict)
    by: dict[str, str] = field(default_factory=dict)

    def target(self, old_doc: str) -> str | None:
        return self.pairs.get(old_doc)


def renamed_docs(config: ProjectConfig, old_docs: Mapping[str, str], new_docs: Mapping[str, str],
                 quotes_found: Mapping[str, Counter[str]] | None = None) -> Renames:
    """The renames between the last build's documents (``old_docs``: doc id → sha256, the
    committed manifest's) and the corpus now (``new_docs``: the same). ``quotes_found``:
    for a gone document, in how many of its quotes each other document holds (the content
    fallback's evidence)."""
    gone = sorted(d for d in old_docs if d not in new_docs)
    added = {d for d in new_docs if d not in old_docs}
    if not gone or not added:
        return Renames()
    pairs: dict[str, str] = {}
    by: dict[str, str] = {}
    for old, new in git_renames(config).items():
        if old in gone and new in added and new not in pairs.values():
            pairs[old], by[old] = new, GIT_PAIRING
    by_sha: dict[str, list[str]] = {}
    for d in sorted(added):
        by_sha.setdefault(new_docs[d], []).append(d)
    for old in gone:
        if old in pairs:
            continue
        same = [d for d in by_sha.get(old_docs[old], []) if d not in pairs.values()]
        if len(same) == 1:
            pairs[old], by[old] = same[0], CONTENT_PAIRING
            continue
        counts = Counter({d: n for d, n in (quotes_found or {}).get(old, Counter()).items()
                          if d in added and d not in pairs.values()})
        ranked = counts.most_common(2)
        total = sum((quotes_found or {}).get(old, Counter()).values())
        if ranked and 2 * ranked[0][1] >= total and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
            pairs[old], by[old] = ranked[0][0], CONTENT_PAIRING
    return Renames(pairs, by)


def git_renames(config: ProjectConfig) -> dict[str, str]:
    """git's rename pairs of corpus documents (doc ids) between the commit of the last build
    and HEAD; empty when the project is not in a git work tree, git is missing, the manifest
    was never committed, or git fails."""
    layout = config.layout
    top = project_tree(layout.root)
    if not (top / GIT_MARKER).exists() or not git_installed():
        return {}
    manifest = in_repo(layout.manifest, layout.root, top)
    corpus = in_repo(layout.corpus, layout.root, top)
    built = run_git(top, "rev-list", "-1", "HEAD", "--", manifest, max_output=4096)
    commit = built.stdout.decode("ascii", "replace").strip()
    if built.returncode != 0 or len(commit) not in (40, 64) or not all(c in "0123456789abcdef" for c in commit):
        return {}
    scope = ("--", corpus) if corpus != "." else ()
    done = run_git(top, "diff-tree", "-r", "-M", "--name-status", "-z", "--no-commit-id", commit, "HEAD", *scope,
                   max_output=MAX_OUTPUT)
    if done.returncode != 0:
        return {}
    prefix = "" if corpus == "." else corpus.rstrip("/") + "/"
    fields = done.stdout.split(b"\0")
    out: dict[str, str] = {}
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i].decode("ascii", "replace")
        n = 2 if status[:1] in ("R", "C") else 1
        paths = [f.decode("utf-8", "replace") for f in fields[i + 1:i + 1 + n]]
        i += 1 + n
        if status[:1] == "R" and len(paths) == 2 and all(p.startswith(prefix) for p in paths):
            out[paths[0][len(prefix):]] = paths[1][len(prefix):]
    return out
