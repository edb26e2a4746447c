"""``eval --html REPORT.html``: one self-contained, deterministic page that nothing in the
repository can turn into markup. Read back with the standard library's HTML parser: every tag
and attribute the page holds is what labeller wrote, not what a question or a document said.
(The browser's view of the same page: test_eval_html_browser.py.)"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import sys
from collections import Counter
from html.parser import HTMLParser

from test_eval_cli import N, facts_project, gold_chunk_ids

from labeller.cli import main

HOSTILE_QUERY = ("where does omega nest </script><script>alert(1)</script> \u202eevil "
                 "<img src=https://evil.example/q.png onerror=alert(2)>")
HOSTILE_TAG = '"><svg onload=alert(3)>'
HOSTILE_DOC = ("# Omega\n\nThe kestrel omega nests on the far ridge. </pre><script>alert(4)</script> "
               "\u202e <link rel=stylesheet href=https://evil.example/s.css>\n")


class Page(HTMLParser):
    """Every start tag with its attributes, the text of every <script>, and every <meta>."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)


def hostile_project(tmp_path):
    """The facts project plus a hostile document and question; q00's ranking puts the hostile
    chunk first (a miss whose 'retrieved instead' is that chunk), and the hostile question,
    left out of the run, is a miss with its hostile gold span."""
    evil = {"id": "evil", "query": HOSTILE_QUERY, "expected_answer": "x", "tags": [HOSTILE_TAG, "plain"],
            "locators": [{"doc": "omega.md", "quote": "kestrel omega nests on the far ridge"}]}
    root = facts_project(tmp_path, extra_docs={"omega.md": HOSTILE_DOC}, extra_questions=[evil])
    ids = gold_chunk_ids(root)
    lines = [f"q00 Q0 {ids['omega.md']} 1 9 ext\n"]
    lines += [f"q{i:02d} Q0 {ids[f'doc{i:02d}.md']} 1 9 ext\n" for i in range(1, N)]
    (tmp_path / "r.run").write_text("".join(lines))
    return root


def write_html(root, tmp_path, capsys, name: str, *args: str, expect: int = 0) -> tuple[str | None, str]:
    capsys.readouterr()
    path = tmp_path / name
    rc = main(["eval", "--root", str(root), "--no-history", "--run", str(tmp_path / "r.run"), "--html", str(path),
               *args])
    err = capsys.readouterr().err
    assert rc == expect, err
    return (path.read_text(encoding="utf-8") if path.exists() else None), err


def test_the_page_is_self_contained_and_byte_identical_across_runs(tmp_path, capsys):
    root = hostile_project(tmp_path)
    first, _ = write_html(root, tmp_path, capsys, "a.html")
    second, _ = write_html(root, tmp_path, capsys, "b.html")  # the same process: the chart library's counters moved
    assert first is not None and first == second
    page = Page(first)
    ids = Counter(a["id"] for _, a in page.tags if "id" in a)
    assert ids and max(ids.values()) == 1, [i for i, n in ids.items() if n > 1]  # four charts, no shared clip id
    # nothing to fetch: no attribute names a resource outside the page, no CSS import or url()
    for tag, attrs in page.tags:
        for name, value in attrs.items():
            if name in ("src", "href", "xlink:href", "action", "data", "poster", "srcset"):
                assert value is not None and value.startswith("#"), (tag, name, value)
    assert "@import" not in first and not re.search(r"url\((?!#)", first)
    assert not [t for t, _ in page.tags if t in ("img", "link", "iframe", "object", "embed", "audio", "video")]
    # a policy that lets the page load nothing and run only its own script
    (csp,) = [a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    (script,) = page.scripts
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert csp == f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'"
    charts = [a["id"] for t, a in page.tags if t == "figure"]
    assert charts == ["chart-recall", "chart-mrr", "chart-split", "chart-tag"]
    assert first.count('class="mark-line') >= 2 and 'class="mark-rect' in first  # curves and bars were drawn


def test_text_from_the_repository_never_becomes_markup(tmp_path, capsys):
    root = hostile_project(tmp_path)
    text, _ = write_html(root, tmp_path, capsys, "r.html")
    assert text is not None
    page = Page(text)
    assert [t for t, _ in page.tags].count("script") == 1  # the sort script, nothing a question or a doc wrote
    assert not [(t, a) for t, a in page.tags if any(name.startswith("on") for name in a)]
    assert "evil.example" not in str([a for _, a in page.tags])
    assert "\u202e" not in text and "\\u202e" in text  # the bidi override is shown, not obeyed
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in text  # the query, as text
    assert "&lt;/pre&gt;&lt;script&gt;alert(4)&lt;/script&gt;" in text  # the hostile chunk beside q00's gold span
    assert "&quot;&gt;&lt;svg onload=alert(3)&gt;" in text  # the tag, in the table and the chart


def test_without_the_report_extra_it_is_exit_2_before_any_work(tmp_path, capsys, monkeypatch):
    root = hostile_project(tmp_path)
    monkeypatch.setitem(sys.modules, "vl_convert", None)  # what an install without the extra sees
    text, err = write_html(root, tmp_path, capsys, "r.html", "--out", str(tmp_path / "r.json"), expect=2)
    assert text is None and not (tmp_path / "r.json").exists()
    assert "pip install 'labeller[report]'" in err


def test_a_report_never_replaces_an_input(tmp_path, capsys):
    root = hostile_project(tmp_path)
    questions = root / "golden" / "questions.jsonl"
    before = questions.read_bytes()
    rc = main(["eval", "--root", str(root), "--no-history", "--html", str(questions)])
    assert rc == 2 and questions.read_bytes() == before
    assert "--html" in capsys.readouterr().err


def test_chart_ids_are_the_charts_own_whatever_the_library_numbered_before():
    """Vega numbers clip paths per process (clip1, then clip2 for the same spec): a chart's ids
    are renamed after it, so a page is the same bytes on every run and two charts never share an id."""
    from labeller.eval.charts import svg

    spec = {"data": {"values": [{"x": "a", "y": 2.0}, {"x": "b", "y": 0.5}]}, "mark": {"type": "bar", "clip": True},
            "encoding": {"x": {"field": "x", "type": "nominal"},
                         "y": {"field": "y", "type": "quantitative", "scale": {"domain": [0, 1]}}}}
    first, second = svg(spec, "one"), svg(spec, "one")
    assert first == second
    ids = re.findall(r'\bid="([^"]+)"', first)
    assert ids and all(i.startswith("one-") for i in ids)
    assert all(f"url(#{i})" in first for i in ids)  # every reference follows its id
    assert re.findall(r'\bid="([^"]+)"', svg(spec, "two")) == [i.replace("one-", "two-") for i in ids]


def cells(text: str) -> list[list[str]]:
    """Every table row of the page as its cells' text (entities decoded)."""
    return [[html.unescape(c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", text, re.S)]


def test_a_comparison_shows_before_after_delta_interval_verdict(tmp_path, capsys):
    root = hostile_project(tmp_path)
    assert main(["eval", "--root", str(root), "--no-history", "--format", "json", "--out", str(tmp_path / "b.json"),
                 "--run", str(tmp_path / "r.run")]) == 0
    ids = gold_chunk_ids(root)  # the current run loses q01-q15's answers: a regression
    (tmp_path / "r.run").write_text("".join(f"q{i:02d} Q0 {ids[f'doc{(i + 1) % N:02d}.md']} 1 9 ext\n"
                                            for i in range(16)))
    text, _ = write_html(root, tmp_path, capsys, "r.html", "--baseline", str(tmp_path / "b.json"),
                         "--out", str(tmp_path / "c.json"))
    report = json.loads((tmp_path / "c.json").read_text())
    k = report["config"]["shipped_k"]
    d = report["comparison"]["deltas"]["chunk"][f"recall@{k}"]
    assert [f"chunk recall@{k}", f"{d['baseline']:.3f}", f"{d['current']:.3f}", f"{d['value']:+.3f}",
            f"[{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]", "worse"] in cells(text)
    assert f">regression at chunk recall@{k}</p>" in text
    mdd = report["comparison"]["mdd"]
    assert f"<p>minimum detectable difference in chunk recall@{k} at 80% power: {mdd['value']:.3f} over " \
        f"{mdd['n']} paired queries" in text


def test_misses_beyond_the_limit_are_counted(tmp_path, capsys, monkeypatch):
    from labeller.eval import html_report

    monkeypatch.setattr(html_report, "MISS_LIMIT", 1)
    root = hostile_project(tmp_path)
    text, _ = write_html(root, tmp_path, capsys, "r.html")
    assert text is not None and text.count('<section class="miss">') == 1  # q00 and evil miss; one is shown
    assert "… and 1 more misses" in text
