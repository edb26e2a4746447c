"""Issue 37.5: a pull-request comment labeller writes can neither ping nor overflow.

Rendered with cmark-gfm (``cmarkgfm``: GitHub's own renderer, its autolink, table and
tagfilter extensions on), every untrusted string in a cell must give HTML with no link, and
text in which none of the patterns GitHub turns into a mention, a reference or a link after
rendering (cmark-gfm does not do those) is left intact. A cell is at most its bound once
escaped, however it is cut; a comment at most ``COMMENT_CHARS``, its last line saying what was
left out and where the whole report is.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import cmarkgfm
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers_interop import cli
from labeller.diagnostics import CELL_CHARS, COMMENT_CHARS, ZWJ, bounded_comment, markdown_cell, markdown_table

# What GitHub makes of rendered text (html-pipeline's MentionFilter, IssueReferenceFilter and
# autolinking), read conservatively: an @ after no ASCII word character before a name, a # or
# GH- before a digit, any scheme:// or www., an @ before a dotted domain (an e-mail address).
GITHUB_PATTERNS = {
    "mention": re.compile(r"(?:^|[^A-Za-z0-9_])@[A-Za-z0-9]"),
    "reference": re.compile(r"#\d|(?i:gh-\d)"),
    "url": re.compile(r"://|(?i:www\.)"),
    "e-mail": re.compile(r"@[\w-]*\."),
}
HOSTILE = ["@someone", "@org/team", "\\@team", "#123", "\\#123", "GH-123", "gh-7", "owner/repo#7", "a@b.com",
           "a\\@b.com", "mailto:a@b.com", "xmpp:a@b.com", "http://evil.example/x", "https://x.y", "ftp://x.y",
           "www.evil.example", "WWW.EVIL.EXAMPLE", "<https://x.y>", "[x](https://x.y)", "![i](https://x.y/i.png)",
           "`code`", "<img src=x>", "&#64;team &#35;12", "é@user", "(@user)", "x|y", "trailing \\", "recall@5"]


def render(markdown: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(markdown)


def text_of(rendered: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", rendered))


def links_left(markdown: str) -> dict[str, list[str]]:
    """The links in the rendered HTML and the GitHub patterns left intact in its text."""
    rendered = render(markdown)
    found = {"html": [tag for tag in ("<a ", "href", "<img", "<code") if tag in rendered]}
    found.update({name: p.findall(text_of(rendered)) for name, p in GITHUB_PATTERNS.items()})
    return {k: v for k, v in found.items() if v}


def one_row(cell: str) -> list[str]:
    """The cells of a one-row table holding ``cell`` between two others, as rendered."""
    rendered = render(f"| a | b | c |\n|---|---|---|\n| left | {cell} | right |")
    row = re.findall(r"<tr>(.*?)</tr>", rendered, re.S)[1]
    return [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row, re.S)]


def test_cmark_gfm_links_what_a_backslash_leaves():
    """The renderer sees what GitHub sees: ``a\\@b.com`` is still an e-mail link, ``@team`` still
    text for GitHub to mention: backslash escapes alone do not make a cell safe."""
    assert "mailto:a@b.com" in render("a\\@b.com") and "http://x.y" in render("see http://x.y")
    assert links_left("\\@team \\#12")  # rendered as "@team #12": GitHub mentions and links both


@pytest.mark.parametrize("hostile", HOSTILE)
def test_each_hostile_string_renders_with_no_link_and_reads_as_written(hostile):
    cell = markdown_cell(hostile)
    assert links_left(cell) == {}, cell
    assert links_left(f"| h |\n|---|\n| {cell} |") == {}
    assert [c.replace(ZWJ, "") for c in one_row(cell)] == ["left", hostile, "right"]  # one cell, as written


def test_an_at_inside_a_word_is_left_as_it_is():
    assert markdown_cell("recall@5 ndcg@10") == "recall\\@5 ndcg\\@10"


_PIECES = st.sampled_from(["@", "#", "GH-", "gh-", "://", "www", ".", "a", "b", "1", "7", " ", "\\", "/", "-", "_",
                           "mailto:", "http", ":", "é", "|", "`", "<", ">", "[", "]", "(", ")", "&", ";", "\n", ZWJ])
# the length drawn first: left to itself, a list strategy keeps to a few items, under any cell's bound
HOSTILE_TEXT = st.integers(0, 150).flatmap(lambda n: st.lists(_PIECES, min_size=n, max_size=n)).map("".join)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(text=HOSTILE_TEXT, limit=st.integers(40, 120))
def test_any_mix_renders_with_no_link_and_a_cut_never_splits_an_escape(text, limit):
    cell = markdown_cell(text, limit)
    assert len(cell) <= limit
    assert links_left(cell) == {}, (text, cell)
    cells = one_row(cell)
    assert len(cells) == 3 and cells[0] == "left" and cells[2] == "right", (text, cell)  # no pipe freed
    shown, written = cells[1].replace(ZWJ, "").strip(), text.replace(ZWJ, "").replace("\n", "⏎ ").strip()
    if "more characters)" in shown:  # cut: what is shown is the start of the text, then the count
        assert written.startswith(shown.rsplit("… (", 1)[0].strip())
    else:
        assert shown == written  # a table cell's outer spaces are not its text


def test_a_cell_is_bounded_after_escaping():
    """Cut before escaping, 200 characters of ``@`` were a 600-character cell."""
    for text in ("@" * 1000, "|" * 1000, "#1" * 500, "http://" * 200, "é" * 1000):
        cell = markdown_cell(text)
        assert len(cell) <= CELL_CHARS and cell.endswith(" more characters\\)")
        assert links_left(cell) == {}


# -- the comment's bound -----------------------------------------------------------------------------

def test_a_comment_over_the_bound_keeps_whole_lines_and_says_what_was_left_out():
    table = markdown_table(("id", "text"), ([f"r{i}", "@x " * 60] for i in range(20)), 20, "rows")
    text = "\n".join(["### title", ""] + table * 40)
    assert len(text) > 65_536
    cut = bounded_comment(text, "`labeller eval --format json`")
    lines = cut.split("\n")
    assert len(cut) <= COMMENT_CHARS
    assert text.startswith("\n".join(lines[:-2]) + "\n") and lines[-2] == ""
    left = len(text.split("\n")) - len(lines[:-2])
    assert lines[-1] == (f"**cut to fit a pull-request comment**: {left:,} more line(s), "
                         f"{len(text) - len(chr(10).join(lines[:-2])) - 1:,} characters, left out; the whole report: "
                         "`labeller eval --format json`")
    assert bounded_comment("short", "x") == "short"


def test_the_bound_counts_what_github_counts_not_fewer():
    """An emoji is two UTF-16 code units: 40,000 of them are 80,000 to a browser."""
    text = "\n".join(["😀" * 100] * 400)
    cut = bounded_comment(text, "x")
    assert len(cut.encode("utf-16-le")) // 2 <= COMMENT_CHARS < len(text.encode("utf-16-le")) // 2


def _hostile_eval(tmp_path: Path, capsys) -> tuple[Path, Path, Path]:
    """A project whose records hold every hostile string, and a baseline report with 400 planted
    fingerprint fields: 160,394 characters of comment before the bounds (issue 37)."""
    from test_eval_cli import facts_project, write_run

    query = " ".join(HOSTILE) * 3
    extra = [{"id": f"x{i}", "query": f"{i} {query}", "expected_answer": "x",
              "locators": [{"doc": "doc05.md", "quote": "alpha05"}], "tags": ["@team", "#12"]} for i in range(30)]
    root = facts_project(tmp_path, extra_questions=extra)
    run_file = write_run(tmp_path / "r.run", root)
    baseline = tmp_path / "base.json"
    rc, _, err = cli(capsys, "eval", "--root", root, "--no-history", "--run", run_file, "--format", "json",
                     "--out", baseline)
    assert rc == 0, err
    report = json.loads(baseline.read_text(encoding="utf-8"))
    report["fingerprint"]["retriever"].update({f"k{i}|@team": query for i in range(400)})
    baseline.write_text(json.dumps(report), encoding="utf-8")
    return root, run_file, baseline


def test_eval_markdown_of_hostile_records_is_bounded_and_links_nothing(tmp_path, capsys):
    root, run_file, baseline = _hostile_eval(tmp_path, capsys)
    rc, md, err = cli(capsys, "eval", "--root", root, "--no-history", "--run", run_file, "--format", "markdown",
                      "--baseline", baseline)
    assert rc == 0, err
    assert len(md) <= COMMENT_CHARS
    assert links_left(md) == {}
    assert "… and 380 more fingerprint differences" in md
    cells = re.findall(r"<td>(.*?)</td>", render(md), re.S)
    assert cells and max(len(markdown_cell(html.unescape(c).replace(ZWJ, ""))) for c in cells) <= CELL_CHARS


def test_eval_markdown_past_the_bound_ends_saying_where_the_full_report_is(tmp_path, capsys, monkeypatch):
    """The same comment under a bound of 5,000 (the real one needs more than the tables can hold
    since they are bounded): whole lines, then the line naming the JSON and the HTML report."""
    from labeller import diagnostics

    root, run_file, baseline = _hostile_eval(tmp_path, capsys)
    args = ["eval", "--root", root, "--no-history", "--run", run_file, "--format", "markdown", "--baseline", baseline]
    whole = cli(capsys, *args)[1]
    monkeypatch.setattr(diagnostics, "COMMENT_CHARS", 5_000)
    rc, md, _ = cli(capsys, *args)
    assert rc == 0 and len(md) <= 5_000 < len(whole)
    kept, last = md.rstrip("\n").rsplit("\n\n", 1)
    assert whole.startswith(kept + "\n")
    assert last.startswith("**cut to fit a pull-request comment**: ")
    assert last.endswith("the whole report: `labeller eval --format json` (every query and number) or its HTML "
                         "report (`--html FILE`)")


def test_build_check_markdown_of_hostile_records_is_bounded_and_links_nothing(tmp_path, capsys, monkeypatch):
    from conftest import q, write_project

    from labeller import diagnostics

    quote = " ".join(HOSTILE) * 4
    root = write_project(tmp_path / "p", {"a.md": "# A\n\nThe quick brown fox.\n"},
                         [q(f"r{i}-@team", {"quote": f"{i} {quote}"}) for i in range(30)])
    rc, md, err = cli(capsys, "build", "--check", "--root", root, "--format", "markdown")
    assert rc == 1, err
    assert len(md) <= COMMENT_CHARS and links_left(md) == {}
    assert "… and 10 more broken labels" in md
    monkeypatch.setattr(diagnostics, "COMMENT_CHARS", 3_000)
    md = cli(capsys, "build", "--check", "--root", root, "--format", "markdown")[1]
    assert len(md) <= 3_000
    assert md.rstrip("\n").endswith("the whole report: `labeller build --check --format json`")


def test_repair_markdown_of_hostile_records_is_bounded_and_links_nothing(tmp_path, capsys, monkeypatch):
    """``repair --format markdown`` (a bot's pull-request body): what the repository wrote, in the
    locators left (end to end) and in the edited quotes re-pointed (a plan made by hand: the
    fixes' text is the repository's too), renders as text, and the body keeps its bounds."""
    from conftest import q, write_project

    from labeller.commands.repair_markdown import repair_markdown
    from labeller.core.fixes import NEAREST, Fix
    from labeller.core.models import Locator
    from labeller.core.repair import RepairPlan

    monkeypatch.setenv("LABELLER_REVIEWER", "bot")
    quote = " ".join(HOSTILE) * 4
    docs = [f"{i}-{HOSTILE[i % len(HOSTILE)]}.md".replace("/", "-").replace("\\", "-") for i in range(30)]  # no folder
    root = write_project(tmp_path / "p", {"a.md": "# A\n\nThe quick brown fox.\n"},
                         [q(f"r{i}-@team", {"doc": doc, "quote": f"{i} {quote}"}) for i, doc in enumerate(docs)])
    rc, md, err = cli(capsys, "repair", "--dry-run", "--root", root, "--format", "markdown")
    assert rc == 1, err
    assert len(md) <= COMMENT_CHARS and links_left(md) == {}
    assert "… and 10 more documents" in md and "… and 10 more locators left" in md
    fixes = [Fix(f"r{i}-@team", 0, NEAREST, Locator(doc=h + ".md", quote=quote), Locator(doc="a.md", quote=h), 90.0)
             for i, h in enumerate(HOSTILE)]
    body = repair_markdown(RepairPlan(fixes=fixes * 40), written=True, dry_run=False, rel="golden/@team#1.jsonl")
    ours = ("`labeller review`", "`labeller build`")  # the body's own commands, as code
    assert re.findall(r"<code>(.*?)</code>", render(body)) == ["labeller review", "labeller build"]
    assert len(body) <= COMMENT_CHARS and links_left(body.replace(ours[0], "").replace(ours[1], "")) == {}
    assert f"… and {len(fixes) * 40 - 20:,} more edited quotes re-pointed" in body
