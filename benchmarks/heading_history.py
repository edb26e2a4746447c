"""Edited headings on real histories: do section locators follow them (``core/heading_edits.py``)?

    python benchmarks/heading_history.py GIT_DIR --preset vue-docs [--labels 200] [--seed 21] [--json OUT]

The survival benchmark's probes are all quotes; this one writes section locators. At a preset's
base commit (``survival.PRESETS``) up to ``--labels`` ATX headings whose title is written once in
their page are drawn with a seeded RNG, and a labeller project labels each section
(``{"doc", "heading"}``), built and committed in a git work tree. For each later commit the
project, reset to the base, gets that commit's corpus, committed, then ``labeller build --check``
and ``labeller repair --dry-run`` (``--format json``).

The ground truth is labeller-free: the page (followed along ``git diff -M30%``'s rename pairing)
is compared line by line across the two commits (``difflib``, no junk heuristic). The heading's
line kept equal: *kept*. Inside a changed hunk whose old and new lines hold the same number of
ATX headings at the same levels, in order: the heading in its position; else the heading now
over more than half of the section's non-blank body lines the comparison keeps equal (its body
stayed, its title was rewritten); that heading's title differing: *edited*. A title that still
stands once in the page is that section (*moved in page*), unless its body went under another
heading (then *edited* to that one: the title now heads other text, and a label still resolving
is a silent move). Nothing found: *gone*. A page git does not pair is followed to the new page
holding the most of its distinct lines, at least 30% of them (``successor``); none: *gone*.

The figures, per later commit: probes, kept headings that still resolve, silent moves (a label
that resolves although its heading's line changed: it now names another section of that title,
must be 0) and of those the ones ``build --check`` names to re-read (its drift classes, beside any
refusals), kept headings it names (their section's text changed under the title), edited
headings repaired right / wrong / left (with why), gone headings left refused / wrongly
repaired. The JSON is deterministic (times go to stderr).
"""

from __future__ import annotations

import argparse
import bisect
import difflib
import json
import random
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from survival import (PRESETS, corpus_at, labeller, project_git, renames, to_reread,  # noqa: E402
                      write_corpus, write_records)

SCHEMA = "labeller.heading-history.v1"
_ATX = re.compile(r"^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
KEPT, EDITED, MOVED_IN_PAGE, GONE = "kept", "edited", "moved_in_page", "gone"
MIN_SHARED_LINES = 0.3


def atx_headings(lines: list[str]) -> dict[int, tuple[int, str]]:
    """Line number → (level, title) of each ATX heading outside fenced code."""
    out: dict[int, tuple[int, str]] = {}
    fence = None
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if m:
            fence = None if fence == m.group(1) else fence or m.group(1)
            continue
        if fence is None and (h := _ATX.match(line)) and h.group(2).strip():
            out[i] = (len(h.group(1)), h.group(2).strip())
    return out


def heading_truth(old: str, new: str, line: int) -> tuple[str, str | None]:
    """The fate of the heading on ``line`` of ``old`` in ``new``: ``(kept, title)``, ``(edited,
    new title)``, ``(moved_in_page, title)`` or ``(gone, None)`` (see the module's docstring)."""
    a, b = old.split("\n"), new.split("\n")
    old_h, new_h = atx_headings(a), atx_headings(b)
    title = old_h[line][1]
    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    placed = None  # the heading in the same position of a hunk of the same shape
    body = _body_owner(a, old_h, new_h, opcodes, line)
    for tag, i1, i2, j1, j2 in opcodes:
        if i1 <= line < i2:
            if tag == "equal":
                return (EDITED, body) if body is not None and body != title else (KEPT, title)
            before = [k for k in range(i1, i2) if k in old_h]
            after = [k for k in range(j1, j2) if k in new_h]
            if tag == "replace" and [old_h[k][0] for k in before] == [new_h[k][0] for k in after]:
                placed = new_h[after[before.index(line)]][1]
            break
    if [t for _, t in new_h.values()].count(title) == 1:
        # the title still stands once: that section, unless the body went under another heading
        return (EDITED, body) if body is not None and body != title else (MOVED_IN_PAGE, title)
    now = placed if placed is not None else body
    return (EDITED, now) if now is not None else (GONE, None)


def _body_owner(a: list[str], old_h: dict, new_h: dict, opcodes: list, line: int) -> str | None:
    """The heading the section's body went under: of the headings now enclosing the body's
    non-blank lines the comparison keeps equal (each line's heading path), those over more than
    half of them; the old title when it is one of those, at any level (a sub-section inserted
    into it leaves the section its own; a page's headings shift a level), else the deepest at the
    old heading's level or below. None when no heading is over half."""
    level = old_h[line][0]
    end = min([k for k in old_h if k > line and old_h[k][0] <= level], default=len(a))
    body = [k for k in range(line + 1, end) if a[k].strip() and k not in old_h]
    heads = sorted(new_h)
    paths: list[list[int]] = []
    stack: list[int] = []
    for h in heads:
        while stack and new_h[stack[-1]][0] >= new_h[h][0]:
            stack.pop()
        stack.append(h)
        paths.append(list(stack))
    owners: dict[int, int] = {}
    for tag, i1, i2, j1, _ in opcodes:
        if tag == "equal":
            for k in body:
                if i1 <= k < i2:
                    at = bisect.bisect_right(heads, j1 + k - i1) - 1
                    for h in paths[at] if at >= 0 else ():
                        owners[h] = owners.get(h, 0) + 1
    over = [h for h in owners if owners[h] * 2 > len(body)]
    title = old_h[line][1]
    if any(new_h[h][1] == title for h in over):  # at any level: a page's headings shifted a level
        return title
    deep = [h for h in over if new_h[h][0] >= level]
    return new_h[max(deep, key=lambda h: (new_h[h][0], h))][1] if deep else None


def successor(doc: str, old: dict[str, str], new: dict[str, str], renamed: dict[str, str]) -> str | None:
    """The page ``doc`` became: git's rename, itself, else the new page (not an old one's) holding
    the most of its distinct non-blank lines, when that is at least ``MIN_SHARED_LINES`` of them
    (git's 30% similarity misses a page moved out of a folder and reworded, as Poetry's were)."""
    if doc in renamed:
        return renamed[doc]
    if doc in new:
        return doc
    mine = {line for line in old[doc].split("\n") if line.strip()}
    best, shared = None, 0
    for other, text in new.items():
        if other in old:
            continue
        n = len(mine & {line for line in text.split("\n") if line.strip()})
        if n > shared:
            best, shared = other, n
    return best if mine and shared >= MIN_SHARED_LINES * len(mine) else None


def sample(corpus: dict[str, str], n: int, seed: int) -> list[dict]:
    """Section locators of headings whose title is written once in their page."""
    found = []
    for doc, text in corpus.items():
        heads = atx_headings(text.split("\n"))
        titles = [t for _, t in heads.values()]
        found += [{"doc": doc, "heading": t, "line": i} for i, (_, t) in heads.items() if titles.count(t) == 1]
    rng = random.Random(seed)
    picked = sorted(rng.sample(found, min(n, len(found))), key=lambda x: (x["doc"], x["line"]))
    return [{**p, "id": f"h-{i:03d}"} for i, p in enumerate(picked)]


def record(probe: dict) -> dict:
    return {"id": probe["id"], "query": f"heading probe {probe['id']}: what does {probe['heading']} say?",
            "expected_answer": "", "locators": [{"doc": probe["doc"], "heading": probe["heading"]}]}


def run(git_dir: Path, preset: str, n: int, seed: int, work: Path) -> dict:
    p = PRESETS[preset]
    base = corpus_at(git_dir, p.base, p.subdir)
    probes = sample(base, n, seed)
    root = work / "project"
    write_corpus(root, base)
    write_records(root / "golden" / "questions.jsonl", [record(x) for x in probes])
    (root / ".gitignore").write_text(".labeller-cache/\n.labeller/\n", encoding="utf-8")
    _, out = labeller(root, "build", "--check", "--format", "json")
    dropped = {e["id"] for e in json.loads(out)["errors"]}
    probes = [x for x in probes if x["id"] not in dropped]
    write_records(root / "golden" / "questions.jsonl", [record(x) for x in probes])
    labeller(root, "build", "--format", "json", ok=(0,))
    project_git(root, "init", "-q")
    project_git(root, "add", "-A")
    project_git(root, "commit", "-q", "-m", "base")
    commits = []
    for rev in p.later:
        project_git(root, "reset", "-q", "--hard", "HEAD" if not commits else "HEAD~1")
        now = corpus_at(git_dir, rev, p.subdir)
        write_corpus(root, now)
        project_git(root, "add", "-A")
        project_git(root, "commit", "-q", "--allow-empty", "-m", rev)
        _, out = labeller(root, "build", "--check", "--format", "json")
        check = json.loads(out)
        refused = {e["id"]: e for e in check["errors"]}
        reread = to_reread(check)
        _, out = labeller(root, "repair", "--dry-run", "--format", "json", ok=(0, 1))
        plan = json.loads(out)
        applied = {f["id"]: f["new"] for f in plan["applied"]}
        left = {x["id"]: x["reason"] for x in plan["left"]}
        moved = renames(git_dir, p.base, rev, p.subdir)
        rows = []
        for x in probes:
            doc = successor(x["doc"], base, now, moved)
            fate, title = heading_truth(base[x["doc"]], now[doc], x["line"]) if doc is not None else (GONE, None)
            new = applied.get(x["id"])
            row = {"id": x["id"], "doc": x["doc"], "heading": x["heading"], "fate": fate, "truth": title,
                   "refused": x["id"] in refused, "flagged": x["id"] in reread}
            if new is not None:
                row["repaired_to"] = new
                row["right"] = fate in (KEPT, EDITED, MOVED_IN_PAGE) and new == {"doc": doc, "heading": title}
            elif x["id"] in left:
                row["left_because"] = left[x["id"]]
            rows.append(row)
        commits.append({"commit": rev, "labels": rows, "figures": figures(rows)})
    return {"schema": SCHEMA, "preset": preset, "repo": p.repo, "base": p.base, "probes": len(probes),
            "dropped_at_base": len(dropped), "commits": commits}


def figures(rows: list[dict]) -> dict:
    def n(pred) -> int:
        return sum(1 for r in rows if pred(r))

    return {
        "probes": len(rows),
        "kept": n(lambda r: r["fate"] == KEPT),
        "kept_resolving": n(lambda r: r["fate"] == KEPT and not r["refused"]),
        "kept_refused": n(lambda r: r["fate"] == KEPT and r["refused"]),  # its page renamed
        "kept_refused_repaired_right": n(lambda r: r["fate"] == KEPT and r["refused"] and r.get("right")),
        "moved_in_page": n(lambda r: r["fate"] == MOVED_IN_PAGE),
        "moved_in_page_resolving": n(lambda r: r["fate"] == MOVED_IN_PAGE and not r["refused"]),
        "silent_moves": n(lambda r: r["fate"] in (EDITED, GONE) and not r["refused"]),
        # of those, the ones ``build --check`` names to re-read (answer text changed or not comparable)
        "silent_moves_flagged": n(lambda r: r["fate"] in (EDITED, GONE) and not r["refused"] and r["flagged"]),
        "kept_resolving_flagged": n(lambda r: r["fate"] == KEPT and not r["refused"] and r["flagged"]),
        "wrong_repairs": n(lambda r: "repaired_to" in r and not r["right"]),
        "edited": n(lambda r: r["fate"] == EDITED),
        "edited_repaired_right": n(lambda r: r["fate"] == EDITED and r.get("right")),
        "edited_repaired_wrong": n(lambda r: r["fate"] == EDITED and "repaired_to" in r and not r["right"]),
        "edited_left": n(lambda r: r["fate"] == EDITED and r["refused"] and "repaired_to" not in r),
        "gone": n(lambda r: r["fate"] == GONE),
        "gone_left_refused": n(lambda r: r["fate"] == GONE and r["refused"] and "repaired_to" not in r),
        "gone_repaired": n(lambda r: r["fate"] == GONE and "repaired_to" in r),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("git_dir", type=Path)
    ap.add_argument("--preset", choices=sorted(PRESETS), required=True)
    ap.add_argument("--labels", type=int, default=200)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    git_dir = args.git_dir.resolve()
    if (git_dir / ".git").is_dir():
        git_dir = git_dir / ".git"
    with tempfile.TemporaryDirectory(prefix="labeller-headings-") as tmp:
        report = run(git_dir, args.preset, args.labels, args.seed, Path(tmp))
    text = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    for c in report["commits"]:
        print(c["commit"][:12], json.dumps(c["figures"], sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
