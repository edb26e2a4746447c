"""Outside question sets turned into labeller projects (issue 29.4): a real docs set and a
notes set, each with its own questions, converted so that ``bm25_tuning.py --project`` and
``dense.py --project`` measure on them (docs/performance.md, *Outside sets with their own
questions*). Nothing of the outside set is kept in this repository: the converter reads a
checkout given by path and writes a project folder given by path.

    python benchmarks/outside_sets.py rhdh CHECKOUT OUT
    python benchmarks/outside_sets.py qmd CHECKOUT OUT

``rhdh``: redhat-ai-dev/lightspeed-evaluation-dataset (commit 70293f8331ab, the Red Hat
Developer Hub 1.8 product docs, 28 guides as Markdown ``master.txt``, and 501 questions
generated with Ragas, ``dataset/dataset_raw.yaml``). Each question names one context: a
section of a guide, flattened (newlines and some hyphens turned into spaces). A question
becomes a labeller question whose locator quotes the context's sentence that shares the
most words with the set's reference answer, found in the guide by comparing letters and
digits only, and written as the guide's own text there (its longest block, where the
flattened sentence ran a heading into its text); it is kept only when that sentence
occurs once in the whole corpus (same normalisation) and labeller's resolver resolves it.
The count converted and each reason for the rest are printed.

``qmd``: tobi/qmd (commit dbfd0b4736ae; the files are unchanged since 1fb2e2819e40), its
search-quality notes set: six notes (``test/eval-docs/*.md``: a fundraising memo, a remote-work
policy, a launch retrospective, primers) with 24 queries of ``test/eval.test.ts`` (6 each
"easy" keyword, "medium" paraphrase, "hard" vague, "fusion") and 25 of
``test/eval-deep-research.jsonl`` (all "hard": colloquial, "no keywords match"). The set names
the expected note only (a part of its file name), so each becomes a whole-document locator.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

_WORD = re.compile(r"[^\W_]+")
_SENTENCE = re.compile(r"(?<=[.!?:])\s+|\s#+\s|```|\s\*\s|\s----\s")
MIN_WORDS = 6


def normalise(text: str) -> tuple[str, list[int]]:
    """Lower-case words joined by single spaces, and each character's offset in ``text``
    (so a match maps back to the original span)."""
    out: list[str] = []
    where: list[int] = []
    for m in _WORD.finditer(text):
        if out:
            out.append(" ")
            where.append(m.start())
        for i, ch in enumerate(m.group().lower()):
            out.append(ch)
            where.append(m.start() + min(i, len(m.group()) - 1))
    return "".join(out), where


def best_sentences(context: str, answer: str) -> list[str]:
    """The context's sentences of at least MIN_WORDS words, most answer words first."""
    answer_words = set(_WORD.findall(answer.lower()))
    sentences = [s for s in _SENTENCE.split(context) if len(_WORD.findall(s)) >= MIN_WORDS]
    return sorted(sentences, key=lambda s: -len(answer_words & set(_WORD.findall(s.lower()))))


def rhdh(checkout: Path, out: Path) -> Counter:
    import yaml

    from labeller.core.chunkers import chunk_corpus, get_chunker
    from labeller.core.corpus import load_corpus
    from labeller.core.models import Locator
    from labeller.core.resolve import Resolver, Span

    docs_root = next(checkout.glob("rhdh-product-docs-*"))
    (out / "corpus").mkdir(parents=True)
    for src in sorted(docs_root.glob("*/master.txt")):
        shutil.copyfile(src, out / "corpus" / f"{src.parent.name}.md")
    corpus = load_corpus(out / "corpus")
    texts = {d.doc_id: d.text for d in corpus}
    norm = {doc: normalise(text) for doc, text in texts.items()}
    chunker = get_chunker("md-struct-v1", max_chars=1800)
    resolver = Resolver(corpus, chunk_corpus(corpus, chunker), chunker)
    data = yaml.safe_load((checkout / "dataset" / "dataset_raw.yaml").read_text(encoding="utf-8"))["data"]
    reasons: Counter = Counter()
    questions = []
    for n, item in enumerate(data, 1):
        quote, why = None, "no sentence of the context occurs in the docs"
        for sentence in best_sentences(item["context"][0], item.get("response") or ""):
            pattern = normalise(sentence)[0]
            hits = [(doc, i) for doc, (text, _) in norm.items() for i in _find_all(text, pattern)]
            if len(hits) > 1:
                why = "the context's sentences occur more than once in the docs"
                continue
            if not hits:
                continue
            doc, i = hits[0]
            where = norm[doc][1]
            span = texts[doc][where[i]:where[i + len(pattern) - 1] + 1]
            # a flattened context runs headings into their text: quote the longest block only
            candidate = max(re.split(r"\n\s*\n", span), key=lambda part: len(part.split())).strip()
            if isinstance(resolver.resolve(Locator(doc=doc, quote=candidate)), Span):
                quote = (doc, candidate)
                break
            why = "labeller's resolver refused the quote"
        if quote is None:
            reasons[why] += 1
            continue
        questions.append({"id": f"rhdh-{n:03d}", "query": item["user_input"].strip(),
                          "expected_answer": (item.get("response") or "").strip(),
                          "locators": [{"doc": quote[0], "quote": quote[1]}],
                          "metadata": {"uuid": item["metadata"]["uuid"]}})
    write_questions(out, questions, reasons)
    return reasons


def write_questions(out: Path, questions: list[dict], reasons: Counter) -> None:
    """The golden file, keeping the first of questions with the same query (labeller refuses
    a repeated query: two records would be one question counted twice)."""
    seen: set[str] = set()
    kept = []
    for q in questions:
        if q["query"] in seen:
            reasons["the same query as an earlier question"] += 1
            continue
        seen.add(q["query"])
        reasons["converted"] += 1
        kept.append(q)
    (out / "golden").mkdir()
    (out / "golden" / "questions.jsonl").write_text(
        "".join(json.dumps(q, ensure_ascii=False, sort_keys=True) + "\n" for q in kept), encoding="utf-8")


def _find_all(text: str, pattern: str) -> list[int]:
    """Word-aligned occurrences of ``pattern`` in ``text``."""
    found, at = [], text.find(pattern)
    while at >= 0:
        end = at + len(pattern)
        if (at == 0 or text[at - 1] == " ") and (end == len(text) or text[end] == " "):
            found.append(at)
        at = text.find(pattern, at + 1)
    return found


_TS_QUERY = re.compile(r'\{\s*query:\s*"((?:[^"\\]|\\.)*)",\s*expectedDoc:\s*"([^"]+)",\s*difficulty:\s*"(\w+)"')


def qmd(checkout: Path, out: Path) -> Counter:
    notes = sorted((checkout / "test" / "eval-docs").glob("*.md"))
    shutil.copytree(checkout / "test" / "eval-docs", out / "corpus")
    cases = [(json.loads(f'"{q}"'), doc, level, "eval.test.ts")
             for q, doc, level in _TS_QUERY.findall((checkout / "test" / "eval.test.ts").read_text(encoding="utf-8"))]
    for line in (checkout / "test" / "eval-deep-research.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            cases.append((case["query"], case["expected_doc"], case["difficulty"], "eval-deep-research.jsonl"))
    reasons: Counter = Counter()
    questions = []
    for n, (query, expected, level, source) in enumerate(cases, 1):
        matches = [p.name for p in notes if expected in p.name.lower()]
        if len(matches) != 1:
            reasons[f"the expected note matches {len(matches)} files"] += 1
            continue
        # the set has no answers, only the note: expected_answer stays empty
        questions.append({"id": f"qmd-{n:03d}", "query": query, "expected_answer": "",
                          "locators": [{"doc": matches[0]}], "tags": [level], "metadata": {"source": source}})
    write_questions(out, questions, reasons)
    return reasons


CONVERTERS = {"qmd": qmd, "rhdh": rhdh}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("set", choices=sorted(CONVERTERS))
    ap.add_argument("checkout", type=Path, help="the outside repository's files (git archive of the commit above)")
    ap.add_argument("out", type=Path, help="new project folder to write (corpus/ + golden/)")
    args = ap.parse_args(argv)
    if args.out.exists():
        ap.error(f"{args.out} exists; give a new folder")
    reasons = CONVERTERS[args.set](args.checkout, args.out)
    total = sum(reasons.values())
    for why, n in reasons.most_common():
        print(f"{n:5d} / {total}  {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
