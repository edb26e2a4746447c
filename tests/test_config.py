"""labeller.toml is checked once, up front: every bad value is refused by every command with
the file, the key and the reason (exit 2), and ``labeller config --show`` prints what is in
effect and where each value came from."""

from __future__ import annotations

import json
import math
import re

import pytest
from annotated_types import Le

from labeller.cli import main
from labeller.config import MAX_FIELD_WEIGHT, SECTIONS, EvalConfig, Limits, ProjectConfig, load_config
from labeller.core.project import Project
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.layout import ProjectLayout
from tests.conftest import q, write_project

DOC = "# Ops\n\nRotate the API key every ninety days.\n"


@pytest.fixture
def root(tmp_path):
    return write_project(tmp_path / "p", {"ops.md": DOC},
                         [q("q1", {"doc": "ops.md", "quote": "Rotate the API key"})])


BAD = [  # (toml, the key named, the reason)
    ('[eval]\nk = ["a"]\n', "[eval] k[0]", "whole number"),
    ("[eval]\nk = []\n", "[eval] k", "must not be empty"),
    ("[eval]\nk = [0, 5]\n", "[eval] k[0]", "at least 1"),
    ("[eval]\nk = [5, 1001]\n", "[eval] k[1]", "at most 1000"),
    ("[eval]\nshipped_k = 0\n", "[eval] shipped_k", "at least 1"),
    ("[eval]\nseed = -1\n", "[eval] seed", "at least 0"),
    ("[eval]\nbootstrap_samples = 0\n", "[eval] bootstrap_samples", "at least 1"),
    ('[eval]\nseed = "7"\n', "[eval] seed", "whole number"),
    ("[eval]\nfield_weights = {body = -1.0}\n", "[eval] field_weights", "finite number >= 0"),
    ("[eval]\nfield_weights = {body = 1e308}\n", "[eval] field_weights", "<= 1000"),
    ("[eval]\nfield_weights = {heading = nan}\n", "[eval] field_weights", "finite number"),
    ("[eval]\nbootstrap_samples = 1000000\n", "[eval] bootstrap_samples", "at most 100000"),
    ("[eval]\nbm25_k1 = -1\n", "[eval] bm25_k1", "at least 0"),
    ("[eval]\nbm25_b = 1.5\n", "[eval] bm25_b", "at most 1"),
    ("[eval]\nbm25_b = nan\n", "[eval] bm25_b", "finite number"),
    ("[eval]\nfield_weights = {title = 1.0}\n", "[eval] field_weights.title", "'heading', 'breadcrumb' or 'body'"),
    ("[eval]\nanalyser = \"plain\"\n", "'analyser' in [eval]", "unknown key"),
    ("[build]\nmax_chars = 0\n", "[build] max_chars", "at least 1"),
    ("[build]\nmax_chars = true\n", "[build] max_chars", "whole number"),
    ('[build]\nhit_rule = "coverage>=2"\n', "[build] hit_rule", "unknown hit rule"),
    ('[build]\nchunker = "nope-v9"\n', "[build] chunker", "unknown chunker"),
    ("[limits]\nmax_records = 0\n", "[limits] max_records", "at least 1"),
    ("[corpus]\ninclude = []\n", "[corpus] include", "must not be empty"),
    ('[golden]\nquestions = ""\n', "[golden] questions", "at least 1 character"),
    ("[colour]\nx = 1\n", "[colour]", "unknown section"),
    ("eval = 3\n", "[eval]", "must be a table"),
]


@pytest.mark.parametrize("toml,key,reason", BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_a_bad_value_is_refused_naming_file_key_and_reason(root, toml, key, reason):
    (root / "labeller.toml").write_text(toml, encoding="utf-8")
    with pytest.raises(InvalidInput) as exc:
        Project(load_config(root))
    message = str(exc.value)
    assert str(root / "labeller.toml") in message and key in message and reason in message
    assert "pydantic" not in message and "Input should" not in message and "\n" not in message


COMMANDS = [["build"], ["build", "--check"], ["build", "--check", "--require-reviewed"], ["review", "--summary"],
            ["eval"], ["export", "jsonl", "--out", "out.jsonl"], ["leaks"], ["config", "--show"],
            ["diff", "golden/questions.jsonl"]]


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("toml", ["[eval]\nseed = -1\n", "[build]\nmax_chars = 0\n"])
def test_every_command_refuses_a_bad_section(root, argv, toml, capsys, monkeypatch):
    monkeypatch.chdir(root)
    (root / "labeller.toml").write_text(toml, encoding="utf-8")
    assert main([*argv, "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert "labeller.toml" in err and ("seed" in err or "max_chars" in err)
    assert "Traceback" not in err
    assert not (root / "golden" / "golden-set.v1.jsonl").exists()  # nothing was built


def test_defaults_are_todays_values_and_sources_say_default(root):
    cfg = load_config(root)
    assert cfg.limits == Limits() and cfg.eval == EvalConfig()
    assert (cfg.max_chars, cfg.hit_rule, cfg.chunker) == (1800, "any_overlap", "md-struct-v1")
    assert cfg.eval.k == (1, 5, 10, 20, 50) and cfg.eval.shipped_k == 5
    assert set(cfg.sources.values()) == {"default"}


def test_values_and_sources_from_file_and_flags(root):
    (root / "labeller.toml").write_text("[build]\nmax_chars = 900\n[eval]\nk = [3, 7]\n", encoding="utf-8")
    cfg = load_config(root, hit_rule="span_containment")
    assert cfg.max_chars == 900 and cfg.eval.k == (3, 7) and cfg.hit_rule == "span_containment"
    assert cfg.sources["build.max_chars"] == "labeller.toml"
    assert cfg.sources["eval.k"] == "labeller.toml"
    assert cfg.sources["build.hit_rule"] == "flag --hit-rule"
    assert cfg.sources["eval.seed"] == "default"


def test_a_bad_flag_is_named_as_the_flag_not_the_file(root):
    with pytest.raises(InvalidInput, match="flag --hit-rule: unknown hit rule"):
        Project(load_config(root, hit_rule="nearly"))


def test_directly_built_configs_are_validated_too(tmp_path):
    with pytest.raises(ValueError):
        ProjectConfig(root=tmp_path, corpus=tmp_path / "corpus", max_chars=0)


def test_the_config_file_is_read_like_any_untrusted_file(root, tmp_path):
    target = tmp_path / "elsewhere.toml"
    target.write_text("[build]\nmax_chars = 5\n", encoding="utf-8")
    (root / "labeller.toml").symlink_to(target)
    with pytest.raises(InvalidInput, match="symlink"):
        load_config(root)


def test_layout_names_every_path(root):
    (root / "labeller.toml").write_text('[golden]\nquestions = "labels/q.jsonl"\nout = "built"\n'
                                        '[eval]\nhistory = "h/runs.duckdb"\n', encoding="utf-8")
    lay = load_config(root).layout
    assert isinstance(lay, ProjectLayout)
    assert lay.questions == root / "labels" / "q.jsonl"
    assert lay.review_log == root / "labels" / "reviews.jsonl"
    assert lay.annotation("bob") == root / "labels" / "annotations" / "bob.jsonl"
    assert (lay.artifact, lay.manifest) == (root / "built" / "golden-set.v1.jsonl",
                                            root / "built" / "golden-set.v1.manifest.json")
    assert lay.run_history == root / "h" / "runs.duckdb"
    assert (lay.cache_dir, lay.bm25_index) == (root / ".labeller-cache", root / ".labeller-cache" / "bm25")
    assert lay.journal == root / ".labeller" / "journal.json"
    assert lay.config_file == root / "labeller.toml"


def test_config_show_is_sorted_deterministic_and_says_where_values_came_from(root, capsys):
    (root / "labeller.toml").write_text("[eval]\nshipped_k = 10\nfield_weights = {body = 2.0}\n", encoding="utf-8")
    assert main(["config", "--show", "--root", str(root)]) == 0
    text = capsys.readouterr().out
    assert main(["config", "--show", "--root", str(root)]) == 0
    assert capsys.readouterr().out == text
    assert "shipped_k = 10  # labeller.toml" in text and "seed = 20261129  # default" in text
    assert "field_weights = {body = 2.0}  # labeller.toml" in text
    sections = [line for line in text.splitlines() if line.startswith("[")]
    assert sections == sorted(sections) == ["[build]", "[corpus]", "[eval]", "[golden]", "[limits]", "[retriever]",
                                                    "[traffic]"]

    assert main(["config", "--show", "--format", "json", "--root", str(root), "--corpus", "docs"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["eval"]["shipped_k"] == 10 and out["settings"]["corpus"]["root"] == "docs"
    assert out["sources"]["corpus.root"] == "flag --corpus" and out["sources"]["eval.shipped_k"] == "labeller.toml"
    assert list(out["sources"]) == sorted(out["sources"])


def test_the_scaffolded_labeller_toml_spells_the_defaults(tmp_path, capsys):
    root = tmp_path / "new"
    assert main(["new", str(root)]) == 0
    written = load_config(root)
    assert (root / "labeller.toml").is_file() and written.layout.questions.is_file()
    assert written.effective() == load_config(tmp_path / "no-such-project").effective()
    assert "labeller.toml" in set(written.sources.values())


def test_problems_are_named_with_their_line_and_all_of_them_are_listed(root, capsys):
    (root / "labeller.toml").write_text("# settings\n[build]\nmax_chars = 900\n\n[eval]\nk = [1]\nseed = -1\n",
                                        encoding="utf-8")
    with pytest.raises(InvalidInput) as exc:
        load_config(root)
    assert (exc.value.line, exc.value.reason) == (7, "[eval] seed = -1: must be at least 0")
    (root / "labeller.toml").write_text("[eval]\nseed = -1\nbogus = 2\n[zz]\n", encoding="utf-8")
    assert main(["build", "--check", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    for line, what in ((2, "[eval] seed"), (3, "unknown key 'bogus'"), (4, "unknown section [zz]")):
        assert f"labeller.toml:{line}: {what}" in err


def test_config_layout_and_io_are_the_bottom_layer():
    """core imports config, never the reverse: loading the configuration pulls in no other layer."""
    import subprocess
    import sys

    code = ("import sys, labeller.config, labeller.layout, labeller.io, labeller.errors\n"
            "print(sorted(m for m in sys.modules if m.startswith('labeller.') and m not in\n"
            "     ('labeller.config', 'labeller.layout', 'labeller.io', 'labeller.errors')))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"


# -- bounds within the types (issue 23): labeller.toml comes with the repository -----------

def _int_keys():
    for section, model in SECTIONS.items():
        for key, field in model.model_fields.items():
            if field.annotation is int:
                yield section, key, field


def test_every_whole_number_setting_has_an_upper_bound():
    """A new numeric key without one fails here: a CI job must not be told to run for hours."""
    unbounded = [f"[{s}] {k}" for s, k, f in _int_keys() if not any(isinstance(m, Le) for m in f.metadata)]
    assert not unbounded


@pytest.mark.parametrize("section,key,top", [(s, k, m.le) for s, k, f in _int_keys() for m in f.metadata
                                             if isinstance(m, Le)], ids=lambda v: str(v))
def test_each_bound_is_the_largest_value_accepted(root, section, key, top):
    (root / "labeller.toml").write_text(f"[{section}]\n{key} = {top}\n", encoding="utf-8")
    load_config(root)
    (root / "labeller.toml").write_text(f"[{section}]\n{key} = {top + 1}\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=re.escape(f"[{section}] {key} = {top + 1}: must be at most {top}")):
        load_config(root)


def test_the_heaviest_field_weights_allowed_score_finitely_and_the_run_reads_back(tmp_path, capsys):
    """Weights at the bound keep every BM25 score finite: the report is strict JSON and the
    written run file is one ``eval --run`` accepts (1e308 made them inf)."""
    top = MAX_FIELD_WEIGHT
    root = write_project(tmp_path / "w", {"ops.md": DOC, "other.md": "# Ops keys\n\nKeys rotate; the API is old.\n"},
                         [q("q1", {"doc": "ops.md", "quote": "Rotate the API key"}, query="rotate the ops API key")],
                         toml=f"[eval]\nfield_weights = {{heading = {top}, breadcrumb = {top}, body = {top}}}\n")
    run = tmp_path / "heavy.run"
    argv = ["eval", "--root", str(root), "--format", "json", "--no-history"]
    assert main([*argv, "--write-run", str(run)]) == 0
    report = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(f"{c} in the report"))
    assert report["fingerprint"]["retriever"]["field_weights"] == {"body": top, "breadcrumb": top, "heading": top}
    scores = [float(line.split()[4]) for line in run.read_text().splitlines()]
    assert scores and all(math.isfinite(v) for v in scores)
    assert main([*argv, "--run", str(run)]) == 0


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
def test_json_output_never_holds_a_non_finite_number(bad):
    """Infinity and NaN are not JSON: writing one is refused with where it sits, not printed
    for a strict reader to choke on (nor hidden as null)."""
    with pytest.raises(ValueError, match=r"the number at \.runs\[1\]\.score is not finite"):
        json_dumps({"runs": [{"score": 1.0}, {"score": bad}]}, sort_keys=True)
    assert json_dumps({"runs": [{"score": 1.5}]}) == '{"runs": [{"score": 1.5}]}'


RETRIEVER_BAD = [  # (toml, the key named, the reason, the line)
    ('[retriever.dense]\nmodle = "x"\n', "unknown key 'modle' in [retriever.dense]; keys: model, query_prefix", 2),
    ("[retriever.dense]\nbatch_size = 0\n", "[retriever.dense] batch_size = 0: must be at least 1", 2),
    ("[retriever.fusion]\nk = 0\n", "[retriever.fusion] k = 0: must be at least 1", 2),
    ("[retriever.fusion]\nweights = {dense = nan}\n", "[retriever.fusion] weights", 2),
    ("[retriever]\ndense = 3\n", "[retriever] dense = 3", 2),
]


@pytest.mark.parametrize("toml,message,line", RETRIEVER_BAD, ids=[b[1] for b in RETRIEVER_BAD])
def test_the_retriever_sub_tables_are_checked_naming_the_table_as_written(root, toml, message, line):
    (root / "labeller.toml").write_text(toml, encoding="utf-8")
    with pytest.raises(InvalidInput) as exc:
        load_config(root)
    assert message in str(exc.value) and exc.value.line == line


def test_a_report_is_written_as_it_is_encoded_to_the_bytes_it_renders_to(tmp_path, monkeypatch):
    """``write_report`` streams (pieces smaller than the report) the very text ``render``
    gives; a non-finite number met midway leaves the old file and no temp file behind."""
    from labeller import io
    from labeller.eval import report as rp
    from labeller.eval.report import render, write_report

    sizes: list[int] = []
    monkeypatch.setattr(rp, "atomic_write_chunks", lambda path, chunks: io.atomic_write_chunks(
        path, (sizes.append(len(c)) or c for c in chunks)))
    report = {"queries": [{"query": f"q{i} \u202e", "score": i / 7} for i in range(30000)], "z": [1.5]}
    path = tmp_path / "r.json"
    write_report(path, report)
    assert len(sizes) > 2 and max(sizes) < sum(sizes) / 2
    assert path.read_bytes() == render(report).encode("utf-8") and "\\u202e" in path.read_text()
    report["z"] = [float("nan")]
    with pytest.raises(ValueError, match=r"the number at \.z\[0\] is not finite"):
        write_report(path, report)
    assert path.read_bytes() == render({**report, "z": [1.5]}).encode("utf-8")
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
