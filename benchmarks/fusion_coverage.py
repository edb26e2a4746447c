"""Hybrid with the dense member weighed per query by how much of the query BM25's first hit
holds (issue 37.6, third round; docs/performance.md).

    python benchmarks/fusion_coverage.py --cache /tmp/fusion-cache --project RHDH --project QMD \\
        --sentences BOOK/src --corpora ../shared/corpora/textual-docs --seed 20260101 --seed 4242 --grid unreadable
    python benchmarks/fusion_coverage.py --cache DIR --no-bundled --sentences CARGO_BOOK/src --seed 31337
    python benchmarks/fusion_coverage.py --cache DIR --no-bundled --cjk-sentences VUE_DOCS_JA/src \\
        --sentence-questions 500 --seed 20270606

The sets, and each set's two member rankings (labeller's ``bm25`` and ``dense``, 100 deep,
cached by the digest of the corpus and questions), are ``fusion.py``'s. What this adds is one
label-free number per question: its *coverage*, the share of the query's distinct analysed
terms (labeller's own analysis, as BM25 searches them) that BM25's first hit holds in any
indexed field. A question made of one sentence's content words is held whole by the chunk
that has the sentence (BM25 is sure; the dense member, when weak on that text, can only
tip near-ties the wrong way), a colloquial one whose words the answer does not use is held
in part. The dense member's weight in the zscore fusion (window 50, BM25 weighing 1) is then
``w`` while coverage is at most ``low``, 0 from ``high`` on, and linear in between. No labels,
nothing kept across questions.

The fourth round adds a second number per question, also label-free: the share of its
non-space characters the dense model's tokenizer maps to its unknown token (labeller's own
``Encoder.unreadable_share``; an English MiniLM asked in Japanese), and a second ramp on it
that the dense weight is multiplied by (``CHOSEN``: all of it up to 0.02, none from 0.1).

``--grid coverage`` prints the worst gap to the better member (over every set and measure, chunk
success@5, document success@5 and @1) of each coverage ramp tried, and the same for coverage
weighted by each term's IDF (``idf``); ``--grid unreadable`` each unreadable ramp with the
coverage ramp chosen. Choose on selection sets, then run held-out sets once with the chosen
rule (the default arguments). The table sets zscore (dense 0.4 for every question), the
coverage ramp alone (``BEFORE``) and both ramps (``CHOSEN``) beside the two members.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bm25_tuning  # noqa: E402
import dense  # noqa: E402
import fusion  # noqa: E402

WINDOW = 50
# A rule: (coverage kind, dense weight, coverage ramp low, high, unreadable ramp low, high).
# Chosen on the selection sets (docs/performance.md, "Third round"): the dense member weighs
# 0.4 up to coverage 0.5, nothing from 0.8, linear in between; and ("Fourth round") of that, all
# while at most 2% of the question is unreadable to its tokenizer, nothing from 10%
CHOSEN = ("count", 0.4, 0.5, 0.8, 0.02, 0.1)
BEFORE = ("count", 0.4, 0.5, 0.8, 1.0, 1.0)  # the third round's coverage rule, no unreadable ramp
TODAY = ("count", 0.4, 1.0, 1.0, 1.0, 1.0)  # dense 0.4 for every question: zscore, as hybrid did before
GRIDS = {  # --grid coverage: the third round's choice; --grid unreadable: the fourth's, the coverage ramp kept
    "coverage": [(kind, w, lo, hi, 1.0, 1.0) for kind in ("count", "idf") for w in (0.3, 0.4, 0.5, 0.7)
                 for lo, hi in itertools.product((0.0, 0.3, 0.4, 0.5, 0.6, 0.7), (0.6, 0.7, 0.8, 0.9, 1.0)) if lo < hi],
    "unreadable": [(*BEFORE[:4], lo, hi) for lo, hi in itertools.product(
        (0.0, 0.01, 0.02, 0.03, 0.05), (0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)) if lo < hi],
}


def coverages(root: Path, runs: dict, unreadable: bool = True) -> dict[str, dict[str, float]]:
    """Per question, the share of its distinct analysed terms that BM25's first hit (from
    ``runs``) holds in any field: by count (labeller's own ``BM25Retriever.held_share``, what
    ``hybrid`` reads), and weighted by each term's IDF (the largest of its fields'; a term no
    chunk holds weighs log N + 1, BM25's IDF at df 0), a variant tried here only; and
    (``unreadable``) the share of the question the dense model's tokenizer cannot read
    (labeller's own ``Encoder.unreadable_share``, what ``hybrid`` reads; the tokenizer only)."""
    from labeller.core.build import build
    from labeller.eval.retrievers import make_retriever
    from labeller.eval.retrievers.bm25 import distinct_chunks
    from labeller.eval.retrievers.dense import Encoder

    project = dense.open_project(root)
    bm25 = make_retriever("bm25", project)
    encoder = Encoder(project) if unreadable else None
    n = len(distinct_chunks(project.all_chunks))  # the index's documents
    fields = [f for f, w in bm25.weights.items() if w > 0]
    out = {}
    for record in build(project, project.load_questions().questions).records:
        qid, query = record.question.id, record.question.query
        if record.question.unanswerable or not runs["bm25"][qid]:
            continue
        held = bm25.held_terms(query, runs["bm25"][qid][0][0])
        idfs = {term: max((math.log(n / (len(p) + 1)) + 1 for p in (bm25.term_scores(f, term)[0] for f in fields)
                           if len(p)), default=math.log(n) + 1) for term in held}
        out[qid] = {"count": bm25.held_share(query, runs["bm25"][qid][0][0]),
                    "idf": math.fsum(idfs[t] for t, h in held.items() if h) / math.fsum(idfs.values()) if idfs else 0.0,
                    "unreadable": encoder.unreadable_share(query) if encoder is not None else 0.0}
    return out


def dense_weight(question: dict[str, float], rule: tuple[str, float, float, float, float, float]) -> float:
    """The dense weight ``rule`` gives a question (its ``coverages``): ``w`` times what
    ``hybrid``'s ``fusion.ramp`` keeps on the coverage ramp, times what it keeps on the
    unreadable ramp (each: all up to ``low``, nothing from ``high``, linear in between; a ramp
    ``[1, 1]`` keeps all: ``TODAY``, ``BEFORE``)."""
    from labeller.eval.retrievers.fusion import ramp

    kind, w, low, high, unread_low, unread_high = rule
    return w * ramp(question[kind], (low, high)) * ramp(question["unreadable"], (unread_low, unread_high))


def fused(runs: dict, cover: dict, rule: tuple[str, float, float, float, float, float],
          memo: dict) -> dict[str, list[str]]:
    """Each question's top 5 by labeller's zscore ``fuse``, the dense member weighing as ``rule`` says."""
    from labeller.config import FusionConfig
    from labeller.eval.retrievers.base import Hit
    from labeller.eval.retrievers.fusion import fuse

    cfg = FusionConfig(method="zscore", window=WINDOW)
    out = {}
    for qid in runs["bm25"]:
        wd = dense_weight(cover[qid], rule) if qid in cover else rule[1]
        if (qid, wd) not in memo:
            members = [(1.0, [Hit(c, s) for c, s in runs["bm25"][qid]]),
                       (wd, [Hit(c, s) for c, s in runs["dense"][qid]])]
            memo[(qid, wd)] = [h.chunk_id for h in fuse(members, cfg, 5)]
        out[qid] = memo[(qid, wd)]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", type=Path, action="append", default=[])
    ap.add_argument("--corpora", type=Path, action="append", default=[])
    ap.add_argument("--sentences", type=Path, action="append", default=[])
    ap.add_argument("--cjk-sentences", type=Path, action="append", default=[],
                    help="a Japanese or Chinese corpus given sentence-style questions (synth.cjk_...)")
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--sentence-questions", type=int, default=1000)
    ap.add_argument("--seed", type=int, action="append")
    ap.add_argument("--no-bundled", action="store_true")
    ap.add_argument("--cache", type=Path)
    ap.add_argument("--grid", choices=sorted(GRIDS), help="every rule of GRIDS[...] (choosing: selection sets only)")
    args = ap.parse_args(argv)
    sets, cover = {}, {}
    with tempfile.TemporaryDirectory(prefix="labeller-fusion-coverage-") as tmp:
        found = bm25_tuning.sets(Path(tmp) / "sets", args.corpora, args.questions, args.seed or [20260101],
                                 args.project, args.sentences, args.sentence_questions, args.cjk_sentences)
        if args.no_bundled:
            found = {n: p for n, p in found.items() if n not in ("bundled handbook", "mixed_ja")}
        for name, root in fusion.dense_sets(found, Path(tmp)).items():
            sets[name] = fusion.cached_rankings(root, args.cache, name)
            cover[name] = coverages(root, sets[name][2])
            print(f"{name}: {len(sets[name][0])} answerable questions", flush=True)
    ranked = {m: {s: {q: [c for c, _ in hits] for q, hits in runs[m].items()} for s, (_, _, runs) in sets.items()}
              for m in fusion.MEMBERS}
    cells = [(s, m) for s in sets for m in fusion.MEASURES]
    better = {(s, m): max(fusion.success(ranked[x][s], *sets[s][:2], *m) for x in fusion.MEMBERS) for s, m in cells}
    memo: dict = {s: {} for s in sets}

    def figures(rule: tuple[str, float, float, float, float, float]) -> list[float]:
        top = {s: fused(sets[s][2], cover[s], rule, memo[s]) for s in sets}
        return [fusion.success(top[s], *sets[s][:2], *m) for s, m in cells]

    if args.grid:
        print("\n| coverage | dense weight | coverage ramp | unreadable ramp | worst gap | sum of gaps above 0 |\n"
              "|---|---:|---|---|---:|---:|")
        rows = []
        for rule in [TODAY, BEFORE] + GRIDS[args.grid]:
            gaps = [better[c] - v for c, v in zip(cells, figures(rule))]
            rows.append((round(max(gaps), 6), round(math.fsum(g for g in gaps if g > 0), 6), rule))
        for worst, total, (kind, w, low, high, unread_low, unread_high) in sorted(rows):
            print(f"| {kind} | {w:g} | {low:g}–{high:g} | {unread_low:g}–{unread_high:g} | {worst:+.3f} | "
                  f"{total:.3f} |")
    columns = {"zscore, dense 0.4": TODAY, "coverage ramp": BEFORE, "+ unreadable ramp": CHOSEN}
    results = {name: figures(rule) for name, rule in columns.items()}
    print("\n| set | measure | bm25 | dense | " + " | gap | ".join(columns) + " | gap |\n|---|---|"
          + "---:|" * (2 + 2 * len(columns)))
    for i, (s, m) in enumerate(cells):
        bm, dn = (fusion.success(ranked[x][s], *sets[s][:2], *m) for x in fusion.MEMBERS)
        print(f"| {s} | {m[0]}@{m[1]} | {bm:.3f} | {dn:.3f} | "
              + " | ".join(f"{v[i]:.3f} | {better[(s, m)] - v[i]:+.3f}" for v in results.values()) + " |")
    print("\nworst gap: " + ", ".join(f"{name} {max(better[c] - v for c, v in zip(cells, results[name])):+.3f}"
                                      for name in columns))
    for s in sets:
        ws = [dense_weight(cover[s][q], CHOSEN) for q in cover[s]]
        unread = sum(cover[s][q]["unreadable"] > 0 for q in cover[s])
        print(f"{s}: dense weight mean {math.fsum(ws) / len(ws):.3f}, 0 for {sum(w == 0 for w in ws) / len(ws):.0%}, "
              f"{CHOSEN[1]:g} for {sum(w == CHOSEN[1] for w in ws) / len(ws):.0%} of the questions; "
              f"{unread} with a share its tokenizer cannot read")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
