"""Every string that reaches a terminal or an export is visible-safe (issue 18, README "Untrusted input").

One hostile project — escape sequences (CSI, OSC 52 clipboard, OSC title), C1 controls (U+009B
is a one-byte CSI), DEL, U+2028, bidi overrides and isolates in its folder name, a document's
name and text, queries, answers, tags, quotes and Rich markup in ids — goes through every
command with ``--format json`` and ``text``, and through every export format. Nothing printed
or written may hold a raw control character (but newline and tab) or an invisible one; every
JSON and YAML output must parse back to the very strings that went in (escaping is lossless);
Rich markup and emoji codes in record text print literally. TSV has no escape: a topics file
refuses such a query, naming the record.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from conftest import q, write_project
from labeller.cli import main
from labeller.interop import all_formats

# every character that acts on a terminal or reorders text: C0 but \t and \n, DEL, C1,
# U+2028/9, bidi embeddings/overrides (U+202A-E) and isolates (U+2066-9), lone surrogates
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

CSI = "\x1b[2J\x1b[31m"
OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"
TITLE = "\x1b]0;pwned\x1b\\"
C1 = "\x9b31m"
BIDI = "\u202eevil\u202c \u2066iso\u2069"
HOSTILE = f"{CSI}{OSC52}{TITLE}{C1}{BIDI}\u2028\x7f\x85"

FOLDER = "proj\u202e\x9b\x1b[1m"  # the project root's own name reaches every path that is printed
DOC = "notes/re\u202eadme\x9b.md"  # a corpus file name holding a bidi override and a C1 control
DOC_TEXT = (f"# Hostile {HOSTILE}\n\nThe clipboard sequence {OSC52} sits in this paragraph, and a CSI {C1} too.\n\n"
            f"## Second\n\nA bidi override {BIDI} inside the second section of the note.\n")
PLAIN = {"guide.md": "# Guide\n\nRetention lasts nine days in the plain guide.\n\n## Other\n\nOther words here.\n"}
MARKUP_ID = "r[bold]1[/bold]:smile:"
QUESTIONS = [
    q(MARKUP_ID, {"doc": DOC, "quote": f"clipboard sequence {OSC52} sits"}, query=f"why {HOSTILE} [red]x[/red]?",
      expected_answer=f"answer {HOSTILE}", tags=[f"tag{C1}\u202e"]),
    q("r2", {"doc": DOC, "heading": "Second"}, query=f"second {BIDI} :smile:?"),
    q("r3", {"quote": "Retention lasts nine days"}, query="plain question about retention?"),
]
REFUSED = q("bad[/]", {"quote": f"missing {HOSTILE} words"}, query=f"refused {HOSTILE}?")


def hostile_strings() -> set[str]:
    """The record strings JSON and YAML outputs must give back exactly."""
    return {QUESTIONS[0]["query"], QUESTIONS[0]["expected_answer"], QUESTIONS[1]["query"], DOC, MARKUP_ID}


@pytest.fixture
def root(tmp_path) -> Path:
    root = write_project(tmp_path / FOLDER, {DOC: DOC_TEXT, **PLAIN}, QUESTIONS, toml="[build]\nmax_chars = 1800\n")
    ann = root / "golden" / "annotations"
    ann.mkdir()
    (ann / "bee.jsonl").write_text(json.dumps({"locators": [{"doc": DOC, "quote": f"CSI {C1} too"}],
                                               "record_id": MARKUP_ID}, ensure_ascii=False) + "\n", encoding="utf-8")
    return root


def run(capsys, monkeypatch, *args) -> tuple[int, str]:
    """``labeller ARGS`` in-process on a wide console; exit code and stdout + stderr."""
    monkeypatch.setenv("COLUMNS", "400")
    capsys.readouterr()
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out + err


def assert_visible_safe(text: str, what: str) -> None:
    bad = RAW.search(text)
    assert bad is None, f"{what}: raw U+{ord(bad.group()):04X} at {bad.start()}: {text[max(0, bad.start() - 40):bad.start() + 40]!r}"


def strings(value) -> set[str]:
    """Every string (keys too) in a parsed JSON or YAML value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(k) | strings(v) for k, v in value.items())) if value else set()
    if isinstance(value, list):
        return set().union(*map(strings, value)) if value else set()
    return set()


def json_values(text: str) -> list:
    """One JSON document, or JSON Lines."""
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.split("\n") if line.strip()]


def contains(values: list, needle: str) -> bool:
    return any(needle in s for v in values for s in strings(v))


# -- every command, --format json and text ------------------------------------------------------------

COMMANDS = [  # (arguments after the root, exit code, strings the JSON output must carry back)
    (("build",), 0, {DOC}),
    (("build", "--check"), 0, set()),
    (("agreement", "--with", "bee"), 0, {MARKUP_ID}),
    (("leaks",), 0, set()),
    (("review", "--summary"), 0, set()),
    (("config", "--show"), 0, {FOLDER}),
    (("chunks", "--chunker", "md-struct-v1"), 0, set()),
    (("eval", "--retriever", "bm25"), 0, {MARKUP_ID}),
    (("runs",), 0, {FOLDER}),
    (("repair", "--dry-run"), 0, set()),
]


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_every_command_prints_nothing_raw_and_json_round_trips(root, capsys, monkeypatch, fmt):
    monkeypatch.chdir(root)
    for args, code, carried in COMMANDS:
        rc, shown = run(capsys, monkeypatch, *args, "--root", root, "--format", fmt)
        assert rc == code, (args, shown[-2000:])
        assert_visible_safe(shown, " ".join(args))
        if fmt == "json" and args[0] != "chunks":
            values = json_values(shown[:shown.rindex("}") + 1] if args[0] in ("eval", "leaks") else shown)
            for needle in carried:
                assert contains(values, needle), (args, needle)
    rc, shown = run(capsys, monkeypatch, "chunkers", "--format", fmt)
    assert rc == 0 and not RAW.search(shown)


def test_the_chunk_file_escapes_document_names_and_reads_back(root, capsys, monkeypatch):
    target = root / "chunks.jsonl"
    rc, shown = run(capsys, monkeypatch, "chunks", "--root", root, "--out", target)
    data = target.read_text(encoding="utf-8")
    assert rc == 0 and not RAW.search(shown)
    assert_visible_safe(data, "chunk file")
    assert {json.loads(line)["doc"] for line in data.splitlines()} == {DOC, "guide.md"}
    assert "\\u202e" in data  # escaped, not dropped


def test_build_refusals_in_json_and_text(root, capsys, monkeypatch):
    (root / "golden" / "questions.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [*QUESTIONS, REFUSED]), encoding="utf-8")
    rc, shown = run(capsys, monkeypatch, "build", "--root", root, "--format", "json")
    assert rc == 1
    assert_visible_safe(shown, "build refusals json")
    report = json.loads(shown)
    assert report["errors"][0]["id"] == "bad[/]"
    assert contains([report], f"missing {HOSTILE} words")
    rc, shown = run(capsys, monkeypatch, "build", "--root", root)
    assert rc == 1
    assert_visible_safe(shown, "build refusals text")
    assert "bad[/]" in shown and "\\x1b[2J" in shown  # markup shown literally, ESC spelled out


def test_text_output_shows_markup_and_emoji_codes_literally(root, capsys, monkeypatch):
    _, shown = run(capsys, monkeypatch, "agreement", "--root", root, "--with", "bee")
    assert MARKUP_ID in shown and "\U0001f604" not in shown
    (root / "golden" / "reviews.jsonl").write_text(json.dumps(
        {"record_id": MARKUP_ID, "record_digest": "0" * 64, "reviewer": f"eve[b]{C1}", "decision": "flag",
         "comment": f"see [link=x]{OSC52}[/link] :smile:", "timestamp": "2026-01-01T00:00:00Z"},
        ensure_ascii=False) + "\n", encoding="utf-8")
    for fmt in ("text", "json"):
        rc, shown = run(capsys, monkeypatch, "review", "--summary", "--root", root, "--format", fmt)
        assert rc == 0 and (fmt == "json" or ("eve[b]" in shown and "[link=x]" in shown and ":smile:" in shown))
        assert_visible_safe(shown, f"review --summary {fmt}")
    path = root.parent / "in.json"
    path.write_text(json.dumps([{"id": "x[bold]y[/bold]", "query": f"q {HOSTILE} [i]z[/i]",
                                 "expected_pages": [f"nope{C1}.md"]}], ensure_ascii=False), encoding="utf-8")
    rc, shown = run(capsys, monkeypatch, "import", "pages-json", path, "--root", root, "--dry-run")
    assert rc == 1 and "x[bold]y[/bold]" in shown
    assert_visible_safe(shown, "import text")


def test_import_json_report_round_trips(root, capsys, monkeypatch):
    path = root.parent / "in.jsonl"
    rec = q("imp[b]1", {"doc": DOC, "quote": f"CSI {C1} too"}, query=f"imported {HOSTILE}?")
    path.write_text(json.dumps(rec, ensure_ascii=False) + "\n" + json.dumps(
        q("imp2", {"quote": f"absent {BIDI}"}, query=f"kept out {BIDI}?"), ensure_ascii=False) + "\n",
        encoding="utf-8")
    rc, shown = run(capsys, monkeypatch, "import", "jsonl", path, "--root", root, "--format", "json")
    assert rc == 1
    assert_visible_safe(shown, "import json")
    report = json.loads(shown)
    assert report["added"] == ["imp[b]1"] and report["kept_out"][0]["id"] == "imp2"
    assert contains([report], str(path))


# -- every export format ------------------------------------------------------------------------

EXPORTS = sorted(name for name, fmt in all_formats().items() if fmt.export is not None)


def parse_export(name: str, path: Path, data: str) -> list:
    if path.suffix == ".tsv":
        return [line.split("\t") for line in data.split("\n")]
    if name == "yaml":
        return [yaml.safe_load(data)]
    if name == "trec-qrels":
        return [data.split()]
    return json_values(data)


def test_every_export_format_is_covered():
    assert set(EXPORTS) == {"beir", "jsonl", "label-studio", "llamaindex", "offsets", "pages-json", "ragas",
                            "trec-qrels", "yaml"}


@pytest.mark.parametrize("name", EXPORTS)
def test_every_export_escapes_and_reads_back(root, capsys, monkeypatch, name):
    fmt = all_formats()[name]
    target = root.parent / f"out-{name}"
    rc, shown = run(capsys, monkeypatch, "export", name, "--root", root, "--out", target)
    assert rc == 0, shown
    assert_visible_safe(shown, f"export {name} report")
    files = sorted(p for p in target.rglob("*") if p.is_file()) if fmt.folder is not None else [target]
    values = []
    for path in files:
        data = path.read_bytes().decode("utf-8")
        assert_visible_safe(data, f"{name}: {path.name}")
        values += parse_export(name, path, data)
    if name == "trec-qrels":
        assert values  # ids only: nothing hostile to carry
        return
    queries = {QUESTIONS[0]["query"], QUESTIONS[1]["query"]}
    assert all(contains(values, s) for s in queries), name
    if name in ("jsonl", "offsets", "label-studio"):
        assert contains(values, DOC), name


@pytest.mark.parametrize("name", ["jsonl", "yaml", "offsets", "label-studio"])
def test_exports_import_back_to_the_same_strings(root, tmp_path, capsys, monkeypatch, name):
    """Escaping is lossless: what an export wrote imports back into an empty project as the
    very same queries."""
    target = root.parent / f"rt-{name}"
    assert run(capsys, monkeypatch, "export", name, "--root", root, "--out", target)[0] == 0
    fresh = write_project(tmp_path / "fresh", {DOC: DOC_TEXT, **PLAIN}, [])
    extra = ("--predictions",) if name == "label-studio" else ()  # its export writes pre-annotations
    rc, shown = run(capsys, monkeypatch, "import", name, target, "--root", fresh, "--format", "json", *extra)
    assert rc in (0, 1), shown
    imported = [json.loads(line) for line in (fresh / "golden" / "questions.jsonl").read_text("utf-8").split("\n")
                if line.strip() and not line.startswith("//")]  # raw U+2028 there: not str.splitlines
    assert {r["query"] for r in imported} >= {QUESTIONS[0]["query"], QUESTIONS[1]["query"]}


def test_a_topics_tsv_refuses_an_invisible_character_naming_the_record(root, capsys, monkeypatch):
    rc, shown = run(capsys, monkeypatch, "export", "trec-qrels", "--root", root, "--out", root.parent / "q.txt",
                    "--queries-out", root.parent / "topics.tsv")
    assert rc == 2
    assert_visible_safe(shown, "trec refusal")
    assert "r[bold]1[/bold]" in shown and "topics TSV" in shown
    assert not (root.parent / "topics.tsv").exists() and not (root.parent / "q.txt").exists()


def test_the_artifact_manifest_and_a_written_record_keep_the_strings_but_show_them(root, capsys, monkeypatch):
    """The files labeller writes for people to diff (questions.jsonl records it writes, the
    golden set, its manifest) hold the same strings, but as escapes a terminal cannot act on."""
    from labeller.core.models import Question
    from labeller.core.questions import record_line

    rc, _ = run(capsys, monkeypatch, "build", "--root", root)
    assert rc == 0
    golden = root / "golden"
    artifact = (golden / "golden-set.v1.jsonl").read_text(encoding="utf-8")
    manifest = (golden / "golden-set.v1.manifest.json").read_text(encoding="utf-8")
    assert_visible_safe(artifact, "artifact")
    assert_visible_safe(manifest, "manifest")
    assert contains(json_values(artifact), QUESTIONS[0]["query"]) and contains([json.loads(manifest)], DOC)
    line = record_line(Question.model_validate(QUESTIONS[0]))
    assert_visible_safe(line, "questions.jsonl record")
    assert json.loads(line)["query"] == QUESTIONS[0]["query"]
