"""Which documents were renamed since the last build: git's pairing, else the content's.

A label whose document is gone (``unknown_doc``) is most often a label whose document was
renamed (a book's chapters renumbered). Knowing the new name lets its moved suggestions be
grouped per file and its edited quotes be given nearest passages in the renamed file.

The last build is the commit that last changed the committed manifest (``git rev-list -1
HEAD -- manifest``): nothing more is recorded, so the manifest's bytes and SPEC §6's keys
stay as they are. git pairs the files of that commit's corpus folder with HEAD's
(``diff-tree -M``: tree to tree, so nothing in the work tree is read and no filter runs;
``labeller.core.git`` says how git is run). What git leaves unpaired, the content pairs:

- a gone document whose sha256 (from the manifest) is that of exactly one new document;
- else, where git has the gone document's text then (its blob at the last build's commit), the
  new document holding most of that text (``similar_pairs``): git's similarity counts whole
  lines, and a page renumbered and reworded over years (the Rust book's chapters 17-20 by
  2026: every listing number changed, lines re-wrapped) keeps under half of its lines, git's
  default bar, while most of its three-word sequences still stand;
- else (no git, or the rename not committed yet) the new document holding most of the gone
  document's quotes verbatim (at least half of them, and more than any other).

Only a gone document (in the manifest, not in the corpus) and a new one (in the corpus, not in
the manifest) are ever paired, each at most once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from labeller.config import ProjectConfig
from labeller.core.canon import canonicalize
from labeller.core.git import MAX_OUTPUT, git_installed, read_blobs, regular_files, run_git
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
                 quotes_found: Mapping[str, Counter[str]] | None = None,
                 new_text: Callable[[str], str] | None = None) -> Renames:
    """The renames between the last build's documents (``old_docs``: doc id → sha256, the
    committed manifest's) and the corpus now (``new_docs``: the same). ``quotes_found``:
    for a gone document, in how many of its quotes each other document holds (the content
    fallback's evidence); ``new_text``: a new document's text (the content's, where git has
    the gone documents' texts then)."""
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
        same = [d for d in by_sha.get(old_docs[old], []) if d not in pairs.values()]
        if old not in pairs and len(same) == 1:
            pairs[old], by[old] = same[0], CONTENT_PAIRING
    unpaired = [d for d in gone if d not in pairs]
    fresh = sorted(d for d in added if d not in pairs.values())
    if unpaired and fresh and new_text is not None:
        then = texts_then(config, unpaired)
        if then:
            for old, new in similar_pairs(then, {d: new_text(d) for d in fresh}).items():
                pairs[old], by[old] = new, CONTENT_PAIRING
    for old in gone:
        if old in pairs:
            continue
        counts = Counter({d: n for d, n in (quotes_found or {}).get(old, Counter()).items()
                          if d in added and d not in pairs.values()})
        ranked = counts.most_common(2)
        total = sum((quotes_found or {}).get(old, Counter()).values())
        if ranked and 2 * ranked[0][1] >= total and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
            pairs[old], by[old] = ranked[0][0], CONTENT_PAIRING
    return Renames(pairs, by)


def _last_build(config: ProjectConfig) -> tuple[Path, str, str] | None:
    """The project's git work tree, the commit that last changed the committed manifest, and
    the corpus folder in the repository; None when the project is not in a git work tree, git
    is missing, or the manifest was never committed."""
    layout = config.layout
    top = project_tree(layout.root)
    if not (top / GIT_MARKER).exists() or not git_installed():
        return None
    manifest = in_repo(layout.manifest, layout.root, top)
    built = run_git(top, "rev-list", "-1", "HEAD", "--", manifest, max_output=4096)
    commit = built.stdout.decode("ascii", "replace").strip()
    if built.returncode != 0 or len(commit) not in (40, 64) or not all(c in "0123456789abcdef" for c in commit):
        return None
    return top, commit, in_repo(layout.corpus, layout.root, top)


def git_renames(config: ProjectConfig) -> dict[str, str]:
    """git's rename pairs of corpus documents (doc ids) between the commit of the last build
    and HEAD; empty when there is no such commit (``_last_build``) or git fails."""
    found = _last_build(config)
    if found is None:
        return {}
    top, commit, corpus = found
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


# Bytes of gone documents' texts then read from git at most, for ``similar_pairs`` (each is
# bounded by ``[corpus] max_file_bytes`` too): past it, the rest are paired as without git.
MAX_THEN_BYTES = 64 * 1024 * 1024


def texts_then(config: ProjectConfig, doc_ids: list[str]) -> dict[str, str]:
    """The canonical texts of ``doc_ids`` at the last build's commit (one ``ls-tree`` and one
    ``cat-file --batch``); the documents git does not have there (or past the bounds) are
    missing. Empty outside git."""
    found = _last_build(config)
    if found is None:
        return {}
    top, commit, corpus = found
    prefix = "" if corpus == "." else corpus.rstrip("/") + "/"
    files = regular_files(top, commit, corpus)
    budget = MAX_THEN_BYTES
    blobs: dict[str, str] = {}
    for doc_id in doc_ids:
        blob = files.get(prefix + doc_id)
        if blob is not None and blob[1] <= min(config.max_file_bytes, budget):
            blobs[doc_id] = blob[0]
            budget -= blob[1]
    data = read_blobs(top, sorted(set(blobs.values())))
    out = {}
    for doc_id, blob_id in blobs.items():
        try:
            out[doc_id] = canonicalize(data[blob_id].decode("utf-8"))
        except (KeyError, UnicodeDecodeError):
            continue
    return out


_WORD = re.compile(r"\w+")
SHINGLE_WORDS = 3  # a document's text is compared as its set of three-word sequences
MIN_SHARE = 1 / 3  # of a gone document's sequences standing in its new document, at least
MIN_LEAD = 3  # ... and this many times as many as in any other new document
MIN_COMMON = 10  # sequences in common at least: a few words of a short page are not its text
# A sequence found in more new documents than this says nothing of where one went (and would
# make the comparison quadratic on a corpus of repeated pages): it is not counted.
MAX_HOLDERS = 8


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = [m.group().casefold() for m in _WORD.finditer(text)]
    return {tuple(words[i:i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1)}


def similar_pairs(gone: Mapping[str, str], added: Mapping[str, str]) -> dict[str, str]:
    """Each gone document (doc id → its text then) paired with the new document (doc id → its
    text now) that holds most of its text: at least ``MIN_SHARE`` of its three-word sequences
    (words only, letter case ignored: Markdown's emphasis marks and re-wrapped lines do not
    count), ``MIN_LEAD`` times as many as any other new document holds, and more than that new
    document holds of any other gone one. A page split in two, two pages merged into one, or
    a page deleted with a paragraph kept elsewhere pairs nothing, or the one clear pair.

    The pairs are found in rounds (at most ``MAX_ROUNDS``): a new document paired in one round
    is no rival in the next. Material for MkDocs moved ``changelog.md`` to ``changelog/index.md``
    and ``changelog/insiders.md`` to ``insiders/changelog.md`` in one commit; the Insiders page
    shares 351 of its 374 sequences with its new name, and 148 with the new main changelog (which
    quotes its entries), short of ``MIN_LEAD``: once the main changelog is paired, the Insiders
    page's lead is clear."""
    mine = {old: _shingles(gone[old]) for old in sorted(gone)}
    theirs = {new: _shingles(added[new]) for new in sorted(added)}
    out: dict[str, str] = {}
    for _ in range(MAX_ROUNDS):
        found = _clear_pairs({old: m for old, m in mine.items() if old not in out},
                             {new: t for new, t in theirs.items() if new not in out.values()})
        if not found:
            break
        out.update(found)
    return dict(sorted(out.items()))


MAX_ROUNDS = 4  # rounds of ``similar_pairs``: each is linear in the texts' sequences


def _clear_pairs(mine: Mapping[str, set[tuple[str, ...]]],
                 theirs: Mapping[str, set[tuple[str, ...]]]) -> dict[str, str]:
    """One round of ``similar_pairs`` over the gone and the new documents' sequences."""
    holders: dict[tuple[str, ...], list[str]] = {}
    for doc_id, shingles in theirs.items():
        for s in shingles:
            holders.setdefault(s, []).append(doc_id)
    shared: dict[str, Counter[str]] = {}
    for old, shingles in mine.items():
        counts = shared[old] = Counter()
        for s in shingles:
            docs = holders.get(s, ())
            if len(docs) <= MAX_HOLDERS:
                counts.update(docs)
    best_for_new: dict[str, list[int]] = {}
    for counts in shared.values():
        for doc_id, n in counts.items():
            best_for_new.setdefault(doc_id, []).append(n)
    out: dict[str, str] = {}
    for old, counts in shared.items():
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:2]
        if not ranked:
            continue
        new, n = ranked[0]
        runner_up = ranked[1][1] if len(ranked) > 1 else 0
        others = sorted(best_for_new[new], reverse=True)
        mutual = len(others) == 1 or others[1] < n  # no other gone document has as much in ``new``
        if n >= max(MIN_COMMON, MIN_SHARE * len(mine[old])) and n >= MIN_LEAD * runner_up and mutual:
            out[old] = new
    return out
