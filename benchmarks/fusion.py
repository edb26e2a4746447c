"""The hybrid's fusion on evidence (issue 37.6): BM25, dense and their fusions side by side, and
each fusion's worst gap to the better of its two members.

    python benchmarks/fusion.py --cache /tmp/fusion-cache --project DIR [--project DIR ...] \\
        [--sentences BOOK/src --seed 20260101 --sentence-questions 1000]   # needs labeller[dense] and the model

Sets (``bm25_tuning.sets``, copies; nothing of them is kept here): the bundled handbook, the
``mixed_ja`` fixture (Japanese and English questions, where an English MiniLM is the weak
member), each ``--project`` (corpus/ + golden/, its own questions), each ``--corpora`` folder
with generated questions and each ``--sentences`` folder with sentence-style questions, one
set per ``--seed``. Every answerable question is asked of labeller's ``bm25`` and ``dense``
retrievers (all-MiniLM-L6-v2, no prefixes) 100 deep; with ``--cache`` each set's two
rankings, scores included, are kept as JSON under a name holding the digest of its corpus
and questions, so a set is embedded once however often the fusions are compared.

Every fusion row is labeller's own ``retrievers.fusion.fuse`` over those two rankings, the
function ``--retriever hybrid`` calls with the members' hits (``[retriever.fusion]``:
``rrf`` with k and the dense weight, ``zscore`` with window and the dense weight; BM25
weighs 1). A record counts at k when one of its answer chunks is in the top k (chunk
success@k), or one of its answer documents holds one of the top k chunks (doc success@k). A
fusion meets the issue's bar when on every set and measure it is at most 0.01 below the
better member. Choose on selection sets; run the held-out sets once, after the choice.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bm25_tuning  # noqa: E402
import dense  # noqa: E402

DEPTH = 100
MEMBERS = ("bm25", "dense")
MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# (label, [retriever.fusion] settings); BM25 weighs 1, "dense" is the dense member's weight
FUSIONS: tuple[tuple[str, dict], ...] = (
    *((f"rrf k {k}, dense weight {w:g}", {"method": "rrf", "k": k, "weights": {"dense": w}})
      for k in (60, 10) for w in (1.0, 0.5, 2.0)),
    *((f"zscore window {n}, dense weight {w:g}", {"method": "zscore", "window": n, "weights": {"dense": w}})
      for n in (50,) for w in (0.3, 0.4, 0.5, 0.7, 1.0)),
    ("zscore window 20, dense weight 0.4", {"method": "zscore", "window": 20, "weights": {"dense": 0.4}}),
    ("zscore window 100, dense weight 0.4", {"method": "zscore", "window": 100, "weights": {"dense": 0.4}}),
)
MEASURES = (("chunk", 5), ("doc", 5), ("doc", 1))

Set = tuple[dict, dict, dict]  # (golden, doc_of, runs) as ``rankings`` gives them


def set_digest(root: Path) -> str:
    """sha256 of a set's corpus files and questions (paths and bytes, in path order)."""
    h = hashlib.sha256()
    for path in sorted(p for part in ("corpus", "golden") for p in (root / part).rglob("*") if p.is_file()):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def rankings(root: Path) -> Set:
    """(answer chunk ids and document ids per question, document of each chunk, each member's
    ranked ``[chunk id, score]`` pairs per question) of a dense project (``dense.copy_project``)."""
    from labeller.core.build import build
    from labeller.eval.retrievers import make_retriever

    project = dense.open_project(root)
    records = [r for r in build(project, project.load_questions().questions).records if not r.question.unanswerable]
    golden = {r.question.id: (sorted(r.chunk_ids), sorted({s.doc_id for s in r.spans})) for r in records}
    doc_of = {c.chunk_id: c.doc_id for c in project.all_chunks}
    runs = {}
    for name in MEMBERS:
        retriever = make_retriever(name, project)
        runs[name] = {r.question.id: [[h.chunk_id, h.score] for h in retriever.retrieve(r.question.id,
                                                                                        r.question.query, DEPTH)]
                      for r in records}
    return golden, doc_of, runs


def cached_rankings(root: Path, cache: Path | None, name: str) -> Set:
    """``rankings`` of the set at ``root``, read from ``cache`` when this corpus and these
    questions were ranked before (under any set name: the file ends in their digest), else
    computed (and kept there as ``NAME-DIGEST.json``)."""
    digest = set_digest(root)[:16]
    kept = sorted(cache.glob(f"*-{digest}.json")) if cache is not None else []
    if kept:
        golden, doc_of, runs = json.loads(kept[0].read_text(encoding="utf-8"))
        return {q: (c, d) for q, (c, d) in golden.items()}, doc_of, runs
    found = rankings(root)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        (cache / f"{name.replace('/', '_')}-{digest}.json").write_text(json.dumps(found, sort_keys=True),
                                                                       encoding="utf-8")
    return found


def fused(runs: dict, settings: dict) -> dict[str, list[str]]:
    """Each question's top ``DEPTH`` by labeller's ``fuse`` with these ``[retriever.fusion]`` settings."""
    from labeller.config import FusionConfig
    from labeller.eval.retrievers.base import Hit
    from labeller.eval.retrievers.fusion import fuse, settled, weight

    cfg = settled(FusionConfig(**settings), "hybrid")
    if cfg.method == "coverage":  # it weighs each question by its words: fusion_coverage.py has them
        raise ValueError("fused: the coverage method needs the questions; see benchmarks/fusion_coverage.py")
    out = {}
    for qid in runs["bm25"]:
        members = [(weight(cfg, m), [Hit(c, s) for c, s in runs[m][qid]]) for m in MEMBERS]
        out[qid] = [h.chunk_id for h in fuse(members, cfg, DEPTH)]
    return out


def success(ranked: dict[str, list[str]], golden: dict, doc_of: dict, level: str, k: int) -> float:
    hits = 0
    for qid, (chunks, docs) in golden.items():
        top = ranked[qid][:k]
        hits += bool(set(chunks).intersection(top)) if level == "chunk" else \
            bool(set(docs).intersection(map(doc_of.get, top)))
    return hits / len(golden) if golden else 0.0


def table(sets: dict[str, Set], fusions: Sequence[tuple[str, dict]] = FUSIONS
          ) -> list[tuple[str, list[float], list[float] | None]]:
    """Rows (name, a figure per set and measure, the gap to the better member per set and
    measure, or None for a member). A gap above 0 is the fusion below the better member."""
    rows = [(n, {s: {q: [c for c, _ in hits] for q, hits in runs[n].items()} for s, (_, _, runs) in sets.items()})
            for n in MEMBERS]
    rows += [(label, {s: fused(runs, settings) for s, (_, _, runs) in sets.items()}) for label, settings in fusions]
    better = {(s, m): max(success(rows[i][1][s], g, d, *m) for i in range(len(MEMBERS)))
              for s, (g, d, _) in sets.items() for m in MEASURES}
    out = []
    for name, ranked in rows:
        figures = [success(ranked[s], g, d, *m) for s, (g, d, _) in sets.items() for m in MEASURES]
        gaps = [better[(s, m)] - v for (s, m), v in zip(((s, m) for s in sets for m in MEASURES), figures)]
        out.append((name, figures, None if name in MEMBERS else gaps))
    return out


def dense_sets(found: dict[str, Path], work: Path) -> dict[str, Path]:
    """Each set as a dense project (``dense.copy_project``; a set whose questions sit beside
    its corpus, as ``mixed_ja``'s, gets them in golden/)."""
    out = {}
    for name, root in found.items():
        if not (root / "golden").is_dir():
            (root / "golden").mkdir()
            shutil.move(root / "questions.jsonl", root / "golden" / "questions.jsonl")
        out[name] = dense.copy_project(root, work / f"dense-{len(out)}", MODEL, "", "")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", type=Path, action="append", default=[], help="a project (corpus/ + golden/)")
    ap.add_argument("--corpora", type=Path, action="append", default=[],
                    help="a real corpus given generated questions (bm25_tuning's sets)")
    ap.add_argument("--sentences", type=Path, action="append", default=[],
                    help="a real corpus given sentence-style questions, e.g. a technical book's src/")
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--sentence-questions", type=int, default=1000)
    ap.add_argument("--seed", type=int, action="append", help="question-set seed (repeatable; default 20260101)")
    ap.add_argument("--no-bundled", action="store_true", help="leave out the bundled handbook and mixed_ja "
                    "(a held-out run of other sets)")
    ap.add_argument("--cache", type=Path, help="keep each set's member rankings here (JSON), and reuse them")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="labeller-fusion-bench-") as tmp:
        found = bm25_tuning.sets(Path(tmp) / "sets", args.corpora, args.questions, args.seed or [20260101],
                                 args.project, args.sentences, args.sentence_questions)
        if args.no_bundled:
            found = {n: p for n, p in found.items() if n not in ("bundled handbook", "mixed_ja")}
        sets = {}
        for name, root in dense_sets(found, Path(tmp)).items():
            sets[name] = cached_rankings(root, args.cache, name)
            print(f"{name}: {len(sets[name][0])} answerable questions", flush=True)
    heads = [f"{s} {level} @{k}" for s in sets for level, k in MEASURES]
    print("\n| retriever | " + " | ".join(heads) + " | worst gap to the better member |")
    print("|---|" + "---:|" * (len(heads) + 1))
    rows = table(sets)
    for name, figures, gaps in rows:
        print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in figures)
              + f" | {'' if gaps is None else f'{max(gaps):+.3f}'} |")
    print("\n| set | measure | bm25 | dense | " + " | ".join(name for name, _, gaps in rows if gaps is not None) + " |")
    print("|---|---|" + "---:|" * (len(rows)))
    for i, head in enumerate(heads):
        s, m = head.rsplit(" ", 2)[0], " ".join(head.rsplit(" ", 2)[1:])
        print(f"| {s} | {m} | " + " | ".join(
            f"{figures[i]:.3f}" + ("" if gaps is None else f" ({gaps[i]:+.3f})") for _, figures, gaps in rows) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
