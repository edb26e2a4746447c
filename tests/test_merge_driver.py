"""The git merge driver (SPEC §12): every rule on small files, properties over random ones, and
real ``git merge`` runs with and without the driver configured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from labeller.cli import main
from labeller.core.merge3 import merge, merge_bytes, read_side
from tests.conftest import REPO


def rec(id: str, query: str = "", **extra) -> str:
    return json.dumps({"id": id, "query": query or f"question {id}?", **extra})


def text(*lines: str) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


def merged(base: bytes, ours: bytes, theirs: bytes):
    return merge_bytes(base, ours, theirs, names=("base", "ours", "theirs"))


A, B, C, D = rec("a"), rec("b"), rec("c"), rec("d")
A2, A3 = rec("a", "question a, reworded?"), rec("a", "question a, reworded differently?")


# -- every rule of §12 -----------------------------------------------------------------------------


def test_additions_on_both_sides_kept_in_base_then_ours_then_theirs_order():
    m = merged(text(A, B), text(A, B, C), text(A, B, D))
    assert m.text == text(A, B, C, D).decode() and m.conflicts == []


def test_a_record_changed_on_one_side_takes_that_side():
    assert merged(text(A, B), text(A2, B), text(A, B)).text == text(A2, B).decode()
    assert merged(text(A, B), text(A, B), text(A2, B)).text == text(A2, B).decode()


def test_changed_on_both_sides_to_the_same_bytes_is_kept_once():
    m = merged(text(A, B), text(A2, B), text(A2, B, C))
    assert m.text == text(A2, B, C).decode() and m.conflicts == []


def test_changed_differently_is_a_conflict_between_git_markers_named_by_id():
    m = merged(text(A, B), text(A2, B), text(A3, B))
    assert m.conflicts == ['id "a"']
    assert m.text == text('<<<<<<< ours id "a"', A2, "=======", A3, '>>>>>>> theirs id "a"', B).decode()


def test_removed_on_one_side_and_unchanged_on_the_other_is_removed():
    assert merged(text(A, B), text(B), text(A, B, C)).text == text(B, C).decode()
    assert merged(text(A, B), text(A, B), text(A)).text == text(A).decode()


def test_removed_on_one_side_and_changed_on_the_other_is_a_conflict():
    m = merged(text(A, B), text(B), text(A2, B))
    assert m.conflicts == ['id "a"']
    assert m.text == text('<<<<<<< ours id "a"', "=======", A2, '>>>>>>> theirs id "a"', B).decode()


def test_added_on_both_sides_differently_is_a_conflict():
    assert merged(text(A), text(A, rec("n", "one")), text(A, rec("n", "two"))).conflicts == ['id "n"']


def test_base_records_keep_base_order_even_when_a_side_reordered_them():
    assert merged(text(A, B, C), text(C, B, A), text(A, B, C)).text == text(A, B, C).decode()


def test_comments_and_header_are_kept_from_ours_with_the_record_they_precede():
    base = text("// header", A, B)
    ours = text("// header, edited", A, "// about c", C, "", "// trailer")
    theirs = text("// header", A, B, D)
    m = merged(base, ours, theirs)
    # b was removed by ours (theirs left it alone); c and d are additions.
    assert m.text == text("// header, edited", A, "// about c", C, D, "", "// trailer").decode()
    assert not m.theirs_comments_differ


def test_comments_of_a_record_the_merge_removes_stay_with_the_next_record():
    m = merged(text(A, B), text(A, "// about b", B), text(A))
    assert m.text == text(A, "// about b").decode()


def test_their_comment_edits_are_reported_not_merged():
    m = merged(text("// h", A), text("// h", A), text("// h2", A, B))
    assert m.text == text("// h", A, B).decode() and m.theirs_comments_differ
    assert not merged(text("// h", A), text("// h2", A), text("// h2", A, B)).theirs_comments_differ  # none lost


def test_identical_sides_are_still_checked(tmp_path):
    paths = write3(tmp_path, text(A), b"\xff\n", b"\xff\n")
    assert main(["merge-driver", *map(str, paths)]) == 2
    assert paths[1].read_bytes() == b"\xff\n"


def test_crlf_bom_and_a_missing_final_newline_of_ours_are_kept():
    ours = ("\ufeff" + A + "\r\n" + B).encode()
    m = merged(text(A, B), ours, text(A, B))
    assert m.text == "\ufeff" + A + "\r\n" + B


def test_review_log_entries_are_keyed_by_the_whole_line_and_unioned_in_order():
    def review(rid: str, who: str) -> str:
        return json.dumps({"record_id": rid, "record_digest": "0" * 64, "reviewer": who, "decision": "accept",
                           "comment": "", "timestamp": "2026-01-01T00:00:00Z"})
    r1, r2, r3 = review("a", "ann"), review("b", "bob"), review("c", "cy")
    m = merged(text(r1), text(r1, r2), text(r1, r3, r1))  # an entry repeated verbatim is a second entry
    assert m.text == text(r1, r2, r3, r1).decode() and m.conflicts == []


def test_judgments_are_keyed_by_question_judge_and_locator():
    def judgment(relevant: bool, judge: str = "ann", **note: str) -> str:
        return json.dumps({"query_id": "q1", "doc": "d.md", "quote": "x", "relevant": relevant, "judge": judge, **note})
    base = text(judgment(True))
    m = merged(base, text(judgment(False)), text(judgment(True), judgment(True, "bob")))
    assert m.text == text(judgment(False), judgment(True, "bob")).decode()  # re-judged by ours, bob's added
    conflict = merged(base, text(judgment(False)), text(judgment(True, note="n")))
    assert conflict.conflicts == ['judgment query_id "q1" judge "ann"']


# -- bad input: exit 2, ours untouched ------------------------------------------------------------


def write3(tmp_path: Path, base: bytes, ours: bytes, theirs: bytes) -> list[Path]:
    paths = [tmp_path / n for n in ("base", "ours", "theirs")]
    for path, data in zip(paths, (base, ours, theirs)):
        path.write_bytes(data)
    return paths


def test_cli_writes_ours_and_exits_0_or_1(tmp_path, capsys):
    paths = write3(tmp_path, text(A), text(A, B), text(A, C))
    assert main(["merge-driver", *map(str, paths)]) == 0
    assert paths[1].read_bytes() == text(A, B, C)
    paths = write3(tmp_path, text(A), text(A2), text(A3))
    assert main(["merge-driver", *map(str, paths)]) == 1
    assert b'<<<<<<< ours id "a"' in paths[1].read_bytes()
    assert 'id "a"' in capsys.readouterr().err


def test_malformed_line_or_duplicate_id_exits_2_and_leaves_ours_untouched(tmp_path, capsys):
    for base, ours, theirs, why in ((text(A), text(A, "{not json"), text(A), "ours:2"),
                                    (text(A), text(A), text(A, B, A2), "duplicate record"),
                                    (text(A), text(A, "[1, 2]"), text(A), "JSON object"),
                                    (text(A), text(A, '{"query": "no id"}'), text(A), "no record id")):
        paths = write3(tmp_path, base, ours, theirs)
        assert main(["merge-driver", *map(str, paths)]) == 2
        assert paths[1].read_bytes() == ours
        assert why in capsys.readouterr().err


# -- properties -------------------------------------------------------------------------------------

ids = st.sampled_from("abcdefgh")
files = st.lists(st.tuples(ids, st.sampled_from(["x", "y", "z"])), max_size=8, unique_by=lambda t: t[0]).map(
    lambda recs: text(*(rec(i, q) for i, q in recs)))


@settings(max_examples=200, deadline=None)
@given(files, files)
def test_merging_identical_sides_is_the_identity(base, side):
    m = merged(base, side, side)
    assert m.text.encode() == side and m.conflicts == []


commented = st.lists(st.one_of(st.tuples(ids, st.sampled_from(["x", "y"])), st.sampled_from(["// c", "", "  "])),
                     max_size=10).map(lambda items: list({i[0] if isinstance(i, tuple) else n: i
                                                          for n, i in enumerate(items)}.values()))


@settings(max_examples=200, deadline=None)
@given(commented, st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_merging_a_file_with_itself_rewrites_nothing(items, eol, final_newline):
    lines = [rec(*i) if isinstance(i, tuple) else i for i in items]
    data = eol.join(lines) + (eol if final_newline and lines else "")
    side = read_side(data.encode(), "x")
    assert merge(side, side, side).text == data


@settings(max_examples=200, deadline=None)
@given(files, files, files)
def test_merge_is_symmetric_in_ours_and_theirs_up_to_order(base, ours, theirs):
    one, two = merged(base, ours, theirs), merged(base, theirs, ours)
    assert sorted(one.conflicts) == sorted(two.conflicts)
    if not one.conflicts:
        assert sorted(one.text.splitlines()) == sorted(two.text.splitlines())


# -- real git ---------------------------------------------------------------------------------------


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1", "PYTHONPATH": str(REPO),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}
    return subprocess.run(["git", "-C", str(repo), *args], env=env, check=check, capture_output=True, text=True)


def two_branches(tmp_path: Path, ours: bytes, theirs: bytes, *, driver: bool) -> Path:
    """A repo made by ``labeller new`` whose ``side`` branch and main each commit one version."""
    repo = tmp_path / ("with" if driver else "without")
    assert main(["new", str(repo)]) == 0
    questions = repo / "golden" / "questions.jsonl"
    questions.write_bytes(text("// golden set", A, B))
    git(repo, "init", "-q", "-b", "main")
    if driver:
        git(repo, "config", "merge.labeller.driver", "labeller merge-driver %O %A %B")  # the README's line
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "side")
    questions.write_bytes(theirs)
    git(repo, "commit", "-qam", "theirs")
    git(repo, "checkout", "-q", "main")
    questions.write_bytes(ours)
    git(repo, "commit", "-qam", "ours")
    return repo


def test_git_merges_two_branches_that_each_append_questions_only_with_the_driver(tmp_path):
    ours, theirs = text("// golden set", A, B, C), text("// golden set", A2, B, D)
    plain = two_branches(tmp_path, ours, theirs, driver=False)
    assert git(plain, "merge", "-q", "side", check=False).returncode != 0  # git's line merge: a conflict
    assert "<<<<<<<" in (plain / "golden" / "questions.jsonl").read_text()

    repo = two_branches(tmp_path, ours, theirs, driver=True)
    result = git(repo, "merge", "-q", "--no-edit", "side", check=False)
    assert result.returncode == 0, result.stderr
    assert (repo / "golden" / "questions.jsonl").read_bytes() == text("// golden set", A2, B, C, D)


def test_git_merge_of_one_record_edited_differently_stops_with_markers_naming_it(tmp_path):
    repo = two_branches(tmp_path, text("// golden set", A2, B), text("// golden set", A3, B), driver=True)
    result = git(repo, "merge", "-q", "--no-edit", "side", check=False)
    assert result.returncode != 0
    merged_text = (repo / "golden" / "questions.jsonl").read_text()
    assert '<<<<<<< ours id "a"' in merged_text and '>>>>>>> theirs id "a"' in merged_text
    assert A2 in merged_text and A3 in merged_text
    assert "questions.jsonl" in git(repo, "diff", "--name-only", "--diff-filter=U").stdout


def test_new_project_names_the_driver_in_gitattributes(tmp_path):
    assert main(["new", str(tmp_path / "p")]) == 0
    assert "golden/questions.jsonl merge=labeller" in (tmp_path / "p" / ".gitattributes").read_text()
