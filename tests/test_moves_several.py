"""A renamed page that holds a label's quote several times: the build suggests no move (SPEC §13,
ambiguous) but counts the label in its pair's group, as ``repair --moves`` (which pins it where
it stood when it can tell) and the app count it; the build said 1 where the plan applied 2."""

from __future__ import annotations

import subprocess

import pytest

from conftest import q
from helpers_interop import cli, cli_json
from helpers_moves import AUTHORS, renamed_manifest

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")

QUESTIONS = [q("r-urls", {"doc": "docs/manifest.md", "quote": "Links shown on the package index."}),
             q("r-authors", {"doc": "docs/manifest.md", "quote": AUTHORS})]


@pytest.fixture
def root(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LABELLER_REVIEWER", "repair-bot")
    return renamed_manifest(tmp_path, capsys, QUESTIONS)


def test_the_build_counts_a_quote_its_new_page_holds_several_times_in_the_pair_s_group(root, capsys):
    rc, report = cli_json(capsys, "build", "--check", "--root", root)
    assert rc == 1
    (group,) = report["moves"]
    assert (group["from"], group["to"], group["labels"], group["records"], group["several"]) == (
        "docs/manifest.md", "manifest.md", 1, ["r-urls"], 1)
    authors = next(e for e in report["errors"] if e["id"] == "r-authors")
    assert authors["found_in"] == ["manifest.md"] and not any(s.get("kind") == "moved" for s in authors["suggestions"])
    rc, _, err = cli(capsys, "build", "--check", "--root", root)
    assert ("moved: 1 label(s) whose quote is verbatim in another document and 1 whose quote is in another document "
            "several times:") in " ".join(err.split())
    assert "docs/manifest.md → manifest.md: 1 label" in err and "; 1 more whose quote it holds several times" in err
    assert "a quote held several times is pinned by context where it stood" in " ".join(err.split())
    rc, out, _ = cli(capsys, "build", "--check", "--root", root, "--format", "markdown")
    assert "Moved (1 label(s), 1 whose quote is in another document several times; applied by `labeller repair " \
           "--moves`):" in out
    assert "\\; 1 more whose quote it holds several times" in out
    rc, plan = cli_json(capsys, "repair", "--moves", "--dry-run", "--root", root)
    assert rc == 0 and sorted(f["id"] for f in plan["applied"]) == ["r-authors", "r-urls"]  # the group's 1 + 1


def test_a_pair_of_labels_held_several_times_alone_is_a_group_of_its_own(root, capsys):
    lines = (root / "golden/questions.jsonl").read_text(encoding="utf-8").splitlines()
    (root / "golden/questions.jsonl").write_text("\n".join(l for l in lines if '"r-urls"' not in l) + "\n",
                                                 encoding="utf-8")
    rc, report = cli_json(capsys, "build", "--check", "--root", root)
    # no moved suggestion carries the pair's rename: the refusal does, and the group says it as any other
    assert report["moves"] == [{"from": "docs/manifest.md", "to": "manifest.md", "renamed": True,
                                "paired_by": "content", "labels": 0, "records": [], "several": 1}]
    (authors,) = report["errors"]
    assert (authors["renamed_to"], authors["paired_by"]) == ("manifest.md", "content")
    rc, _, err = cli(capsys, "build", "--check", "--root", root)
    assert "moved: 1 whose quote is in another document several times:" in err
    assert ("docs/manifest.md → manifest.md: 1 label whose quote it holds several times (renamed, paired by content)"
            in " ".join(err.split()))
    rc, out, _ = cli(capsys, "build", "--check", "--root", root, "--format", "markdown")
    assert "1 label whose quote it holds several times \\(renamed\\, paired by content\\)" in out
