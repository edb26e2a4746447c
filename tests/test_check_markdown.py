"""``build --check --format markdown``: a pull-request comment of what the check found, read back
through a real Markdown renderer (markdown-it-py, GFM tables) to see that it is a table and
that nothing a pull request wrote became a link, an image, HTML or code."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from conftest import q, write_project
from labeller.cli import main
from labeller.diagnostics import TEXT_LIMIT, ZWJ

DOC = "# Guide\n\nThe alpha paragraph explains retention of nine days.\n\nBeta keeps the lighthouse keeper.\n"
HOSTILE = "nine | `days` [x](https://e.example) <img src=x> @someone\nsecond line"


def render(markdown: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(markdown)


def check_markdown(root, capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["build", "--root", str(root), "--check", "--format", "markdown"])
    return code, capsys.readouterr().out


def test_broken_labels_are_one_table_row_each_with_cells_kept_literal(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"a.md": DOC},
                         [q("ok", {"quote": "lighthouse keeper"}), q("bad|1", {"quote": HOSTILE}),
                          q("near", {"quote": "explains retention of ten days"})])
    code, out = check_markdown(root, capsys)
    assert code == 1
    html = render(out)
    rows = re.findall(r"<tr>(.*?)</tr>", html, re.S)
    assert len(rows) == 3  # the header and the two broken labels
    cells = re.findall(r"<td>(.*?)</td>", rows[1], re.S)
    assert len(cells) == 4  # the pipes in the id and the quote did not split the row
    assert cells[0] == "bad|1" and cells[1] == "not_found"
    nearest = re.findall(r"<td>(.*?)</td>", rows[2], re.S)[3]
    assert "explains retention of nine days" in nearest and nearest.startswith("a.md:")
    assert "<a " not in html and "<img" not in html and "<code>" not in html and "<br" not in html
    # text as written (its links broken by zero-width joiners), on one line
    assert "[x](https://e.example)" in cells[2].replace(ZWJ, "") and "\n" not in cells[2]


def test_more_broken_labels_than_fit_show_the_first_ones_and_a_count(tmp_path, capsys):
    n = TEXT_LIMIT + 7
    root = write_project(tmp_path / "p", {"a.md": DOC}, [q(f"r{i}", {"quote": f"missing {i}"}) for i in range(n)])
    code, out = check_markdown(root, capsys)
    assert code == 1
    assert len(re.findall(r"<tr>", render(out))) == 1 + TEXT_LIMIT
    assert f"… and {n - TEXT_LIMIT:,} more broken labels" in out


def test_drift_names_the_files_that_differ_and_the_records(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"a.md": DOC}, [q("r1", {"quote": "lighthouse keeper"})])
    assert main(["build", "--root", str(root)]) == 0
    assert check_markdown(root, capsys) == (0, "### labeller build --check: up to date\n\n"
                                               "The committed golden set matches a fresh build.\n")
    with (root / "golden" / "questions.jsonl").open("a") as fh:
        fh.write('{"id": "r2", "query": "retention?", "expected_answer": "", "locators": [{"quote": "nine days"}]}\n')
    code, out = check_markdown(root, capsys)
    assert code == 1
    cells = re.findall(r"<td>(.*?)</td>", render(out), re.S)
    assert cells[:6] == ["golden/golden-set.v1.jsonl", "differs from a fresh build",
                         "golden/golden-set.v1.manifest.json", "differs from a fresh build", "records added", "r2"]


def test_markdown_without_check_is_refused(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"a.md": DOC}, [q("r1", {"quote": "lighthouse keeper"})])
    assert main(["build", "--root", str(root), "--format", "markdown"]) == 2
    assert not (root / "golden" / "golden-set.v1.jsonl").exists()
