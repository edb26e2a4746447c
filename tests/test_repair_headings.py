"""A section locator whose heading was edited (``core.heading_edits``): the build suggests the
document's nearest headings, and ``repair`` re-points the locator to one only when it is the one
heading at ``--min-score``, unique, and — with the committed build — heads the section's text."""

from __future__ import annotations

import subprocess

import pytest

from conftest import q, write_project
from helpers_app import on_refused_record, run_async, settle
from helpers_interop import cli, cli_json
from helpers_moves import commit_all, git
from labeller.app.widgets.document_view import DocumentView
from labeller.app.widgets.preview import PreviewPanel

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")

CHECK = ("Break it once: edit a word a quote points at and run the check again. It exits 1 and names the record "
         "it refuses.\n\nUndo the edit and it exits 0.\n")
OPTIONS = "Every option of the build command is listed here with its default value and what it changes.\n"
PAGE = f"# First hour\n\n## Prove the check works\n\n{CHECK}\n## Build options\n\n{OPTIONS}"
TITLE = "Prove the check works"


def project(tmp_path, capsys, monkeypatch, before: str, after: str, heading: str = TITLE, *,
            commit: bool = True):
    """A project labelling the section ``heading`` of ``page.md``, built (and with ``commit``,
    committed in a git work tree), then the page changed to ``after``."""
    monkeypatch.setenv("LABELLER_REVIEWER", "repair-bot")
    root = write_project(tmp_path / "proj", {"page.md": before}, [q("r-1", {"doc": "page.md", "heading": heading})])
    assert cli_json(capsys, "build", "--root", root)[0] == 0
    if commit:
        commit_all(root, "built")
    (root / "corpus/page.md").write_text(after, encoding="utf-8")
    if commit:
        git(root, "commit", "-q", "--allow-empty", "-am", "edited")
    return root


def test_an_edited_heading_is_suggested_and_repaired(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, capsys, monkeypatch, PAGE, PAGE.replace("## Prove the check", "## Prove that the check"))
    rc, report = cli_json(capsys, "build", "--check", "--root", root)
    (error,) = report["errors"]
    assert error["kind"] == "not_found"
    assert error["suggestions"] == [{"doc": "page.md", "heading": "Prove that the check works", "score": 89.4,
                                     "where": "page.md:3:1", "unique": True}]
    rc, _, err = cli(capsys, "build", "--check", "--root", root)
    assert "nearest heading page.md:3:1 (89.4): Prove that the check works" in err
    rc, out, _ = cli(capsys, "build", "--check", "--root", root, "--format", "markdown")
    assert "page\\.md\\:3\\:1 \\(89\\.4\\)\\: \\# Prove that the check works" in out
    rc, plan = cli_json(capsys, "repair", "--root", root)
    assert rc == 0, plan["left"]
    (fix,) = plan["applied"]
    assert (fix["kind"], fix["new"], fix["score"]) == ("nearest", {"doc": "page.md",
                                                                   "heading": "Prove that the check works"}, 89.4)
    assert cli_json(capsys, "build", "--root", root)[0] == 0
    rc, _, err = cli(capsys, "repair", "--root", root, "--dry-run")
    assert rc == 0


def test_the_text_report_says_a_heading_was_re_pointed(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, capsys, monkeypatch, PAGE, PAGE.replace("## Prove the check works",
                                                                     "## Prove the check works, once"))
    rc, out, err = cli(capsys, "repair", "--root", root, "--dry-run")
    said = " ".join(err.split())
    assert "would apply 1 fix(es) to 1 record(s): 0 moved, 0 nearest passage(s), 1 nearest heading(s)" in said
    assert ("edited quotes and headings re-pointed (read each): r-1 locator 1: nearest heading (87.5) page.md: # "
            "Prove the check works, once") in said
    rc, out, _ = cli(capsys, "repair", "--root", root, "--dry-run", "--format", "markdown")
    assert "**Edited quotes and headings re-pointed** (1: read each):" in out
    assert ("| r\\-1 | 1 | page\\.md | \\# Prove the check works | page\\.md | \\# Prove the check works\\, once | "
            "nearest heading\\, 87\\.5 |") in out


def test_a_heading_that_now_heads_other_text_is_left(tmp_path, capsys, monkeypatch):
    """The section deleted; a sibling's title resembles the old one (80.0) but its text does not:
    the committed build says so. Without it the title alone decides (as for a nearest passage)."""
    before = PAGE.replace("## Build options", "## Proving the check works again")
    after = before.replace(f"## Prove the check works\n\n{CHECK}\n", "")
    root = project(tmp_path, capsys, monkeypatch, before, after)
    rc, plan = cli_json(capsys, "repair", "--root", root, "--dry-run")
    assert plan["applied"] == []
    (left,) = plan["left"]
    assert left["reason"] == ("the nearest heading (80.0) heads other text: its section keeps 42.7% of the "
                              "section's text at the last build, below 60")
    bare = project(tmp_path / "bare", capsys, monkeypatch, before, after, commit=False)
    rc, plan = cli_json(capsys, "repair", "--root", bare, "--dry-run")
    assert [f["new"]["heading"] for f in plan["applied"]] == ["Proving the check works again"]


ALIKE = PAGE.replace("## Build options", "## Prove the check worked")


def test_of_several_headings_alike_the_one_where_the_heading_stood_is_taken(tmp_path, capsys, monkeypatch):
    """Two titles score 80+ against the old one; the page's comparison puts the old heading line's
    words on one of them, the text around it beside: that one. Without the committed build it is
    not known: left."""
    after = ALIKE.replace("## Prove the check works", "## Prove the checks work")
    root = project(tmp_path, capsys, monkeypatch, ALIKE, after)
    rc, plan = cli_json(capsys, "repair", "--root", root, "--dry-run")
    assert [(f["new"]["heading"], f["score"]) for f in plan["applied"]] == [("Prove the checks work", 95.2)]
    bare = project(tmp_path / "bare", capsys, monkeypatch, ALIKE, after, commit=False)
    rc, plan = cli_json(capsys, "repair", "--root", bare, "--dry-run")
    assert [x["reason"] for x in plan["left"]] == [
        "2 headings score 80 or more and where the heading stood is not known: a person picks one"]


SIBLINGS = ("\n## Prove the checks work\n\nThe plural section holds a paragraph about lighthouses.\n"
            "\n## Prove the check worked\n\nThe past tense section is about orchards in autumn.\n"
            "\n## Proves the check works\n\nThe third look-alike talks of trams and tickets.\n")


def test_the_heading_where_it_stood_is_taken_when_look_alikes_fill_the_suggestions(tmp_path, capsys, monkeypatch):
    """A manual's headings differ by a command and share their markup: three siblings outscore
    the rewritten title (77.8) and fill the build's suggestions. The page's comparison puts the
    old heading line on it, its text kept: the heading where it stood, found beyond them."""
    before = PAGE + SIBLINGS
    after = before.replace("## Prove the check works", "## Prove that the check really works")
    root = project(tmp_path, capsys, monkeypatch, before, after)
    rc, report = cli_json(capsys, "build", "--check", "--root", root)
    assert "Prove that the check really works" not in [s["heading"] for s in report["errors"][0]["suggestions"]]
    rc, plan = cli_json(capsys, "repair", "--root", root, "--dry-run")
    assert [(f["new"]["heading"], f["score"], f["at_old_place"]) for f in plan["applied"]] == [
        ("Prove that the check really works", 77.8, True)]
    grown = before.replace("## Prove the check works", "## Prove that this new check really works")
    rc, plan = cli_json(capsys, "repair", "--root", project(tmp_path / "g", capsys, monkeypatch, before, grown),
                        "--dry-run", "--min-kept", "75")
    assert [x["reason"] for x in plan["left"]] == [
        "3 headings score 80 or more and where the heading stood, its title scores 71.2, below 75: a person picks one"]


def test_a_title_whose_words_moved_below_it_is_the_heading_where_it_stood(tmp_path, capsys, monkeypatch):
    """Poetry's settings: "`cache-dir`: string" became "`cache-dir`" over a "**Type**: `string`"
    line. The old heading line's words now run past the title line; the place begins on it."""
    before = PAGE.replace("## Prove the check works", "## `cache-dir`: string")
    after = PAGE.replace("## Prove the check works", "## `cache-dir`\n\n**Type**: `string`")
    root = project(tmp_path, capsys, monkeypatch, before, after, "`cache-dir`: string")
    rc, plan = cli_json(capsys, "repair", "--root", root, "--dry-run")
    assert [(f["new"]["heading"], f["score"], f["at_old_place"]) for f in plan["applied"]] == [
        ("`cache-dir`", 66.7, True)]


def test_a_heading_rewritten_where_it_stood_is_taken_at_min_kept(tmp_path, capsys, monkeypatch):
    """"Make sure the check works" scores 78.3, below 80: a nearest passage's bar. Where the
    heading stood, its section's text kept, it is the label's heading rewritten — taken at
    ``--min-kept``, as a quote's passage where it stood; not without the committed build, nor
    above ``--min-kept``."""
    after = PAGE.replace("## Prove the check works", "## Make sure the check works")
    root = project(tmp_path, capsys, monkeypatch, PAGE, after)
    rc, plan = cli_json(capsys, "repair", "--root", root, "--dry-run")
    assert [(f["new"]["heading"], f["score"], f["at_old_place"]) for f in plan["applied"]] == [
        ("Make sure the check works", 78.3, True)]
    rc, _, err = cli(capsys, "repair", "--root", root, "--dry-run")  # said how it was found: not by its title
    assert "r-1 locator 1: heading where it stood (78.3) page.md: # Make sure the check works" in " ".join(err.split())
    rc, out, _ = cli(capsys, "repair", "--root", root, "--dry-run", "--format", "markdown")
    assert "| heading where it stood\\, 78\\.3 |" in out
    rc, plan = cli_json(capsys, "repair", "--root", root, "--dry-run", "--min-kept", "80")
    assert [x["reason"] for x in plan["left"]] == [
        "the nearest heading scores 78.3, below 80, and below 80 where the heading stood"]
    bare = project(tmp_path / "bare", capsys, monkeypatch, PAGE, after, commit=False)
    rc, plan = cli_json(capsys, "repair", "--root", bare, "--dry-run")
    assert [x["reason"] for x in plan["left"]] == [
        "the nearest heading scores 78.3, below 80; where the heading stood is not known"]


NEW_BODY = "Run the build with one anchor changed by hand; the report lists that record and nothing else.\n"


@pytest.mark.parametrize("title, repaired", [("Prove that the check works", True),
                                             ("Make sure the check works", False)])
def test_a_section_rewritten_under_its_heading_where_it_stood(tmp_path, capsys, monkeypatch, title, repaired):
    """Title and body both rewritten in place. At ``--min-score`` the title where the heading
    stood is the label's heading, whatever its text became (a quote kept in a rewritten
    paragraph resolves as well); below it, the title and the text both changed say another
    section took its place ("Option 2. pretty-quick" → "Option 2. Husky.Net"): left."""
    after = PAGE.replace(f"## Prove the check works\n\n{CHECK}", f"## {title}\n\n{NEW_BODY}")
    root = project(tmp_path, capsys, monkeypatch, PAGE, after)
    rc, plan = cli_json(capsys, "repair", "--root", root, "--dry-run")
    if repaired:
        assert [f["new"]["heading"] for f in plan["applied"]] == [title]
    else:
        assert plan["applied"] == [] and [x["reason"] for x in plan["left"]] == [
            "the nearest heading (78.3) heads other text: its section keeps 47.7% of the section's text at the last "
            "build, below 60"]


@pytest.mark.parametrize("before, after, why", [
    # the heading deleted with its section: its words stand nowhere
    (ALIKE.replace("# First hour", "# First hour\n\n## Prove the checks work\n\nA sibling.\n"),
     ALIKE.replace("# First hour", "# First hour\n\n## Prove the checks work\n\nA sibling.\n").replace(
         f"## Prove the check works\n\n{CHECK}\n", ""), "the heading's words are gone from where it stood"),
    # the heading stayed, its title grown past the bar; a look-alike added elsewhere
    (ALIKE, ALIKE.replace("## Prove the check works",
                          "## Prove the check works nowhere near here at all, not even close by any measure") +
     "\n## Prove the checks work\n\nOther text.\n", "where the heading stood, its title scores 42.9, below 60"),
])
def test_several_headings_alike_where_the_heading_stood_says_nothing_are_left(tmp_path, capsys, monkeypatch,
                                                                              before, after, why):
    root = project(tmp_path, capsys, monkeypatch, before, after)
    rc, plan = cli_json(capsys, "repair", "--root", root, "--dry-run")
    assert plan["applied"] == []
    assert [x["reason"] for x in plan["left"]] == [f"2 headings score 80 or more and {why}: a person picks one"]


@pytest.mark.parametrize("after, reason", [
    (PAGE.replace("## Prove the check works", "## Prove the checks work").replace(
        "## Build options", "## Prove the checks work"), "the nearest heading (95.2) is not unique in page.md"),
    (PAGE.replace("## Prove the check works", "## Prove the build"),
     "the nearest heading scores 55.6, below 80, and below 60 where the heading stood"),
    (PAGE.replace("## Prove the check works", "## Gone"),
     "no nearest heading: no heading of page.md scores 50 or more against the title"),
])
def test_a_heading_repair_never_guesses(tmp_path, capsys, monkeypatch, after, reason):
    root = project(tmp_path, capsys, monkeypatch, PAGE, after)
    rc, plan = cli_json(capsys, "repair", "--root", root, "--dry-run")
    assert plan["applied"] == [] and [x["reason"] for x in plan["left"]] == [reason]


@pytest.mark.parametrize("title, score, how", [("Prove that the check works", 89.4, "nearest heading"),
                                               ("Make sure the check works", 78.3, "heading where it stood")])
@run_async
async def test_the_author_screen_offers_the_edited_heading_first_and_accepting_it_resolves(tmp_path, capsys,
                                                                                         monkeypatch, title, score,
                                                                                         how):
    """As ``repair`` ranks and names it: a title under 80 is offered first only where it stood,
    and says so."""
    root = project(tmp_path, capsys, monkeypatch, PAGE, PAGE.replace("## Prove the check works", f"## {title}"))
    async with on_refused_record(root) as (app, pilot):
        panel = app.screen.query_one(PreviewPanel)
        fix = panel._suggestions[0]["fix"]
        assert (fix.new.doc, fix.new.heading, fix.score) == ("page.md", title, score)
        assert app.screen.preview.offered.applied == fix  # what `labeller repair` applies
        shown = str(panel.query_one("#preview-suggestions").get_option_at_index(0).prompt.laid_out(200))
        assert shown.splitlines() == [f"1 {how} ({score}) page.md:3:1", "    was: # Prove the check works",
                                      f"    now: # {title}"]
        app.screen.query_one(DocumentView).focus()
        await pilot.press("1")
        await settle(pilot)
        assert app.screen.preview.status == "resolved"
        assert app.session.draft("r-1").locators[0].heading == title


def test_a_heading_edited_in_a_renamed_page_is_followed_there(tmp_path, capsys, monkeypatch):
    """The page renamed (git's pairing) and the heading edited in the same change: no move (the
    title is not there), the renamed file's nearest headings, and repair re-points to one."""
    root = project(tmp_path, capsys, monkeypatch, PAGE, PAGE)
    git(root, "mv", "corpus/page.md", "corpus/first-hour.md")
    (root / "corpus/first-hour.md").write_text(PAGE.replace("## Prove the check", "## Prove that the check"),
                                               encoding="utf-8")
    commit_all(root, "renamed")
    rc, report = cli_json(capsys, "build", "--check", "--root", root)
    (error,) = report["errors"]
    assert (error["kind"], error["renamed_to"]) == ("unknown_doc", "first-hour.md")
    assert [(s["doc"], s["heading"], s["score"]) for s in error["suggestions"]] == [
        ("first-hour.md", "Prove that the check works", 89.4)]
    rc, plan = cli_json(capsys, "repair", "--moves", "--root", root, "--dry-run")
    assert plan["applied"] == []  # the title changed: not a move
    rc, plan = cli_json(capsys, "repair", "--root", root)
    assert [f["new"] for f in plan["applied"]] == [{"doc": "first-hour.md", "heading": "Prove that the check works"}]
    assert cli_json(capsys, "build", "--root", root)[0] == 0


def test_setext_headings_closing_hashes_and_quoted_headings_are_suggested(tmp_path):
    """Titles are read from every line that may be a heading, as written, then confirmed by the
    parse: a setext title, an ATX title with closing ``#``s, one in a block quote; a ``#`` line
    inside a fence is no heading and is never suggested."""
    from labeller.config import load_config
    from labeller.core.heading_edits import nearest_headings
    from labeller.core.project import Project

    page = ("Prove that the check works\n==========================\n\nBody.\n\n## Prove the check worked ##\n\n"
            "> ### Prove the checks work\n\n```\n# Prove the check works!\n```\n")
    root = write_project(tmp_path / "p", {"page.md": page})
    found = nearest_headings(Project(load_config(root)).resolver, "page.md", TITLE, 50.0, 5)
    assert [(s["heading"], s["where"], s["unique"]) for s, _ in found] == [
        ("Prove the checks work", "page.md:8:1", True), ("Prove the check worked", "page.md:6:1", True),
        ("Prove that the check works", "page.md:1:1", True)]


def test_nearest_headings_share_the_build_s_bound(tmp_path):
    """A file of thousands of refused section locators: once the build's units for nearest
    passages are spent, a section locator is told so and scored against no title."""
    from labeller.config import load_config
    from labeller.core.models import Locator
    from labeller.core.project import Project
    from labeller.core.resolve import Refusal
    from labeller.core.suggest import NEAREST_SPENT, WorkBudget, suggest
    from labeller.core.vocab import RefusalKind

    root = write_project(tmp_path / "p", {"page.md": PAGE})
    resolver = Project(load_config(root)).resolver
    refusal = Refusal(RefusalKind.NOT_FOUND, "no heading", Locator(doc="page.md", heading="Prove the check"), "r-1")
    budget = WorkBudget(1000)
    assert suggest(resolver, refusal, budget).suggestions  # charged the titles' characters
    assert budget.nearest_left < WorkBudget(1000).nearest_left
    budget.spend_nearest(budget.nearest_left)
    spent = suggest(resolver, refusal, budget)
    assert spent.suggestions == [] and spent.message.endswith(NEAREST_SPENT)


def test_a_page_s_headings_are_not_kept_past_its_corpus(tmp_path):
    """The titles scored are read once a document and dropped with it: a corpus reloaded in a
    day-long app session leaves no page text alive behind it."""
    import gc
    import weakref

    from labeller.config import load_config
    from labeller.core.heading_edits import nearest_headings
    from labeller.core.project import Project

    root = write_project(tmp_path / "p", {"page.md": PAGE})
    project = Project(load_config(root))
    assert nearest_headings(project.resolver, "page.md", TITLE, 50.0, 5)
    page = weakref.ref(project.resolver.corpus["page.md"])
    del project
    gc.collect()
    assert page() is None


@pytest.mark.parametrize("written, score", [
    ("Prove the check works { #prove-the-check-works }", 100.0),  # FastAPI's, Material's `{ id="…" }` alike
    ("Prove the check works {#prove .steps}", 100.0),
    ("Prove the check works {again}", 85.7),  # braces that are no attribute list are words of the title
])
def test_an_attribute_list_is_no_part_of_a_title_s_likeness(tmp_path, capsys, monkeypatch, written, score):
    """A heading given an anchor (``{#id}``, ``{ id="…" }``) keeps its title: "Async Tests" →
    "Async Tests { #async-tests }" scored 58.5 and was left."""
    root = project(tmp_path, capsys, monkeypatch, PAGE, PAGE.replace("## Prove the check works", f"## {written}"),
                   commit=False)
    rc, report = cli_json(capsys, "build", "--check", "--root", root)
    assert [(s["heading"], s["score"]) for s in report["errors"][0]["suggestions"]] == [(written, score)]


def changelog(edited: range = range(0)) -> tuple[str, str]:
    """A changelog of 80 entries before and after every heading got an anchor (and the entries
    ``edited`` a reworded line)."""
    entries = [f"## 1.{i}.0 <small>May {i % 28 + 1}, 2020</small>\n\n- Fixed the {w} renderer for nested lists "
               f"in release {i}, and the search index of its pages.\n" for i, w in
               zip(range(80), "alpha beta gamma delta epsilon zeta eta theta".split() * 10)]
    after = [e.replace("</small>\n", f"</small> {{ id=\"1.{i}.0\" }}\n", 1) for i, e in enumerate(entries)]
    after = [e.replace("- Fixed", "- Fixes") if i in edited else e for i, e in enumerate(after)]
    return "# Changelog\n\n" + "\n".join(entries), "# Changelog\n\n" + "\n".join(after)


def test_a_heading_whose_neighbours_all_changed_is_compared_in_a_wider_window(tmp_path, capsys, monkeypatch):
    """Every line within a heading's window reworded (Homebrew's manual escaped every bracket at
    once): no unchanged line says where that window went, so a quote's window is used."""
    from labeller.core import old_place

    monkeypatch.setattr(old_place, "MAX_DIFF_TOKENS", 1_000)
    before, after = changelog(range(25, 56))
    root = project(tmp_path, capsys, monkeypatch, before, after, "1.40.0 <small>May 13, 2020</small>")
    rc, plan = cli_json(capsys, "repair", "--root", root, "--dry-run")
    assert [f["new"]["heading"] for f in plan["applied"]] == ['1.40.0 <small>May 13, 2020</small> { id="1.40.0" }']


def test_a_heading_in_a_long_page_is_compared_in_a_heading_s_window(tmp_path, capsys, monkeypatch):
    """A changelog whose every heading got an anchor: each section locator has several titles
    alike and needs where it stood; a long page is compared in a window per label, and a
    quote's (2,000 tokens a side) made 200 such labels spend the whole repair's budget. A
    heading's window is ``HEADING_REACH`` a side: the paragraphs around it."""
    from labeller.core import heading_edits, old_place

    monkeypatch.setattr(old_place, "MAX_DIFF_TOKENS", 1_000)  # the page is a long one
    before, after = changelog()
    costs: list[int] = []
    compare = old_place.OldPlaces._compare
    monkeypatch.setattr(old_place.OldPlaces, "_compare",
                        lambda self, a, b, *rest: costs.append(len(a) * len(b)) or compare(self, a, b, *rest))
    root = project(tmp_path, capsys, monkeypatch, before, after, "1.40.0 <small>May 13, 2020</small>")
    rc, plan = cli_json(capsys, "repair", "--root", root, "--dry-run")
    assert [f["new"]["heading"] for f in plan["applied"]] == ['1.40.0 <small>May 13, 2020</small> { id="1.40.0" }']
    reach = heading_edits.HEADING_REACH
    assert costs and max(costs) <= (2 * reach + 100) * (4 * reach + 200)  # a whole-page window: ~11 M
