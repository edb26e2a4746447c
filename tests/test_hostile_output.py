"""What a hostile repository can make labeller print is bounded (issue 23 item 3, issue 25 item 6).

Each kind of diagnostic shows its first ``TEXT_LIMIT`` in text and one line for the rest;
``--format json`` lists them and prints nothing else to stdout (at most one line to stderr).
The inputs are a few hundred lines: the bound is per kind, so a few times ``TEXT_LIMIT``
shows it as well as a million would.
"""

from __future__ import annotations

import json

from conftest import q, write_project
from labeller import diagnostics
from labeller.cli import main
from labeller.diagnostics import TEXT_LIMIT
from labeller.review.log import read_review_log

DOC = "# Guide\n\nThe answer is here, in one sentence.\n"


def project(tmp_path, questions=None, docs=None):
    questions = questions if questions is not None else [q("q1", {"quote": "The answer is here"})]
    return str(write_project(tmp_path / "proj", docs or {"guide.md": DOC}, questions))


def run(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def lines(text: str) -> list[str]:
    return text.splitlines()


def plant_review_log(root: str, n: int) -> None:
    with open(f"{root}/golden/reviews.jsonl", "w", encoding="utf-8") as fh:
        fh.write("{}\n" * n)


def test_a_planted_review_log_prints_the_first_warnings_and_a_count(tmp_path, capsys):
    root = project(tmp_path)
    assert main(["build", "--root", root]) == 0
    plant_review_log(root, 500)
    rc, out, err = run(capsys, "build", "--check", "--root", root)
    assert rc == 0
    warnings = [ln for ln in lines(err) if "not a valid review entry" in ln]
    assert len(warnings) == TEXT_LIMIT
    assert f"… and {500 - TEXT_LIMIT:,} more review-log warnings" in err
    assert len(lines(err)) <= TEXT_LIMIT + 1
    rc, out, err = run(capsys, "review", "--summary", "--root", root)
    assert rc == 0 and len(lines(err)) == TEXT_LIMIT + 1 and f"… and {500 - TEXT_LIMIT:,} more" in err


def test_a_planted_review_log_under_json_is_only_json(tmp_path, capsys):
    root = project(tmp_path)
    assert main(["build", "--root", root]) == 0
    plant_review_log(root, 500)
    rc, out, err = run(capsys, "build", "--check", "--root", root, "--format", "json")
    report = json.loads(out)  # stdout is one JSON document and nothing else
    assert rc == 0 and report["warning_count"] == 500 and len(report["warnings"]) == 500
    assert len(lines(err)) <= 1
    rc, out, err = run(capsys, "review", "--summary", "--root", root, "--format", "json")
    assert rc == 0 and json.loads(out)["records"] == 1 and len(lines(err)) <= 1


def test_review_log_problems_beyond_the_bound_are_counted_not_held(tmp_path, monkeypatch):
    monkeypatch.setattr(diagnostics, "KEEP", 7)
    path = tmp_path / "reviews.jsonl"
    path.write_text("{}\n" * 50, encoding="utf-8")
    log = read_review_log(path)
    assert len(log.problems) == 7 and log.problems.total == 50
    assert [p.line for p in log.problems] == list(range(1, 8))  # the first ones, in file order


def test_near_duplicate_questions_print_a_dozen_lines_at_most(tmp_path, capsys):
    n = 1000
    questions = [q(f"q{i:04d}", {"quote": "The answer is here"}, query=f"what is the answer to question {i:04d} please")
                 for i in range(n)]
    root = project(tmp_path, questions)
    rc, out, err = run(capsys, "build", "--root", root)
    assert rc == 0
    assert len([ln for ln in lines(err) if "near-duplicate" in ln]) <= 12
    assert f"{n * (n - 1) // 2:,} near-duplicate pairs in all" in err  # every pair is one: the count says so
    rc, out, err = run(capsys, "build", "--check", "--root", root, "--format", "json")
    report = json.loads(out)
    assert report["near_duplicate_check"]["count"] == n * (n - 1) // 2
    assert len(report["near_duplicates"]) == min(n * (n - 1) // 2, report["near_duplicate_check"]["listed"])
    assert len(lines(err)) <= 1


def test_repeated_chunk_ids_are_listed_on_bounded_lines(tmp_path, capsys):
    # md-struct-v1 gives identical passages of one document one id: 300 copies of one
    # paragraph (a chunk each, at 40 characters) are one id at 300 places, and 40
    # paragraphs twice are 40 repeated ids.
    chunker = "md-struct-v1:max_chars=40"
    same = "\n\n".join(["Identical paragraph, word for word."] * 300)
    root = project(tmp_path / "same", [], {"same.md": f"# Same\n\n{same}\n"})
    rc, out, err = run(capsys, "chunks", "--chunker", chunker, "--root", root)
    assert rc == 1 and out == "" and len(lines(err)) == 2  # the summary, the one id
    assert f"… and {300 - TEXT_LIMIT} more places" in err
    pairs = "\n\n".join(f"Paragraph number {i} appears twice.\n\nParagraph number {i} appears twice." for i in range(40))
    root = project(tmp_path / "pairs", [], {"pairs.md": f"# Pairs\n\n{pairs}\n"})
    rc, out, err = run(capsys, "chunks", "--chunker", chunker, "--root", root)
    assert rc == 1 and len(lines(err)) == TEXT_LIMIT + 2  # the summary, the first ids, one line for the rest
    assert f"… and {40 - TEXT_LIMIT} more repeated ids" in err
    rc, out, err = run(capsys, "chunks", "--chunker", chunker, "--root", root, "--format", "json")
    assert len(json.loads(err)["errors"]) == 40  # without --out the chunk file would be stdout: the report is stderr


def test_label_errors_show_the_first_and_a_long_quote_is_cut(tmp_path, capsys):
    long_quote = "missing " * 5000  # 40,000 characters, echoed in the locator and in the message
    questions = [q(f"q{i}", {"quote": f"absent passage {i}"}) for i in range(60)]
    questions.append(q("long", {"quote": long_quote}))
    root = project(tmp_path, questions)
    rc, out, err = run(capsys, "build", "--root", root)
    assert rc == 1
    assert err.count("not_found") == TEXT_LIMIT
    assert f"… and {61 - TEXT_LIMIT} more label errors" in err
    rc, out, err = run(capsys, "build", "--root", root, "--format", "json")
    assert rc == 1 and len(json.loads(out)["errors"]) == 61 and err == ""
    root2 = project(tmp_path / "two", [q("long", {"quote": long_quote})])
    rc, out, err = run(capsys, "build", "--root", root2)
    # the locator echoes a long quote with its middle elided (Locator.describe), the message is cut too
    assert rc == 1 and len(err) < 1000 and "missing missing" in err


def test_an_invalid_file_lists_its_first_problems(tmp_path, capsys):
    root = project(tmp_path, ["not json"] * 200)
    rc, out, err = run(capsys, "build", "--root", root)
    assert rc == 2
    assert len(lines(err)) <= TEXT_LIMIT + 2
    assert f"… and {200 - TEXT_LIMIT} more problems" in err
    rc, out, err = run(capsys, "build", "--root", root, "--format", "json")
    assert rc == 2 and len(json.loads(out)["errors"]) == 200 and err == ""


def test_a_damaged_committed_artifact_lists_its_first_bad_lines(tmp_path, capsys):
    root = project(tmp_path)
    assert main(["build", "--root", root]) == 0
    with open(f"{root}/golden/golden-set.v1.jsonl", "a", encoding="utf-8") as fh:
        fh.write("not a record\n" * 300)
    rc, out, err = run(capsys, "build", "--check", "--root", root)
    assert rc == 1
    assert len([ln for ln in lines(err) if "is not a valid record" in ln]) == TEXT_LIMIT
    assert "more problems with the committed artifact" in err
    rc, out, err = run(capsys, "build", "--check", "--root", root, "--format", "json")
    drift = json.loads(out)["drift"]
    assert sum("is not a valid record" in p for p in drift["problems"]) == 300
    assert drift["problem_count"] == len(drift["problems"])


def test_a_bounded_list_keeps_its_count_through_a_copy_and_a_pickle():
    import copy
    import pickle

    kept = diagnostics.Bounded(range(10), keep=3)
    for other in (copy.deepcopy(kept), pickle.loads(pickle.dumps(kept))):
        assert list(other) == [0, 1, 2] and other.total == 10 and other.keep == 3
