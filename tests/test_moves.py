"""Moved suggestions (SPEC §13): a refused quote found verbatim in one other document, git's
rename pairing since the last build (the content's without git), grouped in every report."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import q, write_project
from helpers_interop import cli, cli_json
from helpers_moves import MOVED_IDS, commit_all, git, reorganised

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")


def errors_by_id(report: dict) -> dict[str, dict]:
    return {e["id"]: e for e in report["errors"]}


def test_renamed_and_moved_labels_get_moved_suggestions_and_the_build_still_refuses(tmp_path, capsys):
    root = reorganised(tmp_path, capsys)
    artifact = (root / "golden/golden-set.v1.jsonl").read_bytes()
    rc, report = cli_json(capsys, "build", "--root", root)
    assert rc == 1 and report["ok"] is False
    assert (root / "golden/golden-set.v1.jsonl").read_bytes() == artifact  # nothing re-pointed, nothing written
    errors = errors_by_id(report)
    assert errors["r-fox"]["suggestions"] == [{"kind": "moved", "from": "ch01.md", "doc": "ch02.md",
                                               "quote": "quick brown fox", "where": "ch02.md:3:5", "unique": True,
                                               "renamed": True, "paired_by": "git"}]
    cat = errors["r-cat"]["suggestions"][0]  # the context travels with the quote
    assert (cat["kind"], cat["doc"], cat["suffix"]) == ("moved", "ch02.md", " and their")
    cache = errors["r-cache"]["suggestions"][0]  # a paragraph moved between two documents that both exist
    assert (cache["kind"], cache["from"], cache["doc"], cache["renamed"]) == ("moved", "guide.md", "faq.md", False)
    assert "paired_by" not in cache
    moved = sorted(rid for rid, e in errors.items() if any(s.get("kind") == "moved" for s in e["suggestions"]))
    assert moved == sorted(MOVED_IDS)
    # the refusal itself says where its gone page went, whatever is suggested (a bot reads it without a move)
    assert {rid: (e.get("renamed_to"), e.get("paired_by")) for rid, e in errors.items()} == {
        "r-fox": ("ch02.md", "git"), "r-cat": ("ch02.md", "git"), "r-sleep": ("ch02.md", "git"),
        "r-cache": (None, None), "r-run": (None, None), "r-note": (None, None)}


def test_a_refusal_s_rename_survives_the_build_cache_s_codec():
    """What ``to_data`` writes comes back equal, and a rename of the wrong shape is a miss."""
    from labeller.core.cache import BadEntry
    from labeller.core.models import Locator
    from labeller.core.resolve import Refusal
    from labeller.core.vocab import RefusalKind

    refusal = Refusal(RefusalKind.UNKNOWN_DOC, "gone", Locator(doc="ch01.md", quote="fox"), "r-fox",
                      renamed_to=("ch02.md", "git"))
    data = json.loads(json.dumps(refusal.to_data()))
    assert Refusal.from_data(data) == refusal
    assert Refusal.from_data({**data, "renamed_to": None}).renamed_to is None
    for bad in (["ch02.md"], ["ch02.md", "git", "x"], ["ch02.md", 1], "ch02.md"):
        with pytest.raises(BadEntry):
            Refusal.from_data({**data, "renamed_to": bad})


def test_a_deleted_paragraph_gets_no_move(tmp_path, capsys):
    root = reorganised(tmp_path, capsys)
    _, report = cli_json(capsys, "build", "--root", root)
    run = errors_by_id(report)["r-run"]
    assert run["kind"] == "not_found" and run["suggestions"] == [] and "found_in" not in run


def test_a_quote_in_several_other_documents_is_ambiguous_and_lists_them(tmp_path, capsys):
    root = reorganised(tmp_path, capsys)
    _, report = cli_json(capsys, "build", "--root", root)
    note = errors_by_id(report)["r-note"]
    assert note["kind"] == "unknown_doc" and note["suggestions"] == []
    assert note["found_in"] == ["faq.md", "guide.md"]
    assert "ambiguous" in note["message"] and "faq.md, guide.md" in note["message"]


def test_an_edited_quote_in_a_renamed_file_gets_nearest_passages_there(tmp_path, capsys):
    root = reorganised(tmp_path, capsys)
    _, report = cli_json(capsys, "build", "--root", root)
    sleep = errors_by_id(report)["r-sleep"]
    assert "renamed to ch02.md (git's pairing)" in sleep["message"]
    assert sleep["suggestions"] and all(s["doc"] == "ch02.md" and "score" in s for s in sleep["suggestions"])


def test_moves_are_grouped_per_pair_of_documents_in_json_text_and_markdown(tmp_path, capsys):
    root = reorganised(tmp_path, capsys)
    _, report = cli_json(capsys, "build", "--root", root)
    assert report["moves"] == [
        {"from": "ch01.md", "to": "ch02.md", "renamed": True, "paired_by": "git", "labels": 2,
         "records": ["r-fox", "r-cat"], "several": 0},
        {"from": "guide.md", "to": "faq.md", "renamed": False, "labels": 1, "records": ["r-cache"], "several": 0}]
    rc, _, err = cli(capsys, "build", "--root", root)
    assert rc == 1
    assert "ch01.md → ch02.md: 2 labels (renamed, paired by git)" in err
    assert "guide.md → faq.md: 1 label" in err
    rc, out, _ = cli(capsys, "build", "--check", "--root", root, "--format", "markdown")
    assert rc == 1
    assert "- ch01\\.md → ch02\\.md\\: 2 labels \\(renamed\\, paired by git\\)" in out
    assert "moved to faq\\.md\\:5\\:5" in out


def test_without_git_the_content_pairs_the_renamed_file(tmp_path, capsys):
    root = reorganised(tmp_path, capsys, use_git=False)
    _, report = cli_json(capsys, "build", "--root", root)
    errors = errors_by_id(report)
    assert errors["r-fox"]["suggestions"][0]["paired_by"] == "content"
    assert report["moves"][0] | {"records": []} == {"from": "ch01.md", "to": "ch02.md", "renamed": True,
                                                    "paired_by": "content", "labels": 2, "records": [],
                                                    "several": 0}
    assert errors["r-note"]["found_in"] == ["faq.md", "guide.md"]  # verbatim search needs no git


def test_git_pairs_a_renamed_file_whose_every_labelled_quote_was_edited(tmp_path, capsys):
    """No quote survives, so only git knows where the file went; without git nothing is paired."""
    text = ("# Setup\n\nInstall the package with pip before the first run of the tool.\n\n"
            + "".join(f"Paragraph {i} of the setup page says something else.\n\n" for i in range(8)))
    for use_git in (True, False):
        root = write_project(tmp_path / f"p{use_git}", {"setup.md": text, "other.md": "# Other\n\nUnrelated.\n"},
                             [q("r1", {"doc": "setup.md", "quote": "Install the package with pip before the first run"})])
        assert cli(capsys, "build", "--root", root)[0] == 0
        if use_git:
            git(root, "init", "-q")
            git(root, "-c", "user.email=t@e", "-c", "user.name=t", "add", "-A")
            git(root, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", "built")
        (root / "corpus/setup.md").unlink()
        (root / "corpus/install.md").write_text(text.replace("before the first", "before a first"), encoding="utf-8")
        if use_git:
            git(root, "-c", "user.email=t@e", "-c", "user.name=t", "add", "-A")
            git(root, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", "renamed")
        _, report = cli_json(capsys, "build", "--root", root)
        r1 = errors_by_id(report)["r1"]
        if use_git:
            assert "renamed to install.md (git's pairing)" in r1["message"]
            assert r1["suggestions"] and r1["suggestions"][0]["doc"] == "install.md"
        else:  # nothing paired: the nearest passage is looked for in the whole corpus, and found
            assert "renamed" not in r1["message"] and "no document is paired with it" in r1["message"]
            assert r1["suggestions"][0]["doc"] == "install.md" and not r1["suggestions"][0].get("renamed")
            assert all(sug["anywhere"] for sug in r1["suggestions"])  # for a person to pick: repair applies none
            rc, plan = cli_json(capsys, "repair", "--root", root)
            assert rc == 1 and not plan["applied"]
            assert "no document is paired with it: a nearest passage from the whole corpus is for a person" in \
                plan["left"][0]["reason"]


def test_git_runs_nothing_the_repository_configures(tmp_path, capsys):
    root = reorganised(tmp_path, capsys)
    canary = tmp_path / "ran"
    for key in ("core.fsmonitor", "core.pager", "diff.external", "gpg.program"):
        git(root, "config", key, f"touch {canary}")
    git(root, "config", "log.showSignature", "true")
    rc, report = cli_json(capsys, "build", "--root", root)
    assert rc == 1 and errors_by_id(report)["r-fox"]["suggestions"][0]["paired_by"] == "git"
    assert not canary.exists()


def test_every_refused_quote_is_searched_in_one_pass(tmp_path, capsys, monkeypatch):
    """One multi-pattern search for all the refused locators, never one scan per quote."""
    from labeller.config import load_config
    from labeller.core.anchors import QuoteIndex
    from labeller.core.build import build
    from labeller.core.context import locator_needles
    from labeller.core.project import Project

    root = reorganised(tmp_path, capsys)
    project = Project(load_config(root))
    questions = project.load_questions().questions
    project.resolver  # noqa: B018 - the build's own search is not what is counted
    calls = []
    real = QuoteIndex.find_all
    monkeypatch.setattr(QuoteIndex, "find_all", lambda self, quotes, doc_id=None: calls.append(len(quotes)) or
                        real(self, quotes, doc_id))
    result = build(project, questions)
    assert not result.ok
    every = locator_needles(loc for question in questions for loc in question.locators)
    refused = locator_needles(r.locator for r in result.refusals)
    assert calls == [len(every), len(refused)]  # the build's search, then the moves' one


def test_moved_suggestions_survive_the_build_cache(tmp_path, capsys):
    """The cached build keeps bare refusals; the moves are found again on every refused build."""
    root = reorganised(tmp_path, capsys)
    first = cli_json(capsys, "build", "--root", root)[1]
    second = cli_json(capsys, "build", "--root", root)[1]
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def test_section_and_document_locators_move_along_a_rename(tmp_path, capsys):
    """No quote to search: a renamed document takes its section and whole-document labels along."""
    text = "# Setup\n\nInstall it.\n\n## Upgrade\n\nRun the upgrade.\n"
    root = write_project(tmp_path / "proj", {"setup.md": text, "other.md": "# Other\n\nUnrelated.\n"},
                         [q("r-sec", {"doc": "setup.md", "heading": "Upgrade"}), q("r-doc", {"doc": "setup.md"}),
                          q("r-q", {"doc": "setup.md", "quote": "Install it."})])
    assert cli(capsys, "build", "--root", root)[0] == 0
    (root / "corpus/setup.md").rename(root / "corpus/install.md")  # no git: the same sha256 pairs them
    _, report = cli_json(capsys, "build", "--root", root)
    errors = errors_by_id(report)
    assert errors["r-sec"]["suggestions"] == [{"kind": "moved", "from": "setup.md", "doc": "install.md",
                                               "heading": "Upgrade", "where": "install.md:5:1", "unique": True,
                                               "renamed": True, "paired_by": "content"}]
    assert errors["r-doc"]["suggestions"][0]["doc"] == "install.md"
    assert report["moves"][0]["labels"] == 3
    rc, repaired = cli_json(capsys, "repair", "--moves", "--root", root, "--as", "t")
    assert rc == 0 and repaired["summary"]["moved"] == 3
    assert cli(capsys, "build", "--root", root)[0] == 0


# A chapter renumbered and reworded on every line (the Rust book's chapters by 2026): git's
# line similarity no longer pairs the files, most of the text's three-word sequences still stand.
TOPICS = ["matching nested enums", "binding values with at", "ignoring values with underscores",
          "match guards and conditions", "destructuring nested structs", "ranges of values in patterns",
          "refutable and irrefutable forms", "literals and named variables"]
CHAPTER = "# Patterns\n\n" + "".join(
    f"Section {i} covers {topic}; the code in Listing 18-{i} shows how the compiler checks each arm for you.\n\n"
    for i, topic in enumerate(TOPICS, 1))
RENUMBERED = CHAPTER.replace("Listing 18-", "Listing 19-").replace("shows how", "shows you how")


def renumbered_project(tmp_path, capsys, after: dict[str, str], quote: str = "the code in Listing 18-3 shows how"):
    """A committed build labelling ``quote`` in ch18.md, then ch18.md gone and ``after`` added, committed."""
    root = write_project(tmp_path / "proj", {"ch18.md": CHAPTER, "other.md": "# Other\n\nUnrelated text here.\n"},
                         [q("r1", {"doc": "ch18.md", "quote": quote})])
    assert cli(capsys, "build", "--root", root)[0] == 0
    git(root, "init", "-q")
    git(root, "-c", "user.email=t@e", "-c", "user.name=t", "add", "-A")
    git(root, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", "built")
    (root / "corpus/ch18.md").unlink()
    for name, text in after.items():
        (root / "corpus" / name).write_text(text, encoding="utf-8")
    git(root, "-c", "user.email=t@e", "-c", "user.name=t", "add", "-A")
    git(root, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", "renumbered")
    return root


def test_a_renamed_file_git_no_longer_pairs_is_paired_by_its_text_and_its_edited_label_repaired(tmp_path, capsys,
                                                                                                monkeypatch):
    monkeypatch.setenv("LABELLER_REVIEWER", "t")
    root = renumbered_project(tmp_path, capsys, {"ch19.md": RENUMBERED})
    renamed = git(root, "diff-tree", "-r", "-M", "--name-status", "HEAD~1", "HEAD")
    assert "R" not in {line[:1] for line in renamed.splitlines()}  # git does not pair them
    _, report = cli_json(capsys, "build", "--root", root)
    r1 = errors_by_id(report)["r1"]
    assert r1["kind"] == "unknown_doc" and "renamed to ch19.md (content's pairing)" in r1["message"]
    rc, repaired = cli_json(capsys, "repair", "--min-score", "80", "--root", root)
    assert rc == 0, repaired["left"]
    (fix,) = repaired["applied"]
    assert fix["new"] == {"doc": "ch19.md", "quote": "the code in Listing 19-3 shows you how"} and fix["at_old_place"]


def test_a_file_split_in_two_is_paired_with_neither(tmp_path, capsys):
    """Half of the chapter in each new file: neither holds most of it, so no rename is said; the
    edited label's nearest passages come from the whole corpus."""
    paragraphs = RENUMBERED.split("\n\n")[1:]
    root = renumbered_project(tmp_path, capsys, {"ch19a.md": "# Part one\n\n" + "\n\n".join(paragraphs[:4]),
                                                 "ch19b.md": "# Part two\n\n" + "\n\n".join(paragraphs[4:])})
    _, report = cli_json(capsys, "build", "--root", root)
    r1 = errors_by_id(report)["r1"]
    assert "renamed" not in r1["message"] and "no document is paired with it" in r1["message"]
    assert {sug["doc"] for sug in r1["suggestions"]} <= {"ch19a.md", "ch19b.md"}


def test_the_text_pairs_a_gone_page_with_one_new_page_only_when_that_is_clear():
    from labeller.core.renames import MAX_HOLDERS, similar_pairs

    first, second = CHAPTER, CHAPTER.replace("Section", "Part").replace("covers", "explains")
    assert similar_pairs({"ch18.md": CHAPTER}, {"ch19.md": RENUMBERED, "other.md": "# Other\n\nUnrelated.\n"}) == \
        {"ch18.md": "ch19.md"}
    # two gone pages merged into one: it holds more of the first, which alone is paired with it
    merged = RENUMBERED + "\n" + "\n\n".join(second.split("\n\n")[1:4]) + "\n"
    assert similar_pairs({"a.md": first, "b.md": second}, {"merged.md": merged}) == {"a.md": "merged.md"}
    # the page copied into many new ones: its sequences say nothing of where it went
    copies = {f"copy{i}.md": RENUMBERED for i in range(MAX_HOLDERS + 1)}
    assert similar_pairs({"ch18.md": CHAPTER}, copies) == {}
    assert similar_pairs({"ch18.md": CHAPTER}, dict(list(copies.items())[:2])) == {}  # two equal candidates


def test_a_new_page_paired_is_no_rival_for_the_others():
    """Two pages moved at once, the new main page quoting half of the side page: the side page's
    lead over it is short of ``MIN_LEAD`` until the main page is paired with it (Material for
    MkDocs' ``changelog/insiders.md`` → ``insiders/changelog.md``, ``changelog.md`` →
    ``changelog/index.md``)."""
    from labeller.core.renames import similar_pairs

    side = [f"Release {i} fixed the {w} renderer for nested {v} lists." for i, w, v in
            zip(range(30), "alpha beta gamma delta epsilon zeta eta theta iota kappa".split() * 3,
                "red green blue cyan magenta yellow".split() * 5)]
    main = [f"Version {i} changed how the {w} theme loads its {v} assets." for i, w, v in
            zip(range(90), "one two three four five six seven eight nine".split() * 10,
                "font icon script style".split() * 23)]
    gone = {"changelog.md": "\n\n".join(main), "changelog/insiders.md": "\n\n".join(side)}
    added = {"changelog/index.md": "\n\n".join(main + side[:14]), "insiders/changelog.md": "\n\n".join(side)}
    assert similar_pairs(gone, added) == {"changelog.md": "changelog/index.md",
                                          "changelog/insiders.md": "insiders/changelog.md"}


# A reference page merged into another (Material's ``reference/abbreviations.md`` into ``tooltips.md``):
# nothing pairs the gone page, and its section titles now head sections of the page it went into.
ABBR = ("# Abbreviations\n\nTechnical terms get a tooltip.\n\n## Adding abbreviations\n\nAbbreviations are "
        "defined with a special syntax at the end of the page, one per line, and every use shows the long "
        "form on hover.\n\n## Usage\n\nWrite the term; the tooltip follows.\n")
TOOLTIPS = "# Tooltips\n\nHover text for links and images, set with a title attribute on each element.\n"
MERGED = (TOOLTIPS + "\n## Adding abbreviations\n\nAbbreviations are defined with a special syntax at the end of "
          "the page, one per line, and every use shows the long form on hover.\n\n## Usage\n\nSet a title on the "
          "link and the browser shows it as the tooltip on hover.\n")


def merged_project(tmp_path, capsys, after: dict[str, str]):
    """A committed build labelling two sections of abbr.md; then abbr.md gone and ``after`` written, committed."""
    root = write_project(tmp_path / "proj", {"abbr.md": ABBR, "tooltips.md": TOOLTIPS,
                                             "other.md": "# Other\n\n## Usage\n\nSomething else entirely.\n"},
                         [q("r-add", {"doc": "abbr.md", "heading": "Adding abbreviations"}, query="how to add?"),
                          q("r-use", {"doc": "abbr.md", "heading": "Usage"}, query="how to use?")])
    assert cli(capsys, "build", "--root", root)[0] == 0
    commit_all(root, "built")
    (root / "corpus/abbr.md").unlink()
    for name, text in after.items():
        (root / "corpus" / name).write_text(text, encoding="utf-8")
    commit_all(root, "merged")
    return root


def test_a_gone_page_s_section_moves_where_its_title_heads_one_section_and_its_text_went(tmp_path, capsys,
                                                                                      monkeypatch):
    monkeypatch.setenv("LABELLER_REVIEWER", "t")
    root = merged_project(tmp_path, capsys, {"tooltips.md": MERGED})
    _, report = cli_json(capsys, "build", "--root", root)
    errors = errors_by_id(report)
    add = errors["r-add"]
    assert add["suggestions"][0] == {"kind": "moved", "from": "abbr.md", "doc": "tooltips.md", "unique": True,
                                     "heading": "Adding abbreviations", "where": "tooltips.md:5:1", "renamed": False}
    assert "its title heads a section of tooltips.md alone: a moved suggestion" in add["message"]
    # "Usage" heads a section of other.md too: a person picks one
    assert not errors["r-use"]["suggestions"]
    assert "its title heads a section in 2 other documents (other.md, tooltips.md)" in errors["r-use"]["message"]
    rc, repaired = cli_json(capsys, "repair", "--moves", "--root", root)
    assert rc == 1 and [f["new"] for f in repaired["applied"]] == [{"doc": "tooltips.md",
                                                                    "heading": "Adding abbreviations"}]
    assert [left["id"] for left in repaired["left"]] == ["r-use"]


def test_a_gone_page_s_title_alone_over_other_text_is_left(tmp_path, capsys, monkeypatch):
    """"Usage" now heads one section elsewhere, over other text: a title is no evidence alone."""
    monkeypatch.setenv("LABELLER_REVIEWER", "t")
    root = merged_project(tmp_path, capsys, {"tooltips.md": MERGED, "other.md": "# Other\n\nSomething else.\n"})
    _, report = cli_json(capsys, "build", "--root", root)
    assert errors_by_id(report)["r-use"]["suggestions"][0]["doc"] == "tooltips.md"
    rc, repaired = cli_json(capsys, "repair", "--moves", "--root", root)
    assert rc == 1 and [f["id"] for f in repaired["applied"]] == ["r-add"]
    (left,) = repaired["left"]
    assert left["id"] == "r-use" and left["reason"] == ("its title heads a section of tooltips.md alone, and that "
                                                        "section keeps 50.5% of the section's text at the last "
                                                        "build, below 60")


def test_without_the_old_text_a_gone_page_s_section_move_is_for_a_person(tmp_path, capsys, monkeypatch):
    """No git: the gone page's text at the last build cannot be had, so nothing vouches for the section."""
    monkeypatch.setenv("LABELLER_REVIEWER", "t")
    root = write_project(tmp_path / "proj", {"abbr.md": ABBR, "tooltips.md": TOOLTIPS},
                         [q("r-add", {"doc": "abbr.md", "heading": "Adding abbreviations"}, query="how to add?")])
    assert cli(capsys, "build", "--root", root)[0] == 0
    (root / "corpus/abbr.md").unlink()
    (root / "corpus/tooltips.md").write_text(MERGED, encoding="utf-8")
    _, report = cli_json(capsys, "build", "--root", root)
    assert errors_by_id(report)["r-add"]["suggestions"][0]["doc"] == "tooltips.md"
    rc, repaired = cli_json(capsys, "repair", "--moves", "--root", root)
    assert rc == 1 and not repaired["applied"]
    assert repaired["left"][0]["reason"] == ("its title heads a section of tooltips.md alone, and the section's "
                                             "text at the last build is not known: a person checks it")


def test_gone_sections_are_looked_up_once_per_title_and_page_within_a_budget(tmp_path, capsys, monkeypatch):
    """Many labels of one gone section cost one lookup per page holding its title; past the build's
    budget of lookups a gone section is not looked for, and says so."""
    from labeller.core import moves

    root = merged_project(tmp_path, capsys, {"tooltips.md": MERGED})
    lines = (root / "golden/questions.jsonl").read_text(encoding="utf-8").splitlines()
    extra = [json.dumps(q(f"r-add{i}", {"doc": "abbr.md", "heading": "Adding abbreviations"}, query=f"add {i}?"))
             for i in range(30)]
    (root / "golden/questions.jsonl").write_text("\n".join([*lines, *extra]) + "\n", encoding="utf-8")
    from labeller.core.resolve import Resolver

    looked = []
    real = Resolver.resolve

    def resolve(self, loc, *args, **kwargs):
        if loc.heading is not None and loc.doc != "abbr.md":  # a gone section looked for elsewhere
            looked.append((loc.heading, loc.doc))
        return real(self, loc, *args, **kwargs)

    monkeypatch.setattr(Resolver, "resolve", resolve)
    errors = errors_by_id(cli_json(capsys, "build", "--root", root)[1])
    assert all(errors[f"r-add{i}"]["suggestions"][0]["doc"] == "tooltips.md" for i in range(30))
    assert sorted(looked) == [("Adding abbreviations", "tooltips.md"), ("Usage", "other.md"), ("Usage", "tooltips.md")]
    monkeypatch.setattr(moves, "MAX_SECTION_LOOKUPS", 2)
    errors = errors_by_id(cli_json(capsys, "build", "--root", root)[1])
    assert errors["r-add"]["suggestions"][0]["doc"] == "tooltips.md"  # one lookup: within the budget
    assert not errors["r-use"]["suggestions"]
    assert "the build's budget for looking for gone sections by title is spent" in errors["r-use"]["message"]
