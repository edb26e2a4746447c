"""A deterministic synthetic Markdown knowledge base with golden questions over it.

The benchmarks need a corpus of any size whose structure looks like a real handbook
(front matter, nested headings, wrapped paragraphs, nested and numbered lists, tables,
code fences full of ``#`` lines, block quotes, accents, CJK, CRLF files, a BOM) so that
every stage of the tool — canonicalisation, md-struct chunking, markdown-it expansion,
quote search — does the work it would do on a real corpus. Everything comes from one
seeded ``random.Random``: the same size and seed give the same bytes on every machine.

Quotes must resolve to exactly one place, so every block carries a *marker*: a
pronounceable word encoded from a counter (unique by construction). A quote is a
marker plus the words after it; before a quote is used, one Aho-Corasick pass over the
whitespace-folded corpus proves it occurs exactly once (a marker can collide with a
real word — "tomato" is three syllables — and those candidates are dropped).
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import ahocorasick

CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"

WORDS = """
access account adapter agent alert allow anchor answer archive audit backup balance batch branch broker
buffer build bundle cache calendar capacity certificate channel checkpoint client cluster column commit
compress config connection consumer container context contract cursor daemon dashboard database deadline
default delete deploy device digest directory disk domain draft driver editor email encoding endpoint engine
entry event export failover feature field filter firewall folder format gateway handler header health host
import incident index input instance invoice journal kernel key label latency layer ledger limit listener
load lock log manifest mapping memory message metric migration mirror module monitor mount namespace network
node notice offset operator option order output owner package page parser partition patch payload peer
permission pipeline plugin policy pool port preview priority process profile project protocol proxy queue
quota range reader record region registry release replica report request resource response retry review
role rollback route runner schedule schema scope secret segment sensor server service session setting shard
signal snapshot socket source span stage storage stream subnet summary switch table target task template
tenant thread ticket timeout token topic trace tracker transport trigger tunnel update upload user vault
version volume warning window worker workflow zone
""".split()
VERBS = """
accepts blocks caches checks collects compresses creates drops enables expires fetches flushes forwards
handles holds ignores keeps limits lists loads locks logs maps merges moves opens parses pauses pins
rebuilds records refuses releases renames repeats replaces resolves restarts returns rotates runs saves
scans sends shows signs skips sorts splits starts stores syncs throttles tracks trims updates validates
verifies waits writes
""".split()
ADJ = """
active automatic blocked cached central cold current daily default disabled empty encrypted external
failed fast global hidden idle internal large late local main manual nightly old optional partial
pending primary private public quiet rare remote required secondary shared short silent slow stale
strict temporary trusted unknown warm weekly
""".split()
FUNCTION = "the a an of to in for on with by from when after before while until if and or but not only each every".split()
ACCENTED = ("café naïve Zürich São Paulo Ångström façade résumé coöperate Ærøskøbing Straße Łódź Kraków "
            "crème brûlée piñata jalapeño déjà-vu Øresund Île-de-France Málaga Göteborg Ñuñoa").split()
CJK = ("設定 検索 文書 索引 結果 確認 手順 更新 障害 復旧 運用 管理 利用者 権限 認証 データベース バックアップ "
       "サーバー ネットワーク 監視 通知 期限 申請 承認 経費 休暇 当番 保存 削除 移行 性能 容量 負荷 記録").split()
CJK_PARTICLES = "の は を に が と で から まで も".split()
LANGS = ("python", "bash", "yaml", "toml", "text")
FOLDERS = ("guides", "guides/advanced", "operations", "operations/runbooks", "reference", "reference/api",
           "concepts", "teams/platform", "teams/search", "policies", "ja", "ja/運用", "faq")


def marker(n: int) -> str:
    """The n-th marker: a pronounceable word, distinct for every n (fixed width per range)."""
    syll = [c + v for c in CONSONANTS for v in VOWELS]
    parts = []
    for _ in range(3):
        n, r = divmod(n, len(syll))
        parts.append(syll[r])
    while n:
        n, r = divmod(n, len(syll))
        parts.append(syll[r])
    return "".join(parts)


def fold(text: str) -> str:
    """Whitespace runs as one space: how labeller searches quotes (SPEC §2)."""
    return re.sub(r"\s+", " ", text)


@dataclass
class Candidate:
    """A quotable place: a marker and the words after it, in one document."""

    doc_id: str
    quote: str
    kind: str
    context: list[str]  # content words of the block, for writing a query


@dataclass
class Doc:
    doc_id: str
    text: str
    candidates: list[Candidate] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)  # unique section headings (with a marker)
    section_words: dict = field(default_factory=dict)
    crlf: bool = False
    bom: bool = False
    nfd: bool = False


class Writer:
    """Generates documents; one instance per corpus, one RNG, one marker counter."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.n_marker = 0

    def mark(self) -> str:
        self.n_marker += 1
        return marker(self.n_marker)

    # -- words and sentences --------------------------------------------------------
    def word(self) -> str:
        r = self.rng.random()
        if r < 0.02:
            return self.rng.choice(ACCENTED)
        if r < 0.35:
            return self.rng.choice(FUNCTION)
        if r < 0.5:
            return self.rng.choice(VERBS)
        if r < 0.62:
            return self.rng.choice(ADJ)
        return self.rng.choice(WORDS)

    def sentence(self, n: int | None = None, mark: str | None = None, cand: list | None = None) -> str:
        n = n or self.rng.randint(6, 18)
        words = [self.word() for _ in range(n)]
        if self.rng.random() < 0.15:
            words.insert(self.rng.randrange(len(words)), f"`{self.rng.choice(WORDS)}_{self.rng.choice(WORDS)}`")
        at = self.rng.randrange(max(1, len(words) - 4))
        if mark:
            words.insert(at, mark)
        words[0] = words[0][0].upper() + words[0][1:]
        if mark and cand is not None:
            cand.append(" ".join(words[at:at + self.rng.randint(2, 4)]))
        return " ".join(words) + self.rng.choice(".....!?;:")

    def wrap(self, text: str, width: int = 78, indent: str = "") -> str:
        out, line = [], ""
        for w in text.split(" "):
            if line and len(line) + 1 + len(w) > width:
                out.append(line)
                line = w
            else:
                line = f"{line} {w}" if line else w
        out.append(line)
        return ("\n" + indent).join(out)

    def title(self) -> str:
        words = [self.rng.choice(ADJ), self.rng.choice(WORDS), self.rng.choice(WORDS)]
        return " ".join(words).capitalize()

    # -- blocks ------------------------------------------------------------------------
    def paragraph(self, doc: Doc) -> str:
        m, q = self.mark(), []
        sents = [self.sentence() for _ in range(self.rng.randint(1, 5))]
        sents.insert(self.rng.randrange(len(sents) + 1), self.sentence(mark=m, cand=q))
        text = " ".join(sents)
        self._cand(doc, q, "paragraph", text)
        return self.wrap(text)

    def cjk_paragraph(self, doc: Doc) -> str:
        m = self.mark()
        parts = []
        for _ in range(self.rng.randint(2, 5)):
            s = "".join(self.rng.choice(CJK) + self.rng.choice(CJK_PARTICLES) for _ in range(self.rng.randint(3, 8)))
            parts.append(s + "。")
        at = self.rng.randrange(len(parts))
        tail = "".join(self.rng.choice(CJK) for _ in range(2))
        parts[at] = f"{parts[at]} {m} {tail}を"
        quote = f"{m} {tail}"
        text = "".join(parts)
        self._cand(doc, [quote], "cjk", " ".join(self.rng.sample(CJK, 4)))
        return text

    def bullet_list(self, doc: Doc, numbered: bool = False) -> str:
        lines = []
        for i in range(self.rng.randint(2, 7)):
            m, q = self.mark(), []
            item = self.sentence(self.rng.randint(4, 12), mark=m, cand=q)
            bullet = f"{i + 1}." if numbered else self.rng.choice("-*")
            pad = " " * (len(bullet) + 1)
            lines.append(f"{bullet} " + self.wrap(item, indent=pad))
            self._cand(doc, q, "list_item", item)
            if self.rng.random() < 0.3:
                for _ in range(self.rng.randint(1, 3)):
                    m2, q2 = self.mark(), []
                    sub = self.sentence(self.rng.randint(4, 10), mark=m2, cand=q2)
                    lines.append(f"{pad}- " + self.wrap(sub, indent=pad + "  "))
                    self._cand(doc, q2, "list_item", sub)
        return "\n".join(lines)

    def table(self, doc: Doc) -> str:
        cols = self.rng.randint(3, 5)
        head = [self.rng.choice(WORDS).capitalize() for _ in range(cols)]
        rows = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in range(cols)) + "|"]
        for _ in range(self.rng.randint(2, 8)):
            m = self.mark()
            nxt = [self.rng.choice(WORDS), self.rng.choice(ADJ)]
            cells = [f"{m} {nxt[0]} {nxt[1]}"] + [
                self.rng.choice((str(self.rng.randint(1, 9999)), self.rng.choice(ADJ), self.rng.choice(WORDS),
                                 self.rng.choice(ACCENTED), f"`{self.rng.choice(WORDS)}`")) for _ in range(cols - 1)]
            rows.append("| " + " | ".join(cells) + " |")
            self._cand(doc, [f"{m} {nxt[0]}"], "table_row", " ".join(cells))
        return "\n".join(rows)

    def code(self, doc: Doc) -> str:
        lang = self.rng.choice(LANGS)
        m = self.mark()
        out = [f"```{lang}"]
        for i in range(self.rng.randint(3, 25)):
            r = self.rng.random()
            if r < 0.3:
                out.append("# " + " ".join(self.word() for _ in range(self.rng.randint(2, 8))))
            elif r < 0.4:
                out.append("## " + self.rng.choice(WORDS) + " " + self.rng.choice(VERBS))
            elif r < 0.5:
                out.append("")
            else:
                out.append(f"{self.rng.choice(WORDS)}_{self.rng.choice(WORDS)} = {self.rng.randint(0, 999)}")
        at = self.rng.randint(1, len(out) - 1)
        nxt = self.rng.choice(WORDS)
        out.insert(at, f"# {m} {nxt} {self.rng.choice(VERBS)}")
        out.append("```")
        self._cand(doc, [f"{m} {nxt}"], "code", "code " + nxt)
        return "\n".join(out)

    def quote_block(self, doc: Doc) -> str:
        m, q = self.mark(), []
        text = f"**{self.rng.choice(('Note', 'Warning', 'Tip'))}:** " + self.sentence(mark=m, cand=q)
        self._cand(doc, q, "blockquote", text)
        return "> " + self.wrap(text, width=74, indent="> ")

    def html(self) -> str:
        return f"<details>\n<summary>{self.title()}</summary>\n\n{self.sentence()}\n\n</details>"

    def _cand(self, doc: Doc, quotes: list[str], kind: str, context: str) -> None:
        for q in quotes:
            q = q.strip(" .!?;:`*")
            if len(q.split()) >= 2 and "`" not in q and "*" not in q:
                mark = q.split()[0].lower()  # a query never names the marker: it would quote the quote
                doc.candidates.append(Candidate(doc.doc_id, q, kind,
                                                [w for w in context.split() if mark not in w.lower()]))

    def block(self, doc: Doc, cjk: bool) -> str:
        r = self.rng.random()
        if cjk and r < 0.6:
            return self.cjk_paragraph(doc)
        if r < 0.45:
            return self.paragraph(doc)
        if r < 0.6:
            return self.bullet_list(doc)
        if r < 0.68:
            return self.bullet_list(doc, numbered=True)
        if r < 0.78:
            return self.table(doc)
        if r < 0.9:
            return self.code(doc)
        if r < 0.98:
            return self.quote_block(doc)
        if r < 0.99:
            return self.html()
        return "***"

    # -- documents -------------------------------------------------------------------
    def document(self, doc_id: str, target_chars: int) -> Doc:
        doc = Doc(doc_id, "")
        cjk = doc_id.startswith("ja/")
        parts = []
        title = self.title()
        if self.rng.random() < 0.8:
            tags = ", ".join(self.rng.sample(WORDS, 3))
            parts.append(f"---\ntitle: {title}\ntags: [{tags}]\nowner: team-{self.rng.choice(WORDS)}\n"
                         f"updated: 2025-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}\n---")
        parts.append(f"# {title}")
        parts.append(self.paragraph(doc))
        size = sum(len(p) for p in parts)
        level = 2
        while size < target_chars:
            level = self.rng.choice((2, 2, 3, 3, 3, 4)) if level > 2 else self.rng.choice((2, 3))
            if level == 3 and self.rng.random() < 0.3:
                m = self.mark()
                heading = f"Tuning the {m} {self.rng.choice(WORDS)}"
                doc.sections.append(heading)
                doc.section_words[heading] = [self.rng.choice(WORDS) for _ in range(4)]
            else:
                heading = self.title()
            parts.append("#" * level + " " + heading)
            for _ in range(self.rng.randint(1, 5)):
                parts.append(self.block(doc, cjk))
            size = sum(len(p) + 2 for p in parts)
        doc.text = "\n\n".join(parts) + "\n"
        if self.rng.random() < 0.05:
            doc.crlf = True
        if self.rng.random() < 0.02:
            doc.bom = True
        if self.rng.random() < 0.03:
            doc.nfd = True
        return doc


@dataclass
class Synthetic:
    docs: list[Doc]
    questions: list[dict]


def generate(size_bytes: int, n_questions: int = 1000, seed: int = 20260101) -> Synthetic:
    """Documents totalling about ``size_bytes`` and ``n_questions`` golden questions over them."""
    w = Writer(seed)
    docs: list[Doc] = []
    total = 0
    i = 0
    while total < size_bytes:
        i += 1
        folder = w.rng.choice(FOLDERS)
        name = "-".join(w.rng.sample(WORDS, 2))
        target = min(w.rng.randint(5_000, 60_000), max(5_000, size_bytes - total))
        doc = w.document(f"{folder}/{name}-{i:04d}.md", target)
        docs.append(doc)
        total += len(doc.text.encode("utf-8"))
    rng = random.Random(seed + 1)
    questions = make_questions(docs, n_questions, rng)
    leak_doc = make_leak_note(questions, rng)
    docs.append(leak_doc)
    quotes = [loc["quote"] for q in questions for loc in q["locators"] if "quote" in loc]
    if len(_unique(quotes, docs)) != len(set(quotes)):
        raise AssertionError("a generated quote is not unique in the final corpus (generator bug)")
    return Synthetic(docs, questions)


def _unique(quotes: list[str], docs: list[Doc]) -> set[str]:
    """The quotes that occur exactly once (overlapping) in the whitespace-folded corpus."""
    auto = ahocorasick.Automaton()
    for q in set(quotes):
        auto.add_word(q, q)
    auto.make_automaton()
    counts: dict[str, int] = {}
    for d in docs:
        for _, q in auto.iter(fold(unicodedata.normalize("NFC", d.text))):
            counts[q] = counts.get(q, 0) + 1
    return {q for q, n in counts.items() if n == 1}


def make_questions(docs: list[Doc], n: int, rng: random.Random) -> list[dict]:
    """Single-hop (most), multi-hop (two or three documents), section labels and negatives."""
    pool = [c for d in docs for c in d.candidates]
    rng.shuffle(pool)
    pool = pool[: n * 3]
    unique = _unique([c.quote for c in pool], docs)
    pool = [c for c in pool if c.quote in unique]
    sections = [(d.doc_id, h, d.section_words[h]) for d in docs for h in d.sections]
    rng.shuffle(sections)
    queries: set[str] = set()
    out: list[dict] = []

    def query(words: list[str]) -> str:
        for _ in range(100):
            picked = [x for x in rng.sample(words, min(len(words), rng.randint(3, 6)))
                      if x.isalpha() and x not in FUNCTION]
            stem = rng.choice(("How do I", "Why does", "What happens when", "Where is", "When should we",
                               "Which team owns", "How can I check"))
            q = f"{stem} {' '.join(picked)} {rng.choice(WORDS)} {rng.choice(WORDS)}?"
            if q not in queries:
                queries.add(q)
                return q
        raise RuntimeError("could not write a unique query")

    def locator(c: Candidate) -> dict:
        loc: dict = {"quote": c.quote}
        if rng.random() < 0.5:
            loc = {"doc": c.doc_id, **loc}
        if rng.random() < 0.04:
            loc["exact"] = True
        return loc

    splits = ("dev", "test", "holdout")
    while len(out) < n:
        qid = f"q{len(out) + 1:04d}"
        r = rng.random()
        rec: dict = {"id": qid}
        if r < 0.05:
            rec |= {"query": query(rng.sample(WORDS, 8)), "expected_answer": "", "locators": [],
                    "unanswerable": True, "tags": ["negative"]}
        elif r < 0.08 and sections:
            doc_id, heading, words = sections.pop()
            rec |= {"query": query(words + heading.split()), "expected_answer": heading,
                    "locators": [{"doc": doc_id, "heading": heading}], "tags": ["section"]}
        elif r < 0.16 and len(pool) >= 3:
            k = rng.choice((2, 2, 3))
            picked = [pool.pop() for _ in range(k)]
            rec |= {"query": query([w for c in picked for w in c.context]),
                    "expected_answer": " / ".join(c.quote for c in picked),
                    "locators": [{"doc": c.doc_id, "quote": c.quote} for c in picked], "hop": "multi",
                    "tags": ["multi"]}
        else:
            c = pool.pop()
            rec |= {"query": query(c.context), "expected_answer": " ".join(c.context[:12]),
                    "locators": [locator(c)], "tags": [c.kind]}
        rec["split"] = splits[len(out) % 3]
        out.append(rec)
    return out


def make_leak_note(questions: list[dict], rng: random.Random) -> Doc:
    """An evaluation scratchpad quoting two golden queries verbatim: the leak report must find it."""
    quoted = [q["query"] for q in questions if not q.get("unanswerable")][:2]
    text = (f"# Notes on the retrieval evaluation\n\n## {quoted[0]}\n\nWe keep missing this one in the top five.\n\n"
            f"Another slow query: {quoted[1]}\n")
    return Doc("notes/eval-scratchpad.md", text)


def write_project(syn: Synthetic, root: Path) -> None:
    """Write ``root/corpus/**`` and ``root/golden/questions.jsonl`` (CRLF/BOM where generated)."""
    for d in syn.docs:
        path = root / "corpus" / d.doc_id
        path.parent.mkdir(parents=True, exist_ok=True)
        text = unicodedata.normalize("NFD", d.text) if d.nfd else d.text
        text = text.replace("\n", "\r\n") if d.crlf else text
        data = text.encode("utf-8")
        path.write_bytes((b"\xef\xbb\xbf" if d.bom else b"") + data)
    golden = root / "golden"
    golden.mkdir(parents=True, exist_ok=True)
    (golden / "questions.jsonl").write_text(
        "// synthetic benchmark questions (benchmarks/synth.py)\n"
        + "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in syn.questions), encoding="utf-8")


def parse_size(text: str) -> int:
    """``10MB`` → 10,000,000 bytes; KB/MB/GB are decimal, KiB/MiB/GiB binary."""
    m = re.fullmatch(r"\s*([\d.]+)\s*([kmg]i?b?|b)?\s*", text, re.IGNORECASE)
    if not m:
        raise ValueError(f"cannot read size {text!r} (try 10MB)")
    unit = (m.group(2) or "b").lower().rstrip("b") or "b"
    mult = {"b": 1, "k": 10**3, "m": 10**6, "g": 10**9, "ki": 2**10, "mi": 2**20, "gi": 2**30}[unit]
    return int(float(m.group(1)) * mult)


def questions_for_corpus(corpus_root: Path, n: int, seed: int) -> list[dict]:
    """Golden questions over a real corpus: quotes are 4–7 word windows of its lines, kept
    only when they occur once and resolve to a span (checked with labeller's own resolver),
    so the benchmark's builds succeed on any Markdown folder."""
    from labeller.core.chunkers import chunk_corpus, get_chunker
    from labeller.core.corpus import load_corpus
    from labeller.core.models import Locator
    from labeller.core.resolve import Resolver, Span

    rng = random.Random(seed)
    corpus = load_corpus(corpus_root)
    docs = []
    for d in corpus:
        doc = Doc(d.doc_id, d.text)
        lines = [ln for ln in d.text.split("\n") if len(ln.split()) >= 6 and not ln.lstrip().startswith("#")]
        for ln in rng.sample(lines, min(len(lines), 12)):
            words = ln.split()
            k = rng.randint(4, 7)
            at = rng.randrange(len(words) - k + 1) if len(words) > k else 0
            doc.candidates.append(Candidate(d.doc_id, " ".join(words[at:at + k]), "real",
                                            [w for w in words if w.isalpha()]))
        docs.append(doc)
    unique = _unique([c.quote for d in docs for c in d.candidates], docs)
    chunker = get_chunker("md-struct-v1", max_chars=1800)
    resolver = Resolver(corpus, chunk_corpus(corpus, chunker), chunker)
    for d in docs:
        d.candidates = [c for c in d.candidates if c.quote in unique and len(c.context) >= 3
                        and isinstance(resolver.resolve(Locator(doc=c.doc_id, quote=c.quote)), Span)]
    return make_questions(docs, n, rng)


# -- sentence-style questions over a real corpus (issue 37.6) ---------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\[“\"(])")
_MARKUP = re.compile(r"<!--.*?-->|(?<!\w)</?[A-Za-z][^>]*>|\]\[[^\]]*\]|\]\([^)]*\)|[`*\[\]]")
_RULE = re.compile(r"r\[[\w.-]+\]")  # mdBook-spec's rule anchor, a line of its own (the Rust reference)
_EDGE = "\"'“”‘’()[]{},.;:!?*_"


def content_words(sentence: str) -> list[str]:
    """A sentence's words as a reader would type them, Markdown markup left out (backticks,
    emphasis, link targets, HTML), stop words and contractions ("won't") dropped, a possessive's
    "'s" cut; code identifiers (``Vec<T>``, ``std::io``, ``read_line``) kept as written."""
    from labeller.eval.analysis import STOP_WORDS

    words = (w.replace("’", "'").strip(_EDGE).removesuffix("'s") for w in _MARKUP.sub(" ", sentence).split())
    return [w for w in words if any(ch.isalnum() for ch in w) and w.lower() not in STOP_WORDS
            and not (len(w) == 1 and w.isalpha()) and not ("'" in w and w[0].isalpha())]


def _prose_sentences(text: str) -> list[str]:
    """The sentences of a document's paragraphs (outside code fences, headings, lists, tables,
    HTML and mdBook directives), each as it stands in the text."""
    out: list[str] = []
    para: list[str] = []
    fenced = False
    for line in [*text.split("\n"), ""]:
        if _FENCE.match(line):
            fenced, para = not fenced, []
            continue
        if fenced:
            continue
        s = line.strip()
        if not s or s[0] in "#|<{>" or s.startswith(("- ", "* ", "[")) or s[0].isdigit() or _RULE.fullmatch(s):
            if para:
                out += _SENTENCE_END.split(" ".join(para))
            para = []
            continue
        para.append(s)
    return out


def sentence_questions_for_corpus(corpus_root: Path, n: int, seed: int) -> list[dict]:
    """Golden questions whose query is 4–6 content words of one prose sentence, in the
    sentence's order, and whose locator quotes that sentence (kept only when it occurs once
    in the corpus and labeller resolves it): how a reader who half remembers a line of a
    technical book searches for it (issue 37.6's held-out book)."""
    from labeller.core.chunkers import chunk_corpus, get_chunker
    from labeller.core.corpus import load_corpus
    from labeller.core.models import Locator
    from labeller.core.resolve import Resolver, Span

    rng = random.Random(seed)
    corpus = load_corpus(corpus_root)
    pool = [s for d in corpus for s in _prose_sentences(d.text)
            if 6 <= len(content_words(s)) and len(s.split()) <= 60]
    rng.shuffle(pool)
    chunker = get_chunker("md-struct-v1", max_chars=1800)
    resolver = Resolver(corpus, chunk_corpus(corpus, chunker), chunker)
    out: list[dict] = []
    queries: set[str] = set()
    for sentence in pool:
        if len(out) == n:
            break
        words = content_words(sentence)
        k = rng.randint(4, 6)
        query = " ".join(words[i] for i in sorted(rng.sample(range(len(words)), k)))
        if query in queries or not isinstance(resolver.resolve(Locator(quote=sentence)), Span):
            continue
        queries.add(query)
        out.append({"id": f"s{len(out) + 1:04d}", "query": query, "expected_answer": sentence,
                    "locators": [{"quote": sentence}], "tags": ["sentence"], "split": ("dev", "test")[len(out) % 2]})
    return out


# CJK scripts as labeller's analysis reads them (Han, kana, Hangul), and the runs a CJK question
# keeps: Han and katakana (nouns, verb stems, loan words), hiragana left out (particles and endings)
_CJK_CHAR = re.compile("[\u3005\u3007\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_CJK_TERM = re.compile("[\u3005\u3007\u30a0-\u30fa\u30fc-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}"
                       "|[\uac00-\ud7af]{2,}")
_CJK_NOT_WORD = re.compile("[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff00-\uffef]+")
_CJK_SENTENCE_END = re.compile("(?<=[。！？])")


def cjk_terms(sentence: str) -> list[str]:
    """A Japanese or Chinese sentence's content terms, in order: each run of two or more Han
    or katakana characters (or Hangul syllables), and each word between the CJK runs that
    ``content_words`` keeps (``Vue``, ``v-model``); hiragana runs (particles, verb endings)
    and single characters left out. Text without spaces has no words to split, so a run of
    the content scripts stands for one: a searcher types ``算出プロパティ キャッシュ``."""
    text = _MARKUP.sub(" ", sentence)
    out: list[tuple[int, str]] = [(m.start(), m.group()) for m in _CJK_TERM.finditer(text)]
    cuts = [0, *(i for m in _CJK_NOT_WORD.finditer(text) for i in m.span()), len(text)]
    for start, end in zip(cuts[::2], cuts[1::2]):  # the stretches between CJK runs
        out += [(start, w) for w in content_words(text[start:end])]
    return [w for _, w in sorted(out, key=lambda p: p[0])]


def cjk_sentence_questions_for_corpus(corpus_root: Path, n: int, seed: int) -> list[dict]:
    """``sentence_questions_for_corpus`` for a corpus in Japanese or Chinese, where no space
    parts words or sentences: a prose sentence (``_prose_sentences``' paragraphs cut after
    。！？ as well) holding CJK text and at least 5 ``cjk_terms`` gives a query of 3-5 of them,
    in the sentence's order, joined by spaces; a sentence without CJK text, 4-6 of its
    ``content_words`` as before. The locator quotes the sentence, kept when it occurs once in
    the corpus and labeller resolves it. Deterministic for a seed (the held-out CJK set of
    issue 37.6's dense-unreadable rule, docs/performance.md)."""
    from labeller.core.chunkers import chunk_corpus, get_chunker
    from labeller.core.corpus import load_corpus
    from labeller.core.models import Locator
    from labeller.core.resolve import Resolver, Span

    rng = random.Random(seed)
    corpus = load_corpus(corpus_root)
    pool = []
    for d in corpus:
        for para in _prose_sentences(d.text):
            for s in (p.strip() for p in _CJK_SENTENCE_END.split(para)):
                cjk = bool(_CJK_CHAR.search(s))
                terms = cjk_terms(s) if cjk else content_words(s)
                if len(terms) >= (5 if cjk else 6) and len(s) <= 300:
                    pool.append((s, terms, cjk))
    rng.shuffle(pool)
    chunker = get_chunker("md-struct-v1", max_chars=1800)
    resolver = Resolver(corpus, chunk_corpus(corpus, chunker), chunker)
    out: list[dict] = []
    queries: set[str] = set()
    for sentence, terms, cjk in pool:
        if len(out) == n:
            break
        k = rng.randint(3, 5) if cjk else rng.randint(4, 6)
        query = " ".join(terms[i] for i in sorted(rng.sample(range(len(terms)), k)))
        if query in queries or not isinstance(resolver.resolve(Locator(quote=sentence)), Span):
            continue
        queries.add(query)
        out.append({"id": f"c{len(out) + 1:04d}", "query": query, "expected_answer": sentence,
                    "locators": [{"quote": sentence}], "tags": ["sentence", "cjk" if cjk else "en"],
                    "split": ("dev", "test")[len(out) % 2]})
    return out

