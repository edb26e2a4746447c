"""The survival benchmark (issue 35.6): do labels follow a real documentation history?

    python benchmarks/survival.py GIT_DIR --preset rust-book [--labels 300] [--seed 35] [--json OUT] [--markdown OUT]
    python benchmarks/survival.py GIT_DIR --subdir docs --base REV --later REV [REV ...]
    python benchmarks/survival.py GIT_DIR --preset fastapi --truth-only   # the ground truth alone, no labeller

GIT_DIR is a clone (bare or not) of a public Markdown documentation repository; nothing of it
is kept in this repository (the shared corpora README's rule for outside data). At the base
commit ``--labels`` labels are written automatically: prose paragraphs of the corpus
(the ``*.md`` files under ``--subdir``) are drawn with a seeded RNG, and from each a quote of
6 to 12 whole words that occurs once in the whole corpus. A labeller project (a git work
tree: the corpus and the labels committed, then ``labeller build``) is made in a temporary
folder. For each later commit a copy of it gets that commit's corpus, committed, and then:

1. ``labeller build --check --format json``: which labels still resolve, which are refused;
2. ``labeller repair --moves`` then ``labeller repair --min-score 80`` (each ``--format json``),
   the records each one rewrote read back from ``questions.jsonl``;
3. a build of the records that then resolve (``--questions``/``--out`` inside the copy), for
   the span labeller gives each.

The ground truth is labeller-free (``survival_truth.py``): a word-level alignment of each
document across the two commits, renames followed as ``git diff -M30%`` pairs them. The
figures, per later commit: intact labels kept in place (those whose quote the page now repeats,
refused as ambiguous, counted apart, with how many ``repair`` pinned where they stood), silent
moves (a label that resolves
to text other than where its words went: must be 0), renamed- or moved-file labels repaired
by ``--moves`` (a renamed quote that now also stands verbatim in other documents counted apart,
and whether it was left refused: SPEC §13 refuses it as ambiguous), edited labels repaired by
``--min-score 80`` (those edited in place split by how much of the quote the truth keeps where
it stood: ``MOSTLY_KEPT`` of its words or more, or rewritten), wrong repairs (must be 0; those
of labels the truth calls deleted said apart: the truth found their words nowhere, so each is
a wrong repair or a place it cannot see, for a person to read), deleted labels left
refused, and of the labels that still resolve, those ``build --check`` names to re-read (its
drift classes, or beside refusals the resolving labels' ones): an edited quote still standing in
its changed paragraph should be named; an intact one is named only when its block changed around
it (the JSON's ``*_flagged`` figures). A labeller without ``repair`` is reported as such, with
the repair figures null. The JSON report and the Markdown table are deterministic (no times:
those go to stderr).

``--truth-only`` runs no labeller at all: the same labels are sampled and only the ground
truth's fates are counted per later commit (intact, renamed, moved, edited, deleted). It is
how a held-out history is checked before its one run: that it has edited and renamed labels
to measure, without anyone seeing how labeller does on it. (Its counts are of the labels
written; the full run drops any labeller refuses at the base, so its counts can be lower.)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from survival_truth import (DELETED, EDITED, FATES, INTACT, MOVED, MOVED_AMBIGUOUS, RENAMED, Fate,  # noqa: E402
                            History, canonical)

SCHEMA = "labeller.survival-report.v1"
TRUTH_SCHEMA = "labeller.survival-truth.v1"
MIN_WORDS, MAX_WORDS = 6, 12
MIN_PARAGRAPH_WORDS = 12
MIN_SCORE = 80
# An edited label's quote is "mostly kept" when the truth's alignment keeps at least this share
# of its words where it stood (``Fate.kept``), "rewritten" below it: the figures split the
# edited-in-place labels so, which says whether a miss is a repair `--min-score 80` should make
# or one a person should (the bar's number, read by the independent truth, not by labeller).
MOSTLY_KEPT = 0.8
TRIES_PER_PARAGRAPH = 3


@dataclass(frozen=True)
class Preset:
    repo: str
    subdir: str
    base: str
    later: tuple[str, ...]
    role: str


# Commits chosen by date (the last commit before each 1 Jan / 1 May), spanning four years.
PRESETS = {
    # The study of issue 35 (112 Markdown files at the end; the async chapter inserted as
    # chapter 17 in 2024, renumbering 17-20 to 18-21): what the repair work was shaped on.
    "rust-book": Preset("rust-lang/book", "src", "52fafaaa8e432e84beaaf4ea80ccba880624effd", (
        "22c68f6e47ea8db57eedd3a19d422f10afe2a8a5", "7a90386961a719f94a80bfb2c7d081fadbcb443d",
        "44b246efd4044f6f3d6340745c40aaa93160e9b7", "8cc0cb138998ee0502504ca1247b51de9161197c"),
        "the history of issue 35's study; labeller was tuned on it"),
    # Held out while labeller's moves and repair were built; every failure read since (h-editrepair).
    # Pages moved into folders (hir-typeck/, const-eval/, queries/), split (bootstrapping.md), deleted.
    "rustc-dev-guide": Preset("rust-lang/rustc-dev-guide", "src", "ce4ae4004cdbc710efb97c71641a4d7447ca8dc5", (
        "bd26e3aae5cac08ee70371a121686869db030bf9", "c829322db729be30f24f23159c71865426c54e63",
        "08b4cd8efceaed9c05bdfcd6c455a51f331e06c4", "cfc93d27c0aedb699db714c56adf9469d82c0293"),
        "held out while moves and repair were built; its failures read since, on h-editrepair and h-repair2"),
    # Held out too, added when repair learnt where a quote stood (old_place): run once, after
    # that work was tuned on the book alone; every failure read since. The Rust Reference, a
    # specification's prose.
    "rust-reference": Preset("rust-lang/reference", "src", "cdb65201f77313c9ab97552d68350abfa94fb50b", (
        "3ae62681ff236d5528ef7c8c28ba7c6b2ecc6731", "3565c7978cfc9662f5963b135690ff9cbbfa0318",
        "acd6794e712d5e2ef6f5c84fb95688d32a69b816", "6363385ac4ebe1763f1e6fb2063c0b1db681a072"),
        "held out for its first run; its failures read since, on h-repairscore, h-editrepair and h-repair2"),
    # Held out, added with the content's rename pairing and the paragraph split (h-editrepair), run
    # once with that work's final code: Cargo's book (src/doc/src until July 2026), the last
    # commit before each 1 January from 2021. Run again with h-repair2's final code (its failures
    # not read before that run), so no longer strictly held out.
    "cargo": Preset("rust-lang/cargo", "src/doc/src", "1f02563dca8d2ca018eac49ef54b6c3a9a65d225", (
        "3d9d52f358f153f2e5a75c8ace414a6ba91a5da1", "dd9900585a6c2baeda170435d8641a52788af8af",
        "37f4a971ca52f1f8439fc45e5780be4eefe95116", "03a5f111b1431d948c8408030d30b74629d65069",
        "b51136fb49022bab62fe133fec7fcba659b519b8"),
        "held out until its run on h-editrepair; run again with h-repair2's final code, its failures not read before"),
    # Held out: fetched in session 12 and run once with that session's final code, nothing tuned
    # after it. Rust by Example's sources, the last commit before each 1 January from 2021.
    "rust-by-example": Preset("rust-lang/rust-by-example", "src", "1cce0737d6a7d3ceafb139b4a206861fb1dcb2ab", (
        "c8ae029c803e91cfa7ac44f31ec2ee7c45a56f9c", "6b5119725165434443e66446078defe0234a2b46",
        "20ddc34e9f4f763eb42c1387fcb4c097410a7f70", "093397535b48ae13ec76bc526b7e6eb8c096a85c",
        "2e02f22a10e7eeb758e6aba484f13d0f1988a3e5"),
        "held out: run once with session 12's final code; its failures read after that run"),
    # Four more held out the same way (session 12, run once, nothing tuned after): the Rustonomicon,
    # mdBook's own guide, the Edition Guide (rewritten in 2021: 93 -> 22 pages) and the async book.
    "nomicon": Preset("rust-lang/nomicon", "src", "a5a48441d411f61556b57d762b03d6874afe575d", (
        "c05c452b36358821bf4122f9c418674edd1d713d", "8ca261268068d80c0969260fff15199bad87b587",
        "f6bd083c4ccfc4ce6699b8b4154e3c45c5a27a8c", "7ef05b9777c94836bc92f50f23e6e00981521a89",
        "b646f1a5aa17ae7eabe2ad744c21e5a741d2b28e"), "held out: run once with session 12's final code"),
    "mdbook-guide": Preset("rust-lang/mdBook", "guide/src", "95e0743bc0c66f74bbd2bf21b77b6ad8ec60c0f2", (
        "68a5c09fdf9393336a7b59c078c1b104a70ebeac", "41a6f0d43e1a2d9543877eacb4cd2a017f9fe8da",
        "090eba0db5026982c72f20352947cb1438c9f008", "69ef52fd13fe2de14c6b24b1f16c6a86ac0c5b02",
        "02dc23a73d1547af4e40b79c16970fdcfd55b460"), "held out: run once with session 12's final code"),
    "edition-guide": Preset("rust-lang/edition-guide", "src", "31a3eebf14b1d96b72b2e514045ba1b4889fa6e7", (
        "beea0a3cdc3885375342fd010f9ad658e6a5e09a", "6038be9d37d7251c966b486154af621d1794d7af",
        "bbffb074e16bef89772818b400b6c76a65eac126", "d56e0f3a0656b7702ca466d4b191e16c28262b82",
        "c3c0f0b3da26610138b7ba7663f60cd2c68cf184"), "held out: run once with session 12's final code"),
    "async-book": Preset("rust-lang/async-book", "src", "641dc148b34a36d68a9d64047d4712d1a6e932ac", (
        "563406a6ee3a4ed1cd5b51cf6988850da411aef3", "e224ead5275545acc00fa82d94ba6d6f377c8563",
        "bc970755722ec5e66a1325373878849da9ecd908", "08399f2cd1b6077a358d39f97479420dbc71dc81",
        "6d64933a9e72e8e7a6cdfffedd062398a5f93509"), "held out: run once with session 12's final code"),
    # Held out, not yet run: three histories outside rust-lang, of other styles (MkDocs and Jekyll
    # sites, YAML front matter, admonitions, code includes), for one run with the final repair
    # code. Chosen by date alone, as above (`git rev-list -1 --before=YEAR-01-01T00:00:00Z HEAD`:
    # the last commit before 1 January 2021 for the labels, before each 1 January 2022-2026 for
    # the later ones), and checked with --truth-only only: labeller has never been run on them.
    # FastAPI's tutorial and guide (English pages; the translations are other folders).
    "fastapi": Preset("fastapi/fastapi", "docs/en/docs", "5614b94ccc9f72f1de2f63aae63f5fe90b86c8b5", (
        "3efb4f7edff99fdc12802a85ae9d140ec4772497", "efc12c5cdbede6922a033a5234c70cb22c4d204a",
        "040ad986d48bb9a400de804f7f25abb856d85e1a", "1d50bad4555b951d5fa48eb8787fd5c39ed7effb",
        "53d2453d1a77f3384a1648d717f8ddafb5e9e460"), "run once with 2fad6b8, its failures read since (session 13)"),
    # Material for MkDocs's own site: a theme's setup and reference pages, with front matter.
    "mkdocs-material": Preset("squidfunk/mkdocs-material", "docs", "a6509496a8dafce5a40821af9e9d9894367849b8", (
        "7d8165cda6d93894c533444349fa24cf08e6fe1d", "3a3ae932c3aa880d0c3b9e71180745c273011b8e",
        "246266fafad2c2fdc78022c14f7f4b2df91167f3", "307fceb49f60b3d2b0d1f4dd00351e14b9499a82",
        "3f0eaca8da7e06db5bbb8ca41febb78459baf650"), "run once with 2fad6b8, its failures read since (session 13)"),
    # Homebrew's documentation (docs.brew.sh, a Jekyll site): a package manager's user and
    # maintainer handbook.
    "homebrew": Preset("Homebrew/brew", "docs", "635ecbc58991d914f08daeac8df15452baaed21e", (
        "0a4f0de3bacb6109406074d116bb5e9443b14513", "d291117468575ad8d54f1992eb9f3b130fb7a431",
        "455a44b6858b5fa221aa3e987c07db68cb9df4ea", "c723e2fde3ed98f5aa763e8eed152aadfa3bff3a",
        "754344022ff6b44f759c04b828fed0e9a76e3216"), "run once with 2fad6b8, its failures read since (session 13)"),
    # Django REST framework's documentation (Markdown, MkDocs; BSD-3-Clause), mirrored with the
    # three above and kept back when they were run: the last commit before 1 January 2021 and
    # before each 1 January 2022-2026 (chosen by date only, before labeller ran on it).
    "django-rest-framework": Preset("encode/django-rest-framework", "docs", "3db88778893579e1d7609b584ef35409c8aa5a22", (
        "5b2abbed25ef41c4cc1b3806037c6bd7631db327", "48a21aa0eb3a95d32456c2a927eff9552a04231e",
        "0f39e0124d358b0098261f070175fa8e0359b739", "089f6a697445af20f52832db99f2ab94baea4ece",
        "48fe0750b580cfcadb41db7a0b83fc24554046cc"), "held out: run once with session 13's final code"),
    # Fetched when the four above had been read (three) or held almost no edits (two labels): Vue's guide
    # (MIT; rewritten for Vue 3 in 2022) and Prometheus's documentation (Apache-2.0), commits
    # chosen by the same date rule, before labeller ran on either.
    "vue-docs": Preset("vuejs/docs", "src", "aa76cd102a73d05e580dbe1d7f421b3047504d0d", (
        "e6b46ca7d2ebcaef1136aa270ece159bfc3ed170", "bea9c1dc557f545bb7521964308d6f61689e0367",
        "e19c6be837f13ee1b1082688b6039a847d8e2524", "a10d1cc3da8197c35d64f7f087563c3153703272",
        "348ce6ec0270804ee2ed96275451db884650044b"), "run once with session 13's final code, its failures read since"),
    "prometheus-docs": Preset("prometheus/docs", "content/docs", "77eb61193ead3c45a4d51260f15baf2651f30e11", (
        "01f618e6be3f79365998149b846f25c33cffc153", "0c25698f483086b058fd8693ca0790cdff550dcb",
        "9fcf2430e4c6adf355734e2dabd8510ebef46514", "196ada7d6bc6248077d9ea04f83a3bf0d1852231"),
        # the last before 2026 is left out: by then the pages had left content/docs
        "run once with session 13's final code, its failures read since"),
    # Two more held out for session 14, fetched and chosen before labeller ran on them, checked
    # with --truth-only only; commits by date alone as above (the last commit before 1 January
    # 2021 for the labels, before each 1 January 2022-2026 for the later ones). Jekyll's
    # documentation (MIT; docs/_docs, 86-91 pages with front matter and Liquid tags): edits in
    # place, no renames.
    "jekyll": Preset("jekyll/jekyll", "docs/_docs", "92e50227bde98d82bde7f0731e202406ae5302bc", (
        "df765950babd6ed4fe46aad3fc25c05c5249b0c6", "39ee3317f4fa8a6b33ee650021f86697f210e3c0",
        "3234c1a38a37e1f2b997defcd99f03462182156e", "964a2689a1bf3c65a0fda5bc57fdf2e7b49a5831",
        "4d3db3a83d8eaa2a844bef3f6222fd30b987af05"), "held out: run once with session 14's final code"),
    # MkDocs's own documentation (BSD-2-Clause; docs, 10 -> 19 pages): reorganised in 2021, the
    # plugin and theme pages renamed from user-guide/ into dev-guide/, styling-your-docs.md renamed
    # customizing-your-theme.md, the index shortened as getting-started.md and installation.md
    # came. Its last two commits differ by a few bytes only.
    "mkdocs": Preset("mkdocs/mkdocs", "docs", "520314fed933aed8de62b08dd7fc6e25c0ff482b", (
        "dc35569ade5e101c8c48b78bbed8708dd0b1b49a", "56b235a8ad43f2300d17f87e6fa4de7a3d764397",
        "7186f4ce9c88e7c445ef90fee85c065ca297a7c8", "7e4892ab2dd4a52efd95a9de407eee63310e0780",
        "2862536793b3c67d9d83c33e0dd6d50a791928f8"), "held out: run once with session 14's final code"),
    # Three more held out for session 17, fetched and chosen by the same date rule, checked with
    # --truth-only only, then run once with session 16's final code (1cd4485): Poetry's
    # documentation (MIT; 11 -> 16 pages, every page renamed in 2021 from docs/docs/ and then
    # reorganised), Prettier's (MIT; 22 -> 24 pages, edits in place) and Vite's (MIT; VitePress,
    # 20 -> 52 pages from its first year, edits in place; labels at the end of 2021).
    "poetry": Preset("python-poetry/poetry", "docs", "2aab9bcd495e11e5f4491aa72a9510773cc4a90e", (
        "f6022eade7485a3b017ef0c8060dffed12e3cdb2", "7105971f6c400f3a5b8e7467ba9777e7b253e5c1",
        "a1999816f4676db9f7f8715a184fe34754dac50a", "2d540ea83bc0238b25f5bc1ee367b0b2fac6c0d4",
        "93baede18dc116d6266d9ed76d3d70ed6cddf695"),
        "held out: run once with session 16's final code (1cd4485); its failures read since (session 17)"),
    "prettier": Preset("prettier/prettier", "docs", "23521ded6c0ab55b7ce4d72257c0240ac3aae52d", (
        "c9c6d3364f8cf5140c3c16b44b92943464be7873", "efa6aa68b6637dfe270d6574b9b3af7de517ee63",
        "66a23c9331e2c652f8e08fd05a65d2bea7fe5c1a", "d9d0999aac70c04b06b35cbcb2c804b4a9c8d8a8",
        "c54b26cdd691bf32b2eaba213f673c90a4d2b195"),
        "held out: run once with session 16's final code (1cd4485); its failures read since (session 17)"),
    "vite": Preset("vitejs/vite", "docs", "a49d72358f2d028f62b0e9fcdb096a0e5ddf24c3", (
        "f12a1ab9fe6d45aa3652fef4eb777b1f72207dce", "8de7bd2b68db27b83d9484cc8d4e26436615168e",
        "a4922537a8d705da7769d30626a0d846511fc124", "8618ab5581c38d304e0afc46297ab7d7c328f97c"),
        "held out: run once with session 16's final code (1cd4485); its failures read since (session 17)"),
    # Two more held out the same way, run once with session 17's final code (d138177), nothing tuned after:
    # Redis's command pages (CC BY-SA 4.0; commands/, 275 -> 371 pages, archived in 2025) and React's
    # documentation (CC BY 4.0; src/content, 141 -> 220 pages, Markdown with MDX components; from its
    # first year there, so two later commits).
    "redis-commands": Preset("redis/redis-doc", "commands", "54a440872d366fade4dbed76eb7ef34875de5dac", (
        "fbdd4dba7010e8d0a81520cea70e1788c2be4225", "057f5fb6b471f5ae2b212f4b5fc999fdcfa28053",
        "98dd3843f3e3cb1baa2796fe38f5fa2746c35417", "3541d0e20cc4bb7873bdbf51a7717757b806577f",
        "1044224477fceacc5af56a636b0a7495d19e533c"), "held out: run once with session 17's final code (d138177)"),
    "react": Preset("reactjs/react.dev", "src/content", "bbb08a5a04b0221137e5d60472fc979747af2954", (
        "b1a249d597016c6584e4c186daa28b180cc9aafc", "2da4f7fbd90ddc09835c9f85d61fd5644a271abc"),
        "held out: run once with session 17's final code (d138177)"),
}


# --- the repository -------------------------------------------------------------------------

def git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True).stdout


def corpus_at(git_dir: Path, rev: str, subdir: str) -> dict[str, str]:
    """The ``*.md`` files under ``subdir`` at ``rev`` (doc id relative to it → canonical text);
    regular files that are valid UTF-8 only, as labeller's corpus loader would take them.
    Blobs are read one by one (``cat-file --batch``): a mirror may lack a repository's largest
    files, which ``git archive`` would stop at."""
    listing = git(git_dir, "ls-tree", "-r", "-z", rev, "--", subdir).decode("utf-8").split("\0")
    blobs = []
    for entry in filter(None, listing):
        meta, path = entry.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob" and mode in ("100644", "100755") and path.endswith(".md"):
            blobs.append((_doc_id(path, subdir), sha))
    out = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "--batch"], check=True, capture_output=True,
                         input="".join(f"{sha}\n" for _, sha in blobs).encode()).stdout
    docs: dict[str, str] = {}
    at = 0
    for doc, _ in blobs:
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        data = out[header_end + 1:header_end + 1 + size]
        at = header_end + 1 + size + 1
        try:
            docs[doc] = canonical(data.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return dict(sorted(docs.items()))


# git pairs a deleted and an added file as a rename at 50% similarity by default; over years a
# renamed page changes more than that (the book's renumbered chapters 17-20 keep 31-48% of
# their lines by 2026), and its edited quotes would count as deleted. 30% pairs every one of
# them and no unrelated pair in either preset's history.
RENAME_SIMILARITY = "30%"


def renames(git_dir: Path, base: str, later: str, subdir: str) -> dict[str, str]:
    """git's rename pairing of the corpus's documents between two commits (old id → new id)."""
    out = git(git_dir, "diff", f"-M{RENAME_SIMILARITY}", "--name-status", "-z", base, later, "--", subdir)
    fields = out.decode("utf-8").split("\0")
    pairs: dict[str, str] = {}
    i = 0
    while i < len(fields) - 1:
        status = fields[i]
        if status.startswith(("R", "C")):  # a rename or copy names two paths
            old, new = fields[i + 1], fields[i + 2]
            if status.startswith("R") and old.endswith(".md") and new.endswith(".md"):
                pairs[_doc_id(old, subdir)] = _doc_id(new, subdir)
            i += 3
        else:
            i += 2
    return pairs


def _doc_id(path: str, subdir: str) -> str:
    return PurePosixPath(path).relative_to(subdir).as_posix()


def commit_of(git_dir: Path, rev: str) -> dict:
    full, date = git(git_dir, "log", "-1", "--format=%H %cs", rev).decode().split()
    return {"commit": full, "date": date}


# --- labels ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Label:
    id: str
    doc: str
    quote: str
    char_start: int  # the quote's words in the base document's canonical text
    char_end: int

    def record(self) -> dict:
        return {"id": self.id, "query": f"survival probe {self.id}: where does it say {self.quote}?",
                "expected_answer": "", "locators": [{"doc": self.doc, "quote": self.quote}]}


_WHITESPACE_WORD = re.compile(r"\S+")
_FENCE = re.compile(r"\s*(```|~~~)")
# A prose paragraph starts like a sentence: not a heading, table, HTML, include, quote block,
# list item, link definition or indented code.
_PROSE_START = re.compile(r"[A-Za-z\"'(`*_]")
_NOT_PROSE = re.compile(r"\s*(#|\||<|\{\{|>|[-*+]\s|\d+[.)]\s|\[[^\]]*\]:)|\s{4}")


def prose_paragraphs(text: str) -> list[tuple[int, int]]:
    """The character ranges of the prose paragraphs of a canonical Markdown text: runs of
    non-blank lines outside fences and front matter, every line prose-like, long enough."""
    lines = text.splitlines(keepends=True)
    at = 0
    starts = []
    for line in lines:
        starts.append(at)
        at += len(line)
    skip_to = 0
    if lines and lines[0].rstrip("\n") == "---":  # YAML front matter
        skip_to = next((i + 1 for i in range(1, len(lines)) if lines[i].rstrip("\n") in ("---", "...")), 0)
    out: list[tuple[int, int]] = []
    block: list[int] = []
    fence = False

    def flush() -> None:
        if block and _PROSE_START.match(lines[block[0]]) and not any(_NOT_PROSE.match(lines[i]) for i in block):
            start, end = starts[block[0]], starts[block[-1]] + len(lines[block[-1]])
            if len(text[start:end].split()) >= MIN_PARAGRAPH_WORDS:
                out.append((start, end))
        block.clear()

    for i in range(skip_to, len(lines)):
        if _FENCE.match(lines[i]):
            flush()
            fence = not fence
        elif fence or not lines[i].strip():
            flush()
        else:
            block.append(i)
    flush()
    return out


def sample_labels(corpus: dict[str, str], n: int, seed: int) -> list[Label]:
    """``n`` labels, one per paragraph drawn with ``random.Random(seed)``: a quote of 6 to 12
    whole words found once in the whole corpus (whitespace folded, as labeller matches)."""
    rng = random.Random(seed)
    paragraphs = [(doc, s, e) for doc, text in corpus.items() for s, e in prose_paragraphs(text)]
    rng.shuffle(paragraphs)
    labels: list[Label] = []
    for doc, start, end in paragraphs:
        if len(labels) == n:
            break
        words = list(_WHITESPACE_WORD.finditer(corpus[doc], start, end))
        for _ in range(TRIES_PER_PARAGRAPH):
            size = rng.randint(MIN_WORDS, MAX_WORDS)
            if len(words) < size:
                break
            first = rng.randrange(len(words) - size + 1)
            quote = [m.group() for m in words[first:first + size]]
            pattern = re.compile(r"\s+".join(map(re.escape, quote)))
            if sum(len(pattern.findall(text)) for text in corpus.values()) == 1:
                labels.append(Label(f"sv-{len(labels) + 1:03d}", doc, " ".join(quote), words[first].start(),
                                    words[first + size - 1].end()))
                break
    return labels


# --- labeller -------------------------------------------------------------------------------

class LabellerFailed(RuntimeError):
    pass


def labeller(root: Path, *args: str, ok: tuple[int, ...] = (0, 1)) -> tuple[int, str]:
    """Run this checkout's labeller command line in ``root``; an exit code outside ``ok`` is a failure."""
    env = os.environ | {"PYTHONPATH": str(REPO), "NO_COLOR": "1", "COLUMNS": "200", "LABELLER_REVIEWER": "survival"}
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "labeller.cli", *args], cwd=root, env=env,
                          capture_output=True, text=True)
    print(f"  labeller {' '.join(args)}: exit {proc.returncode}, {time.perf_counter() - started:.1f} s",
          file=sys.stderr)
    if proc.returncode not in ok:
        raise LabellerFailed(f"labeller {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    return proc.returncode, proc.stdout


def repair_available(root: Path) -> str | None:
    """None when this labeller has a ``repair`` command; otherwise why not, for the report."""
    code, _ = labeller(root, "repair", "--help", ok=(0, 2))
    return None if code == 0 else "this labeller has no `repair` command (`labeller repair --help` exits 2)"


def project_git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=survival", "-c", "user.email=survival@example.invalid",
                    "-c", "commit.gpgsign=false", *args], cwd=root, check=True, capture_output=True,
                   env=os.environ | {"GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
                                     "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"})


def write_corpus(root: Path, corpus: dict[str, str]) -> None:
    shutil.rmtree(root / "corpus", ignore_errors=True)
    for doc, text in corpus.items():
        path = root / "corpus" / doc
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")


def write_records(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records),
                    encoding="utf-8")


def read_records(path: Path) -> dict[str, dict]:
    records = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("//"):
            record = json.loads(line)
            records[record["id"]] = record
    return records


def refused(root: Path) -> dict[str, str]:
    """``build --check``'s refusals: record id → kind (one locator per record here)."""
    return checked(root)[0]


def checked(root: Path) -> tuple[dict[str, str], set[str]]:
    """``build --check``: its refusals (``refused``) and the records it names to re-read."""
    _, out = labeller(root, "build", "--check", "--format", "json")
    report = json.loads(out)
    return {e["id"]: e["kind"] for e in report["errors"]}, to_reread(report)


def to_reread(check: dict) -> set[str]:
    """The records ``build --check --format json`` names to re-read: its drift's classes, or with
    labels refused, those of the labels beside them (``drift_beside_refusals``)."""
    drift = check.get("drift") or check.get("drift_beside_refusals") or {}
    return {*drift.get("answer_text_changed", []), *drift.get("answer_text_not_comparable", [])}


def spans_of(root: Path, records: dict[str, dict], kept: set[str]) -> dict[str, dict]:
    """The span labeller gives each record of ``kept`` (a build of those records alone)."""
    write_records(root / "golden" / "resolving.jsonl", [r for i, r in records.items() if i in kept])
    labeller(root, "build", "--questions", "golden/resolving.jsonl", "--out", "resolving", "--format", "json", ok=(0,))
    spans = {}
    for line in (root / "resolving" / "golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        spans[row["query_id"]] = row["answer_spans"][0]
    return spans


def make_base(root: Path, corpus: dict[str, str], labels: list[Label]) -> list[Label]:
    """The project at the base commit, built and committed; labels labeller refuses there are
    dropped (reported as such), so that every label starts resolved."""
    write_corpus(root, corpus)
    write_records(root / "golden" / "questions.jsonl", [lb.record() for lb in labels])
    (root / ".gitignore").write_text(".labeller-cache/\n.labeller/\nresolving/\n", encoding="utf-8")
    first = refused(root)
    labels = [lb for lb in labels if lb.id not in first]
    write_records(root / "golden" / "questions.jsonl", [lb.record() for lb in labels])
    labeller(root, "build", "--format", "json", ok=(0,))
    project_git(root, "init", "-q")
    project_git(root, "add", "-A")
    project_git(root, "commit", "-q", "-m", "corpus and labels at the base commit")
    return labels


# --- one later commit -----------------------------------------------------------------------

def covers(span: dict | None, fate: Fate, *, whole: bool) -> bool:
    """Does labeller's span stand where the words went: in that document, over their whole
    range (``whole``) or over part of it (an edited quote)?"""
    if span is None or fate.doc is None or span["doc_id"] != fate.doc:
        return False
    assert fate.char_start is not None and fate.char_end is not None
    if whole:
        return span["char_start"] <= fate.char_start and fate.char_end <= span["char_end"]
    return span["char_start"] < fate.char_end and fate.char_start < span["char_end"]


def locator(record: dict) -> dict:
    return record["locators"][0]


def quote_range(text: str, span: dict | None, loc: dict) -> tuple[int, int] | None:
    """Where a resolved locator's quote stands in its span (the span is the quote's block):
    its words with any whitespace between, the one occurrence whose text before and after
    holds its context, if it has one; None unless exactly one does. Read from the text, not
    from labeller, so that the benchmark checks the quote a repair wrote."""
    if span is None:
        return None
    pattern = re.compile(r"\s+".join(map(re.escape, loc["quote"].split())))
    prefix, suffix = (" ".join(loc.get(k, "").split()) for k in ("prefix", "suffix"))
    found = []
    for m in pattern.finditer(text, span["char_start"], span["char_end"]):
        before = " ".join(text[max(0, m.start() - 4 * len(prefix) - 64):m.start()].split())
        after = " ".join(text[m.end():m.end() + 4 * len(suffix) + 64].split())
        if before.endswith(prefix.strip()) and after.startswith(suffix.strip()):
            found.append((m.start(), m.end()))
    return found[0] if len(found) == 1 else None


def mostly_within(inner: tuple[int, int] | None, fate: Fate) -> bool:
    """At least half of ``inner``'s characters inside the range where the truth says the
    quote's surviving words now stand."""
    if inner is None or fate.char_start is None or fate.char_end is None:
        return False
    overlap = min(inner[1], fate.char_end) - max(inner[0], fate.char_start)
    return 2 * overlap >= inner[1] - inner[0]


def truth_at(git_dir: Path, subdir: str, base: str, rev: str, base_corpus: dict[str, str],
             labels: list[Label]) -> tuple[dict[str, str], History, dict[str, Fate]]:
    """The corpus at ``rev``, its history from ``base`` and the ground truth's fate of each label."""
    corpus = corpus_at(git_dir, rev, subdir)
    history = History(base_corpus, corpus, renames(git_dir, base, rev, subdir))
    return corpus, history, {lb.id: history.fate(lb.doc, lb.char_start, lb.char_end) for lb in labels}


def survive_commit(git_dir: Path, subdir: str, base: str, rev: str, base_corpus: dict[str, str],
                   labels: list[Label], base_root: Path, root: Path, repair_missing: str | None) -> dict:
    corpus, history, fates = truth_at(git_dir, subdir, base, rev, base_corpus, labels)
    shutil.copytree(base_root, root, symlinks=True)
    write_corpus(root, corpus)
    project_git(root, "add", "-A")
    project_git(root, "commit", "-q", "--allow-empty", "-m", f"corpus at {rev}")
    questions = root / "golden" / "questions.jsonl"
    original = read_records(questions)
    at_check, reread = checked(root)
    after_moves = after_score = original
    why_left: dict[str, str] = {}
    if repair_missing is None:
        labeller(root, "repair", "--moves", "--format", "json")
        after_moves = read_records(questions)
        _, out = labeller(root, "repair", "--min-score", str(MIN_SCORE), "--format", "json")
        why_left = {x["id"]: x["reason"] for x in json.loads(out)["left"]}
        after_score = read_records(questions)
    at_end = refused(root) if after_score != original else at_check
    spans = spans_of(root, after_score, {i for i in after_score if i not in at_end})
    rows = [judge(lb, fates[lb.id], at_check.get(lb.id), at_end.get(lb.id), spans.get(lb.id),
                  locator(original[lb.id]), locator(after_moves[lb.id]), locator(after_score[lb.id]),
                  why_left.get(lb.id), corpus, lb.id in reread)
            for lb in labels]
    return {**commit_of(git_dir, rev), "docs": len(corpus), "renamed_docs": len(history.renames),
            "figures": figures(rows, repair_missing is None), "labels": [r for r in rows if notable(r)]}


def judge(lb: Label, fate: Fate, check_kind: str | None, end_kind: str | None, span: dict | None,
          before: dict, moved: dict, scored: dict, why_left: str | None = None,
          corpus: dict[str, str] | None = None, flagged: bool = False) -> dict:
    """One label at one commit: what ``build --check`` did with it, what each repair did, and
    whether each was right by the ground truth; for one ``repair --min-score`` left, its reason;
    for one that resolved, whether the check named it to re-read (``flagged``).
    A repair that rewrote the quote is right only if the new quote itself (found in its span's
    text: the span is its whole block) stands mostly where the truth says the words went."""
    whole = fate.kind in (INTACT, RENAMED, MOVED)
    row: dict = {"id": lb.id, "doc": lb.doc, "quote": lb.quote, **fate.as_json(), "check": check_kind or "resolved"}
    if check_kind is None:
        # kept: its span must stand over the words (an edited quote that still occurs in its
        # paragraph, say with a word added after it, stands over part of them)
        row["silent_move"] = not (covers(span, fate, whole=whole)
                                  or fate.kind == EDITED and covers(span, fate, whole=False))
        row["flagged"] = flagged
    steps = [step for step, old, new in (("moves", before, moved), ("min_score", moved, scored)) if new != old]
    if steps:
        row["repaired_by"] = steps
        row["repaired_to"] = scored
        # right: resolved where the words went; a move keeps the quote as it was (a context may
        # be added: the quote now repeated in its new page, the occurrence where it stood pinned)
        unchanged_quote = all(scored.get(k) == before.get(k) for k in ("quote", "prefix", "suffix"))
        row["repair_correct"] = (end_kind is None and covers(span, fate, whole=whole)
                                 and (scored.get("quote") == before.get("quote") or "moves" not in steps))
        if not unchanged_quote and row["repair_correct"]:
            text = (corpus or {}).get(fate.doc or "")
            row["repair_correct"] = text is not None and mostly_within(quote_range(text, span, scored), fate)
    row["left"] = end_kind
    if end_kind is not None and why_left is not None:
        row["left_because"] = why_left
    return row


def notable(row: dict) -> bool:
    """Worth listing in the report: anything but an intact label kept as it was."""
    return row["fate"] != INTACT or row["check"] != "resolved" or "repaired_by" in row or row["silent_move"]


def figures(rows: list[dict], repaired: bool) -> dict:
    """The counts of one later commit (see the module docstring); repair figures are None
    when there was no ``repair`` to run."""
    of = {kind: [r for r in rows if r["fate"] == kind] for kind in FATES}
    # a renamed quote that now also stands verbatim in other documents: SPEC §13's ambiguous
    several = [r for r in of[RENAMED] if r.get("candidates")]
    moving = [r for r in of[RENAMED] if not r.get("candidates")] + of[MOVED]
    # edited and refused (an edited label whose quote still stands in its paragraph needs no
    # repair); in place: the document kept its path, the rest were renamed too
    broken = [r for r in of[EDITED] if r["check"] != "resolved"]
    in_place = [r for r in broken if r["now"]["doc"] == r["doc"]]
    # intact, but the page now repeats the quote: refused as ambiguous, for repair to pin where it stood
    repeated = [r for r in of[INTACT] if r["check"] == "ambiguous"]
    mostly_kept = [r for r in in_place if r["kept_words"] >= MOSTLY_KEPT]
    rewritten = [r for r in in_place if r["kept_words"] < MOSTLY_KEPT]
    checked: dict[str, int] = {}
    for r in rows:
        checked[r["check"]] = checked.get(r["check"], 0) + 1

    def fixed(group: list[dict], step: str) -> int | None:
        return sum(1 for r in group if r.get("repaired_by") == [step] and r["repair_correct"]) if repaired else None

    return {
        "labels": len(rows),
        "fates": {kind: len(of[kind]) for kind in FATES},
        "check": dict(sorted(checked.items())),
        "intact_kept_in_place": sum(1 for r in of[INTACT] if r["check"] == "resolved" and not r["silent_move"]),
        "intact_now_repeated": len(repeated),
        "intact_now_repeated_repaired_by_min_score": fixed(repeated, "min_score"),
        "silent_moves": sum(1 for r in rows if r.get("silent_move")),
        "edited_still_resolving": sum(1 for r in of[EDITED] if r["check"] == "resolved" and not r["silent_move"]),
        # resolving labels ``build --check`` names to re-read (its drift, or the drift beside refusals):
        # an edited quote still standing in its paragraph is one a person should read
        "edited_still_resolving_flagged": sum(1 for r in of[EDITED] if r["check"] == "resolved"
                                              and not r["silent_move"] and r.get("flagged")),
        "intact_kept_in_place_flagged": sum(1 for r in of[INTACT] if r["check"] == "resolved"
                                            and not r["silent_move"] and r.get("flagged")),
        "silent_moves_flagged": sum(1 for r in rows if r.get("silent_move") and r.get("flagged")),
        "renamed_or_moved": len(moving),
        "renamed_or_moved_refused_unknown_doc": sum(1 for r in moving if r["check"] == "unknown_doc"),
        "renamed_or_moved_repaired_by_moves": fixed(moving, "moves"),
        "renamed_in_several_docs": len(several),
        "renamed_in_several_docs_left_refused": sum(1 for r in several if r["left"] is not None),
        "edited_refused": len(broken),
        "edited_repaired_by_min_score": fixed(broken, "min_score"),
        "edited_in_place": len(in_place),
        "edited_in_place_repaired_by_min_score": fixed(in_place, "min_score"),
        "edited_in_place_mostly_kept": len(mostly_kept),
        "edited_in_place_mostly_kept_repaired_by_min_score": fixed(mostly_kept, "min_score"),
        "edited_in_place_rewritten": len(rewritten),
        "edited_in_place_rewritten_repaired_by_min_score": fixed(rewritten, "min_score"),
        "wrong_repairs": sum(1 for r in rows if r.get("repaired_by") and not r["repair_correct"]) if repaired else None,
        # ... of them, labels the truth calls deleted: it found their words nowhere (a paragraph moved to a
        # page git pairs with another, a page rewritten as HTML), so the repair is a wrong one or a place the
        # truth cannot see; those it places elsewhere are wrong for certain
        "wrong_repairs_of_deleted": sum(1 for r in rows if r.get("repaired_by") and not r["repair_correct"]
                                        and r["fate"] == DELETED) if repaired else None,
        "deleted_left_refused": sum(1 for r in of[DELETED] if r["left"] is not None),
        "moved_ambiguous_left_refused": sum(1 for r in of[MOVED_AMBIGUOUS] if r["left"] is not None),
    }


# --- the whole run --------------------------------------------------------------------------

def base_corpus_at(git_dir: Path, base: str, subdir: str) -> dict[str, str]:
    """The corpus the labels are written in; none there is a usage error, not an empty report."""
    corpus = corpus_at(git_dir, base, subdir)
    if not corpus:
        raise SystemExit(f"no Markdown files under {subdir}/ at {base}")
    return corpus


def base_entry(git_dir: Path, base: str, corpus: dict[str, str]) -> dict:
    """The report's ``base``: the commit, its date and the corpus's size there."""
    return {**commit_of(git_dir, base), "docs": len(corpus), "chars": sum(len(t) for t in corpus.values())}


def survive(git_dir: Path, subdir: str, base: str, later: list[str], n_labels: int, seed: int, work: Path,
            name: str = "", role: str = "") -> dict:
    """The report of one history: labels written at ``base``, followed to each of ``later``."""
    base_corpus = base_corpus_at(git_dir, base, subdir)
    sampled = sample_labels(base_corpus, n_labels, seed)
    base_root = work / "base"
    base_root.mkdir(parents=True)
    labels = make_base(base_root, base_corpus, sampled)
    missing = repair_available(base_root)
    if missing:
        print(f"survival: {missing}; the repair figures are null", file=sys.stderr)
    commits = []
    for i, rev in enumerate(later):
        print(f"survival: {name or git_dir} at {rev[:12]}", file=sys.stderr)
        commits.append(survive_commit(git_dir, subdir, base, rev, base_corpus, labels, base_root,
                                      work / f"later-{i + 1}", missing))
    return {"schema": SCHEMA, "history": {"name": name, "role": role, "subdir": subdir, "seed": seed},
            "base": base_entry(git_dir, base, base_corpus),
            "labels": {"asked": n_labels, "written": len(sampled), "refused_at_base": len(sampled) - len(labels),
                       "kept": len(labels)},
            "repair": "available" if missing is None else f"not available: {missing}",
            "commits": [c | {"name": f"{c['commit'][:12]} ({c['date']})"} for c in commits]}


def truth_only(git_dir: Path, subdir: str, base: str, later: list[str], n_labels: int, seed: int,
               name: str = "", role: str = "") -> dict:
    """The ground truth alone (``--truth-only``; labeller is not run): the labels ``survive``
    would write, and per later commit how many the truth calls intact, renamed, moved, edited
    or deleted; the edited ones split as the figures split them (in place or in a renamed
    document; in place, quote mostly kept or rewritten)."""
    base_corpus = base_corpus_at(git_dir, base, subdir)
    labels = sample_labels(base_corpus, n_labels, seed)
    commits = []
    for rev in later:
        print(f"survival (truth only): {name or git_dir} at {rev[:12]}", file=sys.stderr)
        corpus, history, fates = truth_at(git_dir, subdir, base, rev, base_corpus, labels)
        edited = [(lb, fates[lb.id]) for lb in labels if fates[lb.id].kind == EDITED]
        in_place = [fate for lb, fate in edited if fate.doc == lb.doc]
        commits.append({**commit_of(git_dir, rev), "docs": len(corpus), "renamed_docs": len(history.renames),
                        "fates": {kind: sum(1 for f in fates.values() if f.kind == kind) for kind in FATES},
                        "edited_in_place": len(in_place),
                        "edited_in_place_mostly_kept": sum(1 for f in in_place if (f.kept or 0) >= MOSTLY_KEPT),
                        "edited_in_renamed_doc": len(edited) - len(in_place)})
    return {"schema": TRUTH_SCHEMA, "history": {"name": name, "role": role, "subdir": subdir, "seed": seed},
            "base": base_entry(git_dir, base, base_corpus),
            "labels": {"asked": n_labels, "written": len(labels)},
            "commits": [c | {"name": f"{c['commit'][:12]} ({c['date']})"} for c in commits]}


def truth_markdown(report: dict) -> str:
    """``truth_only``'s table: one row per later commit, the truth's fate counts."""
    h = report["history"]
    base = report["base"]
    lines = [f"**{h['name'] or 'history'}** (ground truth only, labeller not run): {report['labels']['written']} "
             f"labels written at {base['commit'][:12]} ({base['date']}, {base['docs']} documents, "
             f"{base['chars']:,} characters).", "",
             "| later commit | docs (renamed) | " + " | ".join(FATES) + " | edited in place (mostly kept) "
             "| edited in a renamed doc |",
             "|---|---|" + "---|" * len(FATES) + "---|---|"]
    for c in report["commits"]:
        lines.append(f"| {c['name']} | {c['docs']} ({c['renamed_docs']}) | "
                     + " | ".join(str(c["fates"][kind]) for kind in FATES)
                     + f" | {c['edited_in_place']} ({c['edited_in_place_mostly_kept']})"
                     + f" | {c['edited_in_renamed_doc']} |")
    return "\n".join(lines) + "\n"


def _ratio(part: int | None, whole: int) -> str:
    return "n/a (no repair)" if part is None else f"{part} / {whole}"


def _total(commits: list[dict]) -> dict:
    """The table's last row: every figure summed over the later commits (label × commit checks)."""
    def add(values: list):
        if isinstance(values[0], dict):
            return {k: add([v[k] for v in values]) for k in values[0]}
        return None if None in values else sum(values)

    figures = add([{k: v for k, v in c["figures"].items() if k != "check"} for c in commits])
    return {"figures": figures, "name": f"all {len(commits)} ({figures['labels']} label × commit checks)",
            "docs_cell": ""}


def _wrong(f: dict) -> str:
    """The wrong repairs, and how many of them are of labels the truth calls deleted."""
    if f["wrong_repairs"] is None:
        return "n/a"
    deleted = f["wrong_repairs_of_deleted"]
    return f"{f['wrong_repairs']} ({deleted} of 'deleted')" if deleted else str(f["wrong_repairs"])


def _in_several(f: dict) -> str:
    """The renamed labels whose quote now stands verbatim in several documents, when there are
    any: not in the ratio (SPEC §13 leaves them for a person, the documents listed); how many
    were left refused so."""
    n = f["renamed_in_several_docs"]
    return f" (+ {n} in several docs, left refused: {f['renamed_in_several_docs_left_refused']})" if n else ""


def _repeated(f: dict) -> str:
    """The intact labels whose quote the page now repeats (refused as ambiguous), when there are
    any, and how many ``repair`` pinned where they stood."""
    n = f["intact_now_repeated"]
    if not n:
        return ""
    fixed = f["intact_now_repeated_repaired_by_min_score"]
    return f" ({n} now repeated in the page" + (f": {fixed} pinned where they stood" if fixed is not None else "") \
        + ")"


def _renamed_edits(f: dict) -> str:
    """The edited labels whose document was also renamed, when there are any."""
    moved = f["edited_refused"] - f["edited_in_place"]
    if not moved or f["edited_repaired_by_min_score"] is None:
        return ""
    return f" (renamed doc: {f['edited_repaired_by_min_score'] - f['edited_in_place_repaired_by_min_score']} / {moved})"


def markdown(report: dict) -> str:
    """One table row per later commit, the figures of ``figures``."""
    h = report["history"]
    base = report["base"]
    lines = [f"**{h['name'] or 'history'}** ({h['role']}): {report['labels']['kept']} labels written at "
             f"{base['commit'][:12]} ({base['date']}, {base['docs']} documents, {base['chars']:,} characters); "
             f"repair {report['repair']}.", "",
             "| later commit | docs (renamed) | intact kept in place | silent moves | renamed/moved repaired by "
             "`--moves` | edited in place repaired by `--min-score 80` | of them quote mostly kept "
             f"(≥ {MOSTLY_KEPT:.0%} of its words) | of them rewritten (< {MOSTLY_KEPT:.0%}) "
             "| wrong repairs | deleted left refused |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    rows = [c | {"docs_cell": f"{c['docs']} ({c['renamed_docs']})"} for c in report["commits"]]
    for c in rows + [_total(report["commits"])]:
        f = c["figures"]
        fates = f["fates"]
        lines.append(
            f"| {c['name']} | {c['docs_cell']} "
            f"| {f['intact_kept_in_place']} / {fates[INTACT]}{_repeated(f)} | {f['silent_moves']} "
            f"| {_ratio(f['renamed_or_moved_repaired_by_moves'], f['renamed_or_moved'])}{_in_several(f)} "
            f"| {_ratio(f['edited_in_place_repaired_by_min_score'], f['edited_in_place'])}"
            f"{_renamed_edits(f)} "
            f"| {_ratio(f['edited_in_place_mostly_kept_repaired_by_min_score'], f['edited_in_place_mostly_kept'])} "
            f"| {_ratio(f['edited_in_place_rewritten_repaired_by_min_score'], f['edited_in_place_rewritten'])} "
            f"| {_wrong(f)} "
            f"| {f['deleted_left_refused']} / {fates[DELETED]} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("git_dir", type=Path, help="a clone (bare or not) of the documentation repository")
    p.add_argument("--preset", choices=sorted(PRESETS), help="a history of this page's PRESETS")
    p.add_argument("--subdir", help="the corpus folder inside the repository")
    p.add_argument("--base", help="the commit the labels are written at")
    p.add_argument("--later", nargs="+", help="the later commits")
    p.add_argument("--labels", type=int, default=300)
    p.add_argument("--seed", type=int, default=35)
    p.add_argument("--json", type=Path, help="write the report here")
    p.add_argument("--markdown", type=Path, help="write the table here")
    p.add_argument("--keep", type=Path, help="work in this (new) folder and keep it, instead of a temporary one")
    p.add_argument("--truth-only", action="store_true",
                   help="run no labeller: only the ground truth's fate counts per later commit (to check a "
                        "held-out history before its one run)")
    args = p.parse_args(argv)
    preset = PRESETS.get(args.preset) if args.preset else None
    subdir = args.subdir or (preset.subdir if preset else None)
    base = args.base or (preset.base if preset else None)
    later = args.later or (list(preset.later) if preset else None)
    if not (subdir and base and later):
        p.error("give --preset, or --subdir, --base and --later")
    git_dir = args.git_dir.resolve()
    if (git_dir / ".git").is_dir():  # a clone with a work tree: its git directory
        git_dir = git_dir / ".git"
    name = preset.repo if preset else git_dir.name
    role = preset.role if preset else ""
    if args.truth_only:
        report = truth_only(git_dir, subdir, base, later, args.labels, args.seed, name, role)
    elif args.keep:
        report = survive(git_dir, subdir, base, later, args.labels, args.seed, args.keep.resolve(), name, role)
    else:
        with tempfile.TemporaryDirectory(prefix="labeller-survival-") as tmp:
            report = survive(git_dir, subdir, base, later, args.labels, args.seed, Path(tmp), name, role)
    table = truth_markdown(report) if args.truth_only else markdown(report)
    text = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(table, encoding="utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
