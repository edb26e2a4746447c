"""Issue 37.3: no input makes labeller exit 3 ("a bug in labeller, never your project").

The red team's inputs, each its own test: YAML front matter a safe loader cannot build
(a date that is no date, a 4,301-digit integer, a list as a key), a corpus file name that is
not UTF-8, a committed manifest whose ``docs`` is not an object, a 5,000-digit integer in
``labeller.toml``, ``NaN``/``Infinity``/``1e999`` and integers past 64 bits in JSON inputs, an
imported YAML file with a bad date, a huge integer or a list as a key, and Label Studio
``annotations`` that are not a list. Then one walk of every command that opens a project over
a corpus of such projects, asserting exit 2 (never 3) and nothing written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import q, write_project
from helpers_interop import cli, make
from labeller.layout import CACHE_DIR

DOC = "# Alpha\n\nThe quick brown fox jumps over the lazy dog.\n"
RECORD = q("r1", {"doc": "a.md", "quote": "quick brown fox"})
BAD_NAME = b"bad\xff\xfe.md"  # Latin-1 bytes: git keeps any bytes as a name, UTF-8 decoding fails
HUGE = "9" * 5000  # past Python's 4,300-digit conversion limit


def _project(root: Path, front_matter: str | None = None, questions: list | None = None,
             toml: str | None = None) -> Path:
    text = DOC if front_matter is None else f"---\n{front_matter}\n---\n{DOC}"
    return write_project(root, {"a.md": text}, [RECORD] if questions is None else questions, toml)


def _tree(root: Path) -> dict[bytes, bytes]:
    """Every file under ``root`` by its byte path, the digest-keyed cache aside (an index of
    the corpus, made before the questions are read, is no artifact): what a refused command
    must leave as it was."""
    out = {}
    for dirpath, dirs, names in os.walk(os.fsencode(root)):
        dirs[:] = [d for d in dirs if d != os.fsencode(CACHE_DIR)]
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as fh:
                out[path] = fh.read()
    return out


def _title(root: Path) -> str | None:
    from labeller.core.markdown import front_matter_title

    return front_matter_title((root / "corpus" / "a.md").read_text(encoding="utf-8"))


# -- front matter: a loader that builds only strings -----------------------------------------------

@pytest.mark.parametrize("front_matter", ["title: Alpha notes\ndate: 2020-13-45",
                                          f"title: Alpha notes\nrevision: {'7' * 4301}",
                                          "title: Alpha notes\ncreated: !!timestamp 2020-13-45"],
                         ids=["bad-date", "4301-digit-integer", "tagged-bad-date"])
def test_front_matter_a_safe_loader_cannot_build_is_only_text(tmp_path, capsys, front_matter):
    """Only ``title`` is used, as text: the date and the integer are never built (each raised
    ``ValueError`` past the ``YAMLError`` handler: build --check, eval and leaks exited 3)."""
    root = _project(tmp_path, front_matter)
    assert cli(capsys, "build", "--root", root)[0] == 0
    for command in (["build", "--check"], ["eval"], ["leaks"]):
        rc, out, err = cli(capsys, *command, "--root", root)
        assert rc == 0, (command, out, err)
    assert _title(root) == "Alpha notes"


def test_front_matter_with_a_list_as_a_key_has_no_title_and_builds(tmp_path, capsys):
    root = _project(tmp_path, "[a, b]: c\ntitle: Alpha notes")
    assert cli(capsys, "build", "--root", root)[0] == 0
    assert cli(capsys, "build", "--check", "--root", root)[0] == 0
    assert _title(root) is None


def test_front_matter_titles_are_the_text_as_written_and_null_is_none():
    from labeller.core.markdown import front_matter_title

    def title(fm: str) -> str | None:
        return front_matter_title(f"---\n{fm}\n---\nbody\n")

    assert [title("title: 2020-13-45"), title("title: 0x1F"), title("title: yes"), title("title: '1.50'")] == \
        ["2020-13-45", "0x1F", "yes", "1.50"]
    assert [title("title: ~"), title("title: null"), title("title:"), title("title: [a]")] == [None] * 4
    assert title('title: "null"') == "null"  # quoted: text


# -- a corpus file name that is not UTF-8 ----------------------------------------------------------

def _with_bad_name(root: Path) -> Path:
    with open(os.path.join(os.fsencode(root / "corpus"), BAD_NAME), "wb") as fh:
        fh.write(b"# Bad\n\nA document whose name is not UTF-8.\n")
    return root


@pytest.mark.parametrize("command", [["build"], ["build", "--check"], ["eval"], ["leaks"], ["chunks"],
                                     ["export", "jsonl", "--out", "x.jsonl"], ["config", "--show"]], ids=" ".join)
def test_a_file_name_that_is_not_utf8_is_refused_naming_its_bytes(tmp_path, capsys, command):
    root = _project(tmp_path / "p")
    assert cli(capsys, "build", "--root", root)[0] == 0
    _with_bad_name(root)
    before = _tree(tmp_path)
    rc, out, err = cli(capsys, *command, "--root", root)
    if command == ["config", "--show"]:  # reads no document
        assert rc == 0, err
        return
    assert rc == 2, (out, err)
    assert "bad\\xff\\xfe.md" in err and "not valid UTF-8" in err and "internal error" not in err
    assert _tree(tmp_path) == before


def test_a_file_name_that_is_not_utf8_is_named_in_the_json_report(tmp_path, capsys):
    root = _with_bad_name(_project(tmp_path))
    rc, out, _ = cli(capsys, "build", "--root", root, "--format", "json")
    assert rc == 2
    [error] = json.loads(out)["errors"]
    assert "corpus/bad\\xff\\xfe.md" in error["message"]


# -- the committed manifest ------------------------------------------------------------------------

@pytest.mark.parametrize("docs", [[1, 2], "docs", 7, None, {"a.md": [1]}])
def test_a_committed_manifest_whose_docs_is_not_an_object_is_drift_not_a_crash(tmp_path, capsys, docs):
    """A damaged manifest is drift (``labeller build`` rewrites it), as a manifest that is not
    JSON already was: exit 1 naming it, never 3 (``old_docs[d]`` of a list exited 3)."""
    root = _project(tmp_path)
    assert cli(capsys, "build", "--root", root)[0] == 0
    manifest = root / "golden" / "golden-set.v1.manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    manifest.write_text(json.dumps({**data, "docs": docs}), encoding="utf-8")
    rc, out, err = cli(capsys, "build", "--check", "--root", root)
    assert rc == 1, out + err
    assert '"docs" is not an object' in out + err


# -- labeller.toml ---------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["build"], ["build", "--check"], ["eval"], ["leaks"], ["config", "--show"]],
                         ids=" ".join)
def test_a_5000_digit_integer_in_labeller_toml_is_refused_at_its_line(tmp_path, capsys, command):
    root = _project(tmp_path, toml=f"# settings\n[build]\nmax_chars = {HUGE}\n")
    before = _tree(tmp_path)
    rc, out, err = cli(capsys, *command, "--root", root)
    assert rc == 2, out + err
    assert "labeller.toml:3" in err and "digits" in err and "internal error" not in err
    assert _tree(tmp_path) == before


# -- non-finite and unbounded numbers in JSON ------------------------------------------------------

NUMBERS = ["NaN", "Infinity", "-Infinity", "1e999", "-1E400", str(2**63), HUGE]
NUMBER_IDS = [n if len(n) < 30 else f"{len(n)}-digits" for n in NUMBERS]


def _record_with(number: str) -> str:
    return ('{"id": "r1", "query": "where is the fox?", "expected_answer": "a", '
            '"locators": [{"doc": "a.md", "quote": "quick brown fox"}], '
            f'"metadata": {{"score": {number}}}}}')


@pytest.mark.parametrize("number", NUMBERS, ids=NUMBER_IDS)
def test_a_number_json_cannot_carry_is_refused_when_the_questions_are_read(tmp_path, capsys, number):
    """Accepted at parse time, ``NaN`` reached the first JSON write (export, import, merge
    driver) and exited 3 there; refused at parse time it is the file's error, at its line."""
    root = _project(tmp_path, questions=[_record_with(number)])
    before = _tree(tmp_path)
    for command in (["build"], ["export", "jsonl", "--out", tmp_path / "x.jsonl"], ["eval"]):
        rc, out, err = cli(capsys, *command, "--root", root)
        assert rc == 2, (command, out, err)
        assert "questions.jsonl:1: malformed JSON: " in err and f"the number {number[:20]}" in err
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("number", NUMBERS, ids=NUMBER_IDS)
def test_a_number_json_cannot_carry_is_refused_in_an_imported_file(tmp_path, capsys, number):
    root = _project(tmp_path / "p", questions=[])
    incoming = tmp_path / "in.jsonl"
    incoming.write_text(_record_with(number) + "\n", encoding="utf-8")
    before = _tree(tmp_path)
    rc, out, err = cli(capsys, "import", "jsonl", incoming, "--root", root)
    assert rc == 2, out + err
    assert f"the number {number[:20]}" in err
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("number", ["NaN", "1e999"])
def test_a_number_json_cannot_carry_is_refused_by_the_merge_driver(tmp_path, capsys, number):
    ok = json.dumps(RECORD) + "\n"
    paths = []
    for side, text in (("base", ok), ("ours", ok), ("theirs", _record_with(number).replace("\n", " ") + "\n")):
        paths.append(tmp_path / side)
        paths[-1].write_text(text, encoding="utf-8")
    before = _tree(tmp_path)
    rc, out, err = cli(capsys, "merge-driver", *paths)
    assert rc == 2, out + err
    assert _tree(tmp_path) == before


def test_the_bounds_are_exact():
    from labeller.errors import InvalidInput
    from labeller.io import MAX_JSON_INT, parse_json

    assert parse_json(f"[{MAX_JSON_INT}, -{MAX_JSON_INT}, 1.7976931348623157e308, 1e-999]") == \
        [MAX_JSON_INT, -MAX_JSON_INT, 1.7976931348623157e308, 0.0]
    for bad in (str(MAX_JSON_INT + 1), f"-{MAX_JSON_INT + 1}", "1.8e308"):
        with pytest.raises(InvalidInput):
            parse_json(bad)
    # the line named is the number's, not a string's that spells it first
    with pytest.raises(InvalidInput, match=r"f:3: .*NaN"):
        parse_json('["NaN",\n "x\\" NaN",\n NaN]', "f")


# -- imported YAML ---------------------------------------------------------------------------------

@pytest.mark.parametrize("yaml_text, reason", [
    ("queries:\n- id: 2020-13-45\n  query: q?\n  expected: []\n", "'2020-13-45' is not a valid timestamp"),
    (f"queries:\n- id: {HUGE}\n  query: q?\n  expected: []\n", "is not a valid int"),
    ("queries:\n- [a, b]: x\n  id: r1\n  query: q?\n  expected: []\n", "a key is a list"),
    ("? {a: b}\n: x\n", "a key is a mapping"),
], ids=["bad-date", "5000-digit-integer", "list-key", "mapping-key"])
def test_import_yaml_refuses_what_its_loader_cannot_build_at_its_line(tmp_path, capsys, yaml_text, reason):
    root = make(tmp_path / "p", questions=[])
    incoming = tmp_path / "in.yaml"
    incoming.write_text(yaml_text, encoding="utf-8")
    rc, out, err = cli(capsys, "import", "yaml", incoming, "--root", root)
    assert rc == 2, out + err
    line = 1 if yaml_text.startswith("?") else 2
    assert f"in.yaml:{line}: " in err and reason in err and "internal error" not in err


# -- Label Studio ------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["annotations", "predictions"])
@pytest.mark.parametrize("value", [5, 1.5, True, "accepted", {"result": []}])
def test_label_studio_annotations_or_predictions_not_a_list_are_refused(tmp_path, capsys, key, value):
    source, root = make(tmp_path / "src"), make(tmp_path / "p", questions=[])
    export = tmp_path / "ls.json"
    assert cli(capsys, "export", "label-studio", "--root", source, "--out", export)[0] == 0
    tasks = json.loads(export.read_text(encoding="utf-8"))
    tasks[0][key] = value
    tasks[0].pop("predictions" if key == "annotations" else "annotations", None)
    export.write_text(json.dumps(tasks), encoding="utf-8")
    rc, out, err = cli(capsys, "import", "label-studio", export, "--root", root, "--predictions")
    assert rc == 2, out + err
    assert f"[0]: {key} must be a list, not {type(value).__name__}" in err


# -- the walk: every command over a corpus of hostile projects -------------------------------------

HOSTILE_PROJECTS = {  # name: (what is hostile, how to make it)
    "name-not-utf8": ("corpus", lambda root: _with_bad_name(_project(root))),
    "toml-5000-digits": ("config", lambda root: _project(root, toml=f"[eval]\nbootstrap_samples = {HUGE}\n")),
    "questions-nan": ("questions", lambda root: _project(root, questions=[_record_with("NaN")])),
    "questions-1e999": ("questions", lambda root: _project(root, questions=[_record_with("1e999")])),
    "questions-int-past-64-bits": ("questions", lambda root: _project(root, questions=[_record_with(str(2**64))])),
}
EVERYTHING = {"config", "corpus", "questions"}
COMMANDS = {  # the command: the inputs it reads
    "build": EVERYTHING, "build --check": EVERYTHING, "eval": EVERYTHING, "leaks": EVERYTHING,
    "export jsonl --out x.jsonl": EVERYTHING, "pool --depth 5 --out pool.jsonl": EVERYTHING,
    "agreement --with ann": EVERYTHING, "judge": EVERYTHING, "chunkers compare md-struct-v1 fixed-chars-v1": EVERYTHING,
    "chunks": {"config", "corpus"}, "review --status flagged": {"config", "questions"}, "config --show": {"config"},
}


@pytest.mark.parametrize("hostile", sorted(HOSTILE_PROJECTS))
def test_every_command_refuses_every_hostile_project_with_exit_2_and_writes_nothing(tmp_path, capsys, hostile):
    """Each command that reads the hostile input answers 2 in text and in JSON and writes
    nothing; one that does not read it answers anything but 3."""
    what, make_project = HOSTILE_PROJECTS[hostile]
    root = make_project(tmp_path / "p")
    before = _tree(tmp_path)
    answers = {}
    for command, reads in sorted(COMMANDS.items(), key=lambda c: what not in c[1]):  # the refusals first
        for fmt in (["--format", "json"], []) if command != "review --status flagged" else ([],):
            rc, out, err = cli(capsys, *command.split(), "--root", root, *fmt)
            answers[" ".join([command, *fmt])] = rc, (out + err)[-300:]
            if what in reads:
                assert rc == 2 and _tree(tmp_path) == before, (command, fmt, rc, out, err)
    assert not [c for c, (rc, _) in answers.items() if rc == 3], answers
    assert {c for c, (rc, _) in answers.items() if rc == 2} >= {c for c, r in COMMANDS.items() if what in r}
