"""``labeller chunkers compare``: chunkings scored on one golden set with the same retriever.

Hand computations on a one-line corpus (overlapping windows included), the verdict, the
three output formats, byte-identical JSON on the bundled example, and a run on a real
corpus (textual-docs) whose golden set is built here from exact quotes of it.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import cmarkgfm
import pytest
from conftest import REPO, SHARED_CORPORA, write_project

from labeller.cli import main
from labeller.config import load_config
from labeller.core.cache import DigestCache
from labeller.core.chunkers import chunk_corpus, get_chunker
from labeller.core.project import Project
from labeller.diagnostics import ZWJ
from labeller.eval import retrievers
from labeller.eval.compare import compare_chunkers, markdown

# 40 code points: aaaa@0 bbbb@5 cccc@10 dddd@15 eeee@20 ffff@25 gggg@30 hhhh@35, newline@39
LINE = "aaaa bbbb cccc dddd eeee ffff gggg hhhh\n"
WIDE = "fixed-chars-v1:size=20,overlap=0"  # [0,20) [20,40)
SLIDING = "fixed-chars-v1:size=12,overlap=6"  # [0,12) [6,18) [12,24) [18,30) [24,36) [30,40)


def tiny_project(tmp_path) -> Project:
    questions = [
        {"id": "q1", "query": "cccc dddd", "expected_answer": "", "locators": [{"quote": "cccc dddd", "exact": True}]},
        {"id": "q2", "query": "gggg", "expected_answer": "", "locators": [{"quote": "gggg", "exact": True}]},
    ]
    root = write_project(tmp_path / "tiny", {"a.md": LINE}, questions)
    return Project(load_config(root))


@pytest.fixture
def last_first():
    """A retriever that ranks every chunk by start, last first, whatever the query: the
    budget walk is then computable by hand."""
    def factory(project, *, chunks=None, **_):
        ranking = [tuple(r.place) for r in sorted(chunks.chunking.ranges, key=lambda r: -r.place.start)]
        return lambda query, k: ranking[:k]

    retrievers.register_retriever("last-first", factory)
    yield "last-first"
    retrievers.REGISTRY.pop("last-first", None)


def test_precision_omega_and_budget_recall_equal_hand_computations(tmp_path, last_first):
    data = compare_chunkers(tiny_project(tmp_path), [WIDE, SLIDING], ks=[1, 2], budgets=[20, 25, 30, 40],
                            retriever=last_first).data
    wide, sliding = data["chunkings"]
    assert (wide["chunks"], sliding["chunks"]) == (2, 6)
    assert wide["chars"] == {"min": 20, "median": 20, "mean": 20.0, "p90": 20, "max": 20}
    assert sliding["chars"] == {"min": 10, "median": 12.0, "mean": 11.7, "p90": 12, "max": 12}
    # q1: E = [10,19) (9 chars). wide: C = [0,20) -> 9/20. sliding: [0,12) [6,18) [12,24) [18,30)
    # overlap E, their union [0,30) counted once -> 9/30 (summing their lengths would give 9/48).
    # q2: E = [30,34). wide: C = [20,40) -> 4/20. sliding: [24,36) [30,40) -> union [24,40) -> 4/16.
    assert wide["precision_omega"]["value"] == pytest.approx((9 / 20 + 4 / 20) / 2)
    assert sliding["precision_omega"]["value"] == pytest.approx((9 / 30 + 4 / 16) / 2)
    assert wide["precision_omega"]["n"] == sliding["precision_omega"]["n"] == 2
    # Budget walk, ranking last first. wide: [20,40) fits 20, 25, 30; [0,20) would make 40: stop.
    #   q1 recall 0 at every budget; q2 1.
    # sliding: [30,40) 10, [24,36) -> [24,40) 16, [18,30) -> 22, [12,24) -> 28, [6,18) -> 34.
    #   B=20: [24,40) -> q1 0.  B=25: [18,40) -> q1 1/9 ([18,19)).  B=30: [12,40) -> q1 7/9 ([12,19)).
    #   q2 ([30,34)) is inside [24,40): 1 at every budget.
    for b in (20, 25, 30):
        assert wide[f"chars_recall@budget={b}"]["value"] == pytest.approx(0.5)
    assert sliding["chars_recall@budget=20"]["value"] == pytest.approx(0.5)
    assert sliding["chars_recall@budget=25"]["value"] == pytest.approx((1 / 9 + 1) / 2, abs=1e-6)
    assert sliding["chars_recall@budget=30"]["value"] == pytest.approx((7 / 9 + 1) / 2, abs=1e-6)
    # The deltas are paired per query, sliding minus wide.
    d = sliding["deltas"]
    assert d["precision_omega"]["value"] == pytest.approx(((9 / 30 - 9 / 20) + (4 / 16 - 4 / 20)) / 2, abs=1e-6)
    assert d["chars_recall@budget=30"]["value"] == pytest.approx(7 / 18, abs=1e-6)
    assert d["chars_recall@budget=20"] == {"value": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 2,
                                           "excludes_zero": False}
    assert wide["deltas"] is None and data["baseline"] == WIDE
    # B=40 takes every chunk of both (40 characters): recall 1, and the whole retrieved list
    # (the depth is the shipped k or more: every chunk here) fits, so the budget is "unfilled".
    assert wide["chars_recall@budget=40"]["value"] == sliding["chars_recall@budget=40"]["value"] == 1.0
    assert wide["budget_unfilled"] == sliding["budget_unfilled"] == {"20": 0, "25": 0, "30": 0, "40": 2}


def test_the_budget_walk_stops_at_the_first_chunk_that_would_pass_it(tmp_path):
    """Ranking [24,36) [30,40) [0,12) [18,30) ...: at B=27 the union [24,40) (16) plus [0,12)
    would be 28, so the walk stops there, although [18,30) (union [18,40), 22) would still fit
    and would bring q1's [18,19): q1 scores 0 (skipping on would give 1/9), q2 1."""
    order = [24, 30, 0, 18, 12, 6]

    def factory(project, *, chunks=None, **_):
        by_start = {r.place.start: tuple(r.place) for r in chunks.chunking.ranges}
        return lambda query, k: [by_start[s] for s in order if s in by_start][:k]

    retrievers.register_retriever("fixed-order", factory)
    try:
        data = compare_chunkers(tiny_project(tmp_path), [WIDE, SLIDING], ks=[1], budgets=[27],
                                retriever="fixed-order").data
    finally:
        retrievers.REGISTRY.pop("fixed-order", None)
    sliding = data["chunkings"][1]
    assert sliding["chars_recall@budget=27"]["value"] == pytest.approx(0.5)


def verdict_project(tmp_path) -> Project:
    """Twelve one-sentence answers, one per paragraph of their own document: a chunking of
    whole documents has a far lower ceiling than one of sentences, on every query."""
    docs, questions = {}, []
    for i in range(12):
        words = " ".join(f"w{i}x{j}" for j in range(30))
        answer = f"Answer number {i} is kestrel{i}."
        docs[f"d{i:02}.md"] = f"{words}\n\n{answer}\n\n{words[::-1]}\n"
        questions.append({"id": f"v{i:02}", "query": f"kestrel{i}", "expected_answer": "",
                          "locators": [{"quote": answer, "exact": True}]})
    return Project(load_config(write_project(tmp_path / "verdict", docs, questions)))


def test_the_verdict_names_the_differences_whose_interval_excludes_zero(tmp_path):
    data = compare_chunkers(verdict_project(tmp_path), ["sections-v1:size=100000", "recursive-v1:size=60,overlap=0"], ks=[1],
                            budgets=[100, 5000]).data
    base, para = data["chunkings"]
    assert para["precision_omega"]["value"] > base["precision_omega"]["value"]
    assert para["deltas"]["precision_omega"]["excludes_zero"] and para["deltas"]["precision_omega"]["ci_low"] > 0
    # Both find every answer within 5000 characters: the same value for every query, delta 0.
    assert para["deltas"]["chars_recall@budget=5000"]["value"] == 0
    assert not para["deltas"]["chars_recall@budget=5000"]["excludes_zero"]
    (v,) = data["verdict"]
    named = {d["metric"] for d in v["differences"]}
    assert "precision_omega" in named and "chars_recall@budget=5000" not in named
    assert named == {n for n, d in para["deltas"].items() if d["excludes_zero"]}
    assert v["line"].startswith("recursive-v1:size=60,overlap=0 vs sections-v1:size=100000: higher precision_omega")
    # Chunk-level recall is reported per row and never compared.
    assert "chunk_recall@1" in para and "chunk_recall@1" not in para["deltas"]
    assert data["not_comparable"]["metrics"] == ["chunk_recall@1", "chunk_recall@5"]  # the shipped k is added


def test_markdown_is_one_column_per_chunking_and_one_row_per_quantity(tmp_path):
    data = compare_chunkers(verdict_project(tmp_path), ["sections-v1:size=100000", "recursive-v1:size=60,overlap=0"], ks=[1, 5],
                            budgets=[100, 5000]).data
    text = markdown(data)
    lines = text.splitlines()
    table = [line for line in lines if line.startswith("|")]
    # as GitHub renders the comment (its tag filter lets <br> through)
    rendered = cmarkgfm.github_flavored_markdown_to_html(text, options=cmarkgfm.Options.CMARK_OPT_UNSAFE)
    head = [html.unescape(c) for c in re.findall(r"<th>(.*?)</th>", rendered, re.S)]
    assert head == ["", "sections-v1:size=100000 (baseline)", "recursive-v1:size=60,overlap=0"]
    assert table[1] == "|---|---|---|"
    body = [[html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", rendered.split("<tbody>")[1], re.S)]
    assert all(len(row) == 3 for row in body) and len(body) == len(table) - 2  # none broken by a "|"
    assert [row[0] for row in body] == [
        "chunks", "chars min / median / mean", "chars p90 / max", "unreachable spans", "precision_Ω (ceiling)",
        "chars recall@budget=100", "chars recall@budget=5000", "chars recall@1", "chars recall@5",
        "chars precision@1", "chars precision@5", "chars iou@1", "chars iou@5", "chunk recall@1 †",
        "chunk recall@5 †"]
    omega = next(row for row in body if row[0].startswith("precision_Ω"))
    assert "<br>Δ +" in omega[2] and omega[2].endswith("*")  # the delta, marked as excluding zero
    assert lines[0].startswith("**Chunker comparison** — 12 answerable queries")
    assert html.unescape(re.findall(r"<li>(.*?)</li>", rendered)[-1]) == data["verdict"][0]["line"]


def test_markdown_neutralises_chunking_names_from_the_project(tmp_path):
    """A chunk file's name is a fork's to choose: in the PR comment it mentions, links and
    breaks no table, and a very long one is cut (issue 37.5, for `chunkers compare`)."""
    data = compare_chunkers(verdict_project(tmp_path), ["sections-v1:size=100000", "recursive-v1:size=60,overlap=0"],
                            ks=[1, 5], budgets=[100, 5000]).data
    hostile = "@org/team #12 GH-7 a@b.com https://x.y `x` | " + "w" * 10_000
    data["chunkings"][1]["name"] = hostile
    data["verdict"][0]["line"] = hostile
    text = markdown(data)
    rendered = cmarkgfm.github_flavored_markdown_to_html(text)
    assert "<a " not in rendered and "href" not in rendered and "<code" not in rendered
    visible = html.unescape(re.sub(r"<[^>]+>", " ", rendered)).replace(ZWJ, "")
    assert "@org/team" in visible  # shown as written, but broken for GitHub's mention filter
    rows = re.findall(r"<tr>(.*?)</tr>", rendered, re.S)
    assert rows and all(len(re.findall(r"<t[dh]>", row)) == 3 for row in rows)  # no cell broken by the "|"
    assert len(text) < 20_000  # the name's cell is cut, not the comment stretched


def copy_example(tmp_path) -> Path:
    root = tmp_path / "example"
    shutil.copytree(REPO / "corpus", root / "corpus")
    (root / "golden").mkdir(parents=True)
    shutil.copy(REPO / "golden" / "questions.jsonl", root / "golden" / "questions.jsonl")
    return root


def test_json_on_the_bundled_example_is_byte_identical_across_runs(tmp_path, capsys):
    root = copy_example(tmp_path)
    args = ["chunkers", "compare", "md-struct-v1", "recursive-v1:size=800,overlap=200", "words-v1:size=120,overlap=0",
            "--root", str(root), "--budget", "1000,4000", "--format", "json"]
    outputs = []
    for _ in range(2):  # the first run is cold (chunks, indexes), the second reads the caches
        assert main(args) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    data = json.loads(outputs[0])
    assert outputs[0] == json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
    assert data["schema"] == "labeller.chunker-comparison.v1"
    assert [c["name"] for c in data["chunkings"]] == ["md-struct-v1:max_chars=1800",
                                                      "recursive-v1:size=800,overlap=200", "words-v1:size=120,overlap=0"]
    for c in data["chunkings"]:
        for name in [*data["comparable_metrics"], *data["not_comparable"]["metrics"]]:
            assert set(c[name]) == {"value", "ci_low", "ci_high", "n"}
            assert c[name]["n"] == data["config"]["queries"] == 83
    # The project's own chunking scored here is the one `labeller eval` scores.
    assert main(["eval", "--root", str(root), "--format", "json", "--no-history", "--budget", "1000,4000"]) == 0
    report = json.loads(capsys.readouterr().out)
    own = data["chunkings"][0]
    assert own["digest"] == report["chunking"]["digest"]
    assert own["precision_omega"] == report["chunking"]["precision_omega"]
    assert own["chars_recall@budget=1000"] == report["aggregate"]["chars"]["recall@budget=1000"]
    assert own["chunk_recall@5"] == report["aggregate"]["chunk"]["recall@5"]
    assert [v["chunking"] for v in data["verdict"]] == [c["name"] for c in data["chunkings"][1:]]


def test_text_output_has_the_table_the_verdict_and_the_plot(tmp_path, capsys):
    root = copy_example(tmp_path)
    plot = tmp_path / "plot.txt"
    assert main(["chunkers", "compare", "md-struct-v1", "fixed-chars-v1:size=800,overlap=200", "--root", str(root),
                 "--k", "1,5", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "precision_Ω (ceiling)" in out and "verdict:" in out and "not comparable across chunkings" in out
    drawn = plot.read_text(encoding="utf-8")
    assert "1 md-struct-v1:max_chars=1800" in drawn and "2 fixed-chars-v1:size=800,overlap=200" in drawn
    assert "\x1b[" not in drawn and drawn in out  # plain text, the same plot as printed
    assert main(["chunkers", "compare", "md-struct-v1", "fixed-chars-v1", "--root", str(root), "--k", "1",
                 "--format", "markdown"]) == 0
    assert capsys.readouterr().out.startswith("**Chunker comparison**")


@pytest.mark.parametrize("args, message", [
    (["md-struct-v1"], "at least two chunker specs"),
    (["md-struct-v1", "md-struct-v1:max_chars=1800"], "given twice"),
    (["md-struct-v1", "fixed-chars-v1", "--retriever", "run"], "cannot use --retriever run"),
    (["md-struct-v1", "no-such-v1"], "no-such-v1"),
    (["md-struct-v1", "fixed-chars-v1", "--budget", "0"], "--budget"),
])
def test_invalid_comparisons_are_refused_with_exit_2(tmp_path, capsys, args, message):
    root = write_project(tmp_path / "p", {"a.md": LINE}, [])
    assert main(["chunkers", "compare", *args, "--root", str(root)]) == 2
    assert message in capsys.readouterr().err


def test_chunkers_alone_still_lists(capsys):
    assert main(["chunkers", "--format", "json"]) == 0
    assert {c["name"] for c in json.loads(capsys.readouterr().out)["chunkers"]} >= {"md-struct-v1", "recursive-v1"}


def test_options_before_compare_are_kept(tmp_path, capsys):
    """argparse lets a sub-command's defaults overwrite what was given before it: `chunkers
    --format json compare` printed text. Before or after `compare`, the flags are the same."""
    root = tiny_project(tmp_path).config.root
    specs, k = [WIDE, SLIDING], ["--k", "1", "--budget", "20"]
    outputs = {}
    for fmt in ("json", "markdown"):
        for where, args in (("after", ["chunkers", "compare", *specs, *k, "--root", str(root), "--format", fmt]),
                            ("before", ["chunkers", "--root", str(root), "--format", fmt, "compare", *specs, *k])):
            assert main(args) == 0, (fmt, where)
            outputs[fmt, where] = capsys.readouterr().out
        assert outputs[fmt, "before"] == outputs[fmt, "after"], fmt
    assert json.loads(outputs["json", "before"])["schema"] == "labeller.chunker-comparison.v1"
    assert outputs["markdown", "before"].startswith("**Chunker comparison**")
    assert main(["chunkers", "--root", str(root), "compare", *specs, *k]) == 0  # the default stays text
    assert "verdict:" in capsys.readouterr().out
    assert main(["chunkers", "--format", "markdown"]) == 2  # only `compare` writes Markdown
    assert "chunkers compare" in capsys.readouterr().err


# -- a real corpus -----------------------------------------------------------------------------

TEXTUAL = SHARED_CORPORA / "textual-docs" / "docs"


def quoted_golden_set(project: Project, n: int) -> list[dict]:
    """Questions whose answers are exact quotes of the corpus: from each of ``n`` documents,
    its first prose line of 10+ words that occurs once in the whole corpus."""
    texts = [d.text for d in project.corpus]
    questions = []
    for doc in project.corpus:
        for line in doc.text.splitlines():
            line = line.strip()
            words = line.split()
            if (len(words) >= 10 and line[0].isalpha() and "  " not in line and not any(c in line for c in "`*[]|<>_#")
                    and sum(t.count(line) for t in texts) == 1):
                questions.append({"id": f"t{len(questions):02}", "query": " ".join(words[:6]), "expected_answer": "",
                                  "locators": [{"doc": doc.doc_id, "quote": line, "exact": True}]})
                break
        if len(questions) == n:
            return questions
    raise AssertionError(f"textual-docs gave only {len(questions)} quotable documents")


@pytest.mark.skipif(not TEXTUAL.is_dir(), reason="the shared textual-docs corpus is not next to this checkout")
def test_on_the_textual_docs_corpus(tmp_path):
    root = tmp_path / "textual"
    shutil.copytree(TEXTUAL / "guide", root / "corpus" / "guide")
    (root / "golden").mkdir()
    (root / "golden" / "questions.jsonl").write_text("", encoding="utf-8")
    questions = quoted_golden_set(Project(load_config(root)), 16)
    (root / "golden" / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions),
                                                    encoding="utf-8")
    cfg = load_config(root)
    project = Project(cfg, DigestCache(cfg.layout.cache_dir))
    specs = ["md-struct-v1", "recursive-v1:size=800,overlap=200", "fixed-chars-v1:size=400,overlap=100"]
    comparison = compare_chunkers(project, specs, ks=[1, 5, 10], budgets=[500, 2000, 8000])
    data = comparison.data
    assert data["config"]["queries"] == 16
    for spec, entry, result in zip(specs, data["chunkings"], comparison.results):
        chunks = [c for cs in chunk_corpus(project.corpus, get_chunker(spec)).values() for c in cs]
        assert entry["chunks"] == len(chunks)
        sizes = entry["chars"]
        assert sizes["min"] <= sizes["median"] <= sizes["p90"] <= sizes["max"]
        budget = [entry[f"chars_recall@budget={b}"]["value"] for b in (500, 2000, 8000)]
        assert budget == sorted(budget)  # a bigger budget never takes less
        # precision_omega, recomputed by brute force over character sets, query by query
        omegas = []
        for q in questions:
            loc = q["locators"][0]
            start = project.corpus[loc["doc"]].text.index(loc["quote"])
            gold = set(range(start, start + len(loc["quote"])))
            cover = set()
            for c in chunks:
                if c.doc_id == loc["doc"] and gold & set(range(c.start, c.end)):
                    cover |= set(range(c.start, c.end))
            omegas.append(len(gold & cover) / len(cover))
        assert entry["precision_omega"]["value"] == pytest.approx(sum(omegas) / len(omegas), abs=1e-6)
        assert entry["unreachable_spans"] == 0
    for entry in data["chunkings"][1:]:
        base = data["chunkings"][0]
        for name, d in entry["deltas"].items():  # a paired mean delta is the difference of the means
            assert d["value"] == pytest.approx(entry[name]["value"] - base[name]["value"], abs=1e-5)
            assert d["ci_low"] <= d["value"] <= d["ci_high"]
    assert len(data["verdict"]) == 2



def test_the_readme_worked_example_is_the_real_output(tmp_path, capsys):
    """The "Compare chunkers" example (docs/eval.md) is pasted from a run: it must stay what
    the command prints on the bundled example (table, verdict and plot)."""
    root = copy_example(tmp_path)
    plot = tmp_path / "plot.txt"
    assert main(["chunkers", "compare", "md-struct-v1", "recursive-v1:size=800,overlap=200",
                 "fixed-chars-v1:size=400,overlap=100", "--k", "1,5", "--budget", "500,1000,2000,4000",
                 "--format", "markdown", "--plot", str(plot), "--root", str(root)]) == 0
    page = (REPO / "docs" / "eval.md").read_text(encoding="utf-8")
    section = page[page.index("## Compare chunkers"):]
    assert capsys.readouterr().out in section
    assert plot.read_text(encoding="utf-8") in section
