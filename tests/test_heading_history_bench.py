"""The ground truth of ``benchmarks/heading_history.py``: where a labelled heading went, read from
a line comparison of the page, without labeller."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from heading_history import atx_headings, heading_truth  # noqa: E402

PAGE = ("# Guide\n\nIntro.\n\n## Prove the check works\n\nBreak it once and run the check.\nUndo it.\n\n"
        "## Options\n\nEvery option is listed.\n\n```\n## not a heading\n```\n")
LINE = 4  # "## Prove the check works"


@pytest.mark.parametrize("new, fate", [
    (PAGE, ("kept", "Prove the check works")),
    (PAGE.replace("## Prove the check", "## Prove that the check"), ("edited", "Prove that the check works")),
    # the hunk reshapes the headings (a new section before it): the body's lines say where it went
    (PAGE.replace("## Prove the check works", "## Setup\n\nInstall it.\n\n### Checking that it works"),
     ("edited", "Checking that it works")),
    (PAGE.replace("## Prove the check works\n\nBreak it once and run the check.\nUndo it.\n\n", ""), ("gone", None)),
    # moved below another section, its lines deleted here and inserted there
    (PAGE.replace("## Prove the check works\n\nBreak it once and run the check.\nUndo it.\n\n", "")
     + "\n## Prove the check works\n\nA new body.\n", ("moved_in_page", "Prove the check works")),
])
def test_the_truth_follows_a_heading_by_its_line_then_by_its_body(new, fate):
    assert heading_truth(PAGE, new, LINE) == fate


def test_a_hash_line_in_a_fence_is_no_heading():
    assert sorted(t for _, t in atx_headings(PAGE.split("\n")).values()) == ["Guide", "Options",
                                                                            "Prove the check works"]


def test_a_title_that_now_heads_other_text_is_edited_to_where_its_body_went():
    """A section inserted above takes the old title; the old section, retitled, keeps its body:
    a label still resolving to the title would be a silent move, and the truth says so."""
    new = PAGE.replace("## Prove the check works\n\n", "## Prove the check works\n\nA new section.\n\n"
                       "## Checking by hand\n\n")
    assert heading_truth(PAGE, new, LINE) == ("edited", "Checking by hand")


def test_a_page_git_does_not_pair_is_followed_by_its_lines():
    from heading_history import successor

    old = {"docs/cli.md": PAGE, "docs/faq.md": "# FAQ\n\nNothing here.\n"}
    new = {"cli.md": PAGE.replace("Intro.", "An introduction."), "docs/faq.md": old["docs/faq.md"],
           "other.md": "# Other\n\nUndo it.\n"}
    assert successor("docs/cli.md", old, new, {}) == "cli.md"
    assert successor("docs/cli.md", old, new, {"docs/cli.md": "x.md"}) == "x.md"  # git's pairing first
    assert successor("docs/cli.md", old, {"docs/faq.md": old["docs/faq.md"], "other.md": new["other.md"]}, {}) \
        is None  # 1 of its 7 lines: below 30%


def test_a_sub_section_inserted_into_it_leaves_the_section_its_own():
    new = PAGE.replace("Break it once and run the check.\n", "Break it once and run the check.\n\n### By hand\n\n")
    assert heading_truth(PAGE, new, LINE) == ("kept", "Prove the check works")


def test_a_page_whose_headings_shift_a_level_keeps_its_sections():
    """Its line changed (``##`` → ``#``), its title and body did not: the section is still its own."""
    new = PAGE.replace("## ", "# ").replace("# Guide", "Guide\n=====")
    assert heading_truth(PAGE, new, LINE) == ("moved_in_page", "Prove the check works")
