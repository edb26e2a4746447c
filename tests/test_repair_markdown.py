"""``labeller repair --format markdown``: a pull request's body saying what a repair applied
(moves grouped per pair of pages, edited quotes before and after) and what it left for a
person, where and why; escaped and bounded as the build's comment is."""

from __future__ import annotations

import subprocess

import pytest

from helpers_interop import cli
from helpers_moves import reorganised

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")

EXPECTED = """\
### labeller repair: applied 4 fix(es) to 4 record(s); 2 refused locator(s) left

golden\\/questions\\.jsonl rewritten (only the repaired records' lines). Each repaired record reads *changed since \
review* until someone reads it (`labeller review`); rebuild the golden set with `labeller build`.

**Moved** (3 label(s), the quote unchanged):

- ch01\\.md → ch02\\.md\\: 2 labels \\(renamed\\, paired by git\\)
- guide\\.md → faq\\.md\\: 1 label

**Edited quotes re-pointed** (1: read each):

| id | locator | document | quote | now in | now | how |
|---|---|---|---|---|---|---|
| r\\-sleep | 1 | ch01\\.md | Cats sleep sixteen hours a day\\. | ch02\\.md | Cats sleep up to sixteen hours a day\\. \
| where it stood\\, 100\\.0\\% kept |

**Left for a person** (2 locator(s) in 2 document(s): not\\_found 1\\, unknown\\_doc 1):

| document | left | kinds |
|---|---|---|
| guide\\.md | 1 | not\\_found 1 |
| notes\\.md | 1 | unknown\\_doc 1 |

| id | locator | kind | why |
|---|---|---|---|
| r\\-run | 1 | not\\_found | no nearest passage\\: nothing scores 50 or more against the quote\\; \
where it stood\\, the passage keeps 3\\.8\\% of the quote\\: below 60 |
| r\\-note | 1 | unknown\\_doc | the quote is verbatim in 2 other documents \\(faq\\.md\\, guide\\.md\\)\\: \
a person picks one |
"""


@pytest.fixture
def root(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LABELLER_REVIEWER", "repair-bot")
    return reorganised(tmp_path, capsys)


def test_the_body_says_what_was_applied_and_what_is_left_where_and_why(root, capsys):
    rc, out, err = cli(capsys, "repair", "--format", "markdown", "--root", root)
    assert rc == 1 and err == ""  # labels are left: a bot's pull request still says so
    assert out == EXPECTED
    rc, out, _ = cli(capsys, "build", "--root", root)  # it wrote: the repaired records build
    assert "r-fox" not in out and "r-sleep" not in out


def test_a_dry_run_body_says_nothing_was_written(root, capsys):
    before = (root / "golden/questions.jsonl").read_bytes()
    rc, out, _ = cli(capsys, "repair", "--moves", "--dry-run", "--format", "markdown", "--root", root)
    assert rc == 1 and (root / "golden/questions.jsonl").read_bytes() == before
    assert out.startswith("### labeller repair: would apply 3 fix(es) to 3 record(s); 3 refused locator(s) left\n\n"
                          "Dry run: nothing written.\n\n**Moved** (3 label(s)")
    assert "Edited quotes" not in out and "--- a/" not in out  # the diff is the text and JSON outputs'


def test_interactive_does_not_go_with_a_body(root, capsys):
    rc, out, err = cli(capsys, "repair", "--interactive", "--format", "markdown", "--root", root)
    assert rc == 2 and "--interactive asks at the terminal; it does not go with --format markdown" in err



def test_a_body_with_nothing_to_repair_says_so(root, capsys):
    (root / "golden/questions.jsonl").write_text("\n".join(
        line for line in (root / "golden/questions.jsonl").read_text(encoding="utf-8").splitlines()
        if '"r-note"' not in line and '"r-run"' not in line) + "\n", encoding="utf-8")  # the two left
    assert cli(capsys, "repair", "--root", root)[0] == 0  # the other four repaired
    rc, out, _ = cli(capsys, "repair", "--format", "markdown", "--root", root)
    assert rc == 0
    assert out == ("### labeller repair: applied 0 fix(es) to 0 record(s); 0 refused locator(s) left\n\n"
                   "Every label resolves: nothing to repair.\n")
