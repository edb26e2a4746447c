"""Red-team pass over ``labeller diff``, ``eval --html``, ``judge --verdicts`` and the
``[retriever.*]`` settings, attacked as a fork's pull request would attack them in CI.

Each test is one attack that worked (or would have) before its fix: a planted file that
shadows a revision, a committed symlink or submodule read as the golden set, a folder that
looks like a bare repository, a branch name that is Markdown, a tag that stalls the chart
renderer, a verdicts file that repeats itself, a model folder linking out of the project,
a megabyte prefix embedded with every chunk."""

from __future__ import annotations

import json
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from helpers_interop import cli, cli_json
from test_golden_diff import commit, git, repo  # noqa: F401 - repo is a fixture

# -- labeller diff --------------------------------------------------------------------------


def test_a_planted_file_named_like_a_revision_is_refused_not_diffed(repo, capsys, monkeypatch):  # noqa: F811
    # a pull request commits a file named HEAD holding the questions it wants reviewers to see as the base
    planted = repo / "HEAD"
    planted.write_text((repo / "golden/questions.jsonl").read_text(encoding="utf-8").replace(
        "which animal jumps?", "planted base"), encoding="utf-8")
    monkeypatch.chdir(repo)
    rc, out, err = cli(capsys, "diff", "HEAD", "--root", repo)
    assert rc == 2 and out == "" and "'HEAD' names both a file and the revision" in err
    # either reading is still there, spelled unambiguously
    _, as_file = cli_json(capsys, "diff", "./HEAD", "--root", repo)
    _, as_rev = cli_json(capsys, "diff", "HEAD^{commit}", "--root", repo)
    assert [c["id"] for c in as_file["changes"]] == ["r-fox"] and as_rev["changes"] == []


def _commit_tree_entry(root: Path, mode: str, sha: str, path: str) -> None:
    git(root, "update-index", "--add", "--cacheinfo", f"{mode},{sha},{path}")
    git(root, "commit", "-q", "-m", f"{path} as {mode}")


@pytest.mark.parametrize("what", ["symlink", "submodule", "folder", "symlinked folder"])
def test_a_committed_symlink_or_submodule_is_never_read_as_the_golden_set(repo, capsys, what):  # noqa: F811
    link = subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin"], input=b"/etc/passwd",
                          capture_output=True, check=True).stdout.decode().strip()
    if what == "symlink":
        git(repo, "rm", "-q", "--cached", "golden/questions.jsonl")
        _commit_tree_entry(repo, "120000", link, "golden/questions.jsonl")
    elif what == "submodule":
        git(repo, "rm", "-q", "--cached", "golden/questions.jsonl")
        _commit_tree_entry(repo, "160000", git(repo, "rev-parse", "HEAD").strip(), "golden/questions.jsonl")
    elif what == "folder":
        git(repo, "rm", "-q", "--cached", "golden/questions.jsonl")
        _commit_tree_entry(repo, "100644", link, "golden/questions.jsonl/x")
    else:
        git(repo, "rm", "-rq", "--cached", "golden")
        _commit_tree_entry(repo, "120000", link, "golden")
    rc, out, err = cli(capsys, "diff", "HEAD~1", "HEAD", "--root", repo)
    kind = {"symlink": "a symlink", "submodule": "a submodule", "folder": "a folder",
            "symlinked folder": "a symlink"}[what]
    assert rc == 2 and out == "", out
    assert f"is {kind} in that commit" in err and "labeller reads a revision's files only as committed" in err


def test_a_folder_that_looks_like_a_bare_repository_is_not_read_as_one(tmp_path, capsys):
    """A project outside any clone (an unpacked archive of a fork) holding HEAD, objects/, refs/:
    git would take the folder itself for a bare repository, with the fork's config and refs."""
    from conftest import q, write_project
    root = tmp_path / "unpacked"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "--bare", str(root)], check=True)
    work = tmp_path / "w"
    write_project(work, {"intro.md": "# Intro\n\nThe quick brown fox.\n"},
                  [q("r-1", {"doc": "intro.md", "quote": "quick brown fox"}, query="planted base?")])
    assert cli(capsys, "build", "--root", work)[0] == 0
    env = ["git", f"--git-dir={root}", f"--work-tree={work}", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*env, "add", "-A"], check=True)
    subprocess.run([*env, "commit", "-q", "-m", "planted"], check=True)
    write_project(root, {"intro.md": "# Intro\n\nThe quick brown fox.\n"},
                  [q("r-1", {"doc": "intro.md", "quote": "quick brown fox"}, query="the real question?")])
    rc, out, err = cli(capsys, "diff", "HEAD", "--root", root)
    assert rc == 2 and out == "" and "neither a file nor a revision" in err


def test_git_runs_nothing_the_repository_configures(repo, capsys, tmp_path):  # noqa: F811
    marks = tmp_path / "marks"
    marks.mkdir()
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("post-checkout", "post-index-change", "reference-transaction", "pre-auto-gc"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {marks}/hook-{hook}\n")
        (hooks / hook).chmod(0o755)
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    commit(repo, capsys, "second")  # before the configuration: the test's own git would run it
    for key, value in (("core.fsmonitor", f"touch {marks}/fsmonitor; false"), ("core.pager", f"touch {marks}/pager"),
                       ("filter.evil.smudge", f"touch {marks}/smudge; cat"), ("filter.evil.clean", "cat"),
                       ("diff.evil.textconv", f"touch {marks}/textconv; cat"), ("core.hooksPath", str(hooks)),
                       ("core.sshCommand", f"touch {marks}/ssh"), ("alias.cat-file", f"!touch {marks}/alias")):
        git(repo, "config", key, value)
    assert cli(capsys, "diff", "HEAD~1", "HEAD", "--root", repo)[0] == 0
    assert cli(capsys, "diff", "--root", repo)[0] == 0
    assert sorted(p.name for p in marks.iterdir()) == []


def test_a_branch_name_in_the_markdown_headline_is_text(repo, capsys):  # noqa: F811
    # a fork's branch may be called "<details>" or "`x`|y" (git allows both); workflows pass github.head_ref
    git(repo, "branch", "<details>`x`|y")
    rc, out, _ = cli(capsys, "diff", "<details>`x`|y", "HEAD", "--root", repo, "--format", "markdown")
    assert rc == 0 and "<details>" not in out and "`x`" not in out
    assert out.startswith("### labeller diff: \\<details\\>\\`x\\`\\|y")


# -- eval --html ----------------------------------------------------------------------------


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of every SVG ``<text>``."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[str] = []
        self._in_text = False
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_text = tag == "text"

    def handle_endtag(self, tag):
        self._in_text = False

    def handle_data(self, data):
        if self._in_text:
            self.texts.append(data)


def _html_page(tmp_path, capsys, extra_docs: dict, extra_questions: list) -> str:
    from test_eval_cli import facts_project
    root = facts_project(tmp_path, extra_docs=extra_docs, extra_questions=extra_questions)
    out = tmp_path / "r.html"
    rc, _, err = cli(capsys, "eval", "--root", root, "--no-history", "--html", out)
    assert rc == 0, err
    return out.read_text(encoding="utf-8")


def test_a_huge_tag_is_cut_on_the_chart_and_two_alike_stay_two_bars(tmp_path, capsys):
    """Vega lays out a label at a cost growing with its length: a 300,000-character tag (a
    1 MiB questions file allows it) did not render in 10 minutes, stalling the CI job."""
    long_a, long_b = "w" * 5000 + "A", "w" * 5000 + "B"
    extra = [{"id": f"t{i}", "query": f"which ridge holds alpha0{i}", "expected_answer": "x", "tags": [tag],
              "locators": [{"doc": f"doc0{i}.md", "quote": f"alpha0{i}"}]} for i, tag in enumerate((long_a, long_b))]
    page = _html_page(tmp_path, capsys, {}, extra)
    chart = page[page.index('id="chart-tag"'):]
    chart = chart[:chart.index("</figure>")]
    bars = [a["aria-label"] for t, a in Elements(chart).tags if a.get("aria-roledescription") == "bar"
            and "www" in (a.get("aria-label") or "")]
    assert len(bars) == 2 and len(set(bars)) == 2, bars  # two bars, told apart
    assert all(len(b) < 300 and "more characters" in b for b in bars)
    assert "w" * 200 not in chart  # no attribute or text holds the tag whole
    assert long_a in page and long_b in page  # the per-query table keeps the tags whole


def test_doc_paths_headings_and_line_separators_from_the_repository_stay_text(tmp_path, capsys):
    name = "x<img src=x onerror=alert(1)>'\".md"
    doc = ("# <svg onload=alert(2)> javascript:alert(3) \u2028 \u202e\n\n"
           "The kestrel omega nests on the far ridge.</script><a href=\"javascript:alert(4)\">x</a>\u2029\n")
    evil = {"id": "evil</td><script>", "query": "which ridge does omega nest on \u2028 <a href=javascript:alert(5)>",
            "expected_answer": "x", "tags": ["</script>"], "locators": [{"doc": name, "quote": "omega nests"}]}
    page = _html_page(tmp_path, capsys, {name: doc}, [evil])
    parsed = Elements(page)
    assert [t for t, _ in parsed.tags].count("script") == 1
    assert not [t for t, _ in parsed.tags if t in ("img", "a")]
    assert not [(t, a) for t, a in parsed.tags if any(k.startswith("on") or "javascript:" in (v or "")
                                                       for k, v in a.items())]
    assert not any(ch in page for ch in "\u2028\u2029\u202e")  # shown as escapes, never obeyed
    assert "evil&lt;/td&gt;&lt;script&gt;" in page and "&lt;a href=javascript:alert(5)&gt;" in page


# -- [retriever.dense] and [retriever.fusion] from a fork's labeller.toml --------------------


def _small_project(tmp_path, toml: str) -> Path:
    from conftest import q, write_project
    return write_project(tmp_path / "proj", {"a.md": "# A\n\nThe quick brown fox.\n"},
                         [q("r-1", {"doc": "a.md", "quote": "quick brown fox"})], toml)


@pytest.mark.parametrize("key", ["query_prefix", "passage_prefix"])
def test_a_megabyte_prefix_is_refused_when_the_project_opens(tmp_path, capsys, key):
    """Copied before each of 10,000 chunks, a 1 MB passage prefix is 10 GB of text to embed; no
    instruction is that long. Checked with the configuration, so no model (or torch) is needed."""
    root = _small_project(tmp_path, f'[retriever.dense]\n{key} = "{"x" * 1001}"\n')
    rc, out, err = cli(capsys, "build", "--check", "--root", root)
    assert rc == 2 and out == "" and key in err and "at most 1000 characters" in err
    assert len(err) < 2500  # the prefix is not echoed whole
    ok = _small_project(tmp_path / "ok", f'[retriever.dense]\n{key} = "{"x" * 1000}"\n')
    assert cli(capsys, "build", "--root", ok)[0] == 0


def test_a_batch_size_that_would_hold_gigabytes_is_refused(tmp_path, capsys):
    """About 4 MB a text in a batch (all-MiniLM-L6-v2, CPU: 0.8 GB at 32, 2.8 GB at 512): the old
    ceiling of 4096 let a fork's labeller.toml ask for some 16 GB."""
    from labeller.config import MAX_DENSE_BATCH
    root = _small_project(tmp_path, f"[retriever.dense]\nbatch_size = {MAX_DENSE_BATCH + 1}\n")
    rc, _, err = cli(capsys, "build", "--check", "--root", root)
    assert rc == 2 and "batch_size" in err and MAX_DENSE_BATCH == 256
    ok = _small_project(tmp_path / "ok", f"[retriever.dense]\nbatch_size = {MAX_DENSE_BATCH}\n")
    assert cli(capsys, "build", "--root", ok)[0] == 0


@pytest.mark.parametrize("weights", ["bm25 = inf", "bm25 = 1e308", "bm25 = -1", "bm25 = nan"])
def test_fusion_weights_that_are_not_finite_bounded_numbers_are_refused(tmp_path, capsys, weights):
    root = _small_project(tmp_path, f"[retriever.fusion]\nk = 60\n[retriever.fusion.weights]\n{weights}\n")
    rc, _, err = cli(capsys, "build", "--check", "--root", root)
    assert rc == 2 and "weight of member 'bm25'" in err


def _project_model(tmp_path) -> tuple[Path, Path]:
    """A project naming a model folder of its own (files only: nothing here loads it)."""
    root = _small_project(tmp_path, '[retriever.dense]\nmodel = "models/m"\n')
    model = root / "models/m"
    (model / "1_Pooling").mkdir(parents=True)
    (model / "config.json").write_text("{}")
    (model / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]))
    (model / "1_Pooling/config.json").write_text("{}")
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "config.json").write_text('{"secret": "runner token"}')
    return root, secret


@pytest.mark.parametrize("link", ["1_Pooling", ".hidden"])
def test_a_linked_folder_in_a_project_model_is_refused(tmp_path, link):
    """os.walk does not enter a linked folder, so only linked files were refused; the model's
    loader would still read 1_Pooling/config.json through the link, from outside the project."""
    from labeller.errors import InvalidInput
    from labeller.eval.retrievers.dense import model_fingerprint
    root, secret = _project_model(tmp_path)
    target = root / "models/m" / link
    if target.exists():
        for f in target.iterdir():
            f.unlink()
        target.rmdir()
    target.symlink_to(secret, target_is_directory=True)
    with pytest.raises(InvalidInput, match=f"{link} in .* is a symlink"):
        model_fingerprint(root / "models/m", untrusted=True)


@pytest.mark.parametrize("path", [".hidden", "1_Pooling/.x"])
def test_a_project_model_module_in_a_hidden_folder_is_refused(tmp_path, path):
    """A module lives in a plain folder of the model, as sentence-transformers saves it (hidden
    folders are in the fingerprint too now: ``test_hidden_files_of_a_model_are_in_its_fingerprint``)."""
    from labeller.config import load_config
    from labeller.core.project import Project
    from labeller.errors import InvalidInput
    from labeller.eval.retrievers.dense import Encoder
    root, _ = _project_model(tmp_path)
    modules = root / "models/m/modules.json"
    listed = json.loads(modules.read_text())
    listed[1]["path"] = path
    modules.write_text(json.dumps(listed))
    with pytest.raises(InvalidInput, match="modules.json: module 1: path .* is not a plain folder name of the model"):
        Encoder(Project(load_config(root)))


# -- labeller pool / judge --pool --verdicts ------------------------------------------------


@pytest.fixture
def pooled(tmp_path, capsys) -> tuple[Path, Path, list[dict]]:
    """A project, its pool (two unjudged chunks of one question) and the pool's lines."""
    from conftest import q, write_project
    root = write_project(tmp_path / "proj", {"a.md": "# A\n\nhello world.\n", "b.md": "# B\n\nhello there world.\n",
                                             "c.md": "# C\n\nworld hello world.\n"},
                         [q("x1", {"doc": "a.md", "quote": "hello world"}, query="hello world")])
    pool = tmp_path / "pool.jsonl"
    rc, _, err = cli(capsys, "pool", "--root", root, "--depth", "5", "--out", pool)
    assert rc == 0, err
    entries = [json.loads(line) for line in pool.read_text(encoding="utf-8").splitlines()]
    assert len(entries) == 2
    return root, pool, entries


def _judge(capsys, root: Path, pool: Path, verdicts: Path, *extra: str) -> tuple[int, str, str]:
    return cli(capsys, "judge", "--root", root, "--pool", pool, "--verdicts", verdicts, "--judge", "ann", *extra)


def _verdict(entry: dict, relevant: bool = True) -> str:
    return json.dumps({"query_id": entry["query_id"], "chunk_id": entry["chunk_id"], "relevant": relevant}) + "\n"


def test_a_second_verdict_on_the_same_chunk_is_refused_naming_both_lines(pooled, capsys, tmp_path):
    """Repeated, one line made a judgment each: 10^6 copies of one verdict took 144 s and 2.4 GB
    and reported "recorded 1000000 judgment(s)"; contradicting copies kept the last silently."""
    root, pool, entries = pooled
    verdicts = tmp_path / "v.jsonl"
    verdicts.write_text(_verdict(entries[0]) + _verdict(entries[1]) + _verdict(entries[0], relevant=False))
    rc, out, err = _judge(capsys, root, pool, verdicts)
    assert rc == 2 and out == "" and f"{verdicts}:3" in err and "verdict on line 1 already" in err
    assert not (root / "golden/judgments.jsonl").exists()


def test_a_pool_line_with_a_range_a_slice_would_accept_is_invalid_input(pooled, capsys, tmp_path):
    """start -19, end 24 on a 24-character document: text[-19:24] is the chunk's text, so the
    pool looked current, and the judgment's locator then failed inside labeller (exit 3)."""
    root, pool, entries = pooled
    doc_len = len((root / "corpus" / entries[0]["doc"]).read_text(encoding="utf-8"))
    forged = tmp_path / "forged.jsonl"
    forged.write_text(json.dumps(dict(entries[0], start=entries[0]["start"] - doc_len)) + "\n")
    verdicts = tmp_path / "v.jsonl"
    verdicts.write_text(_verdict(entries[0]))
    rc, _, err = _judge(capsys, root, forged, verdicts)
    assert rc == 2 and f"{forged}:1" in err and "0 <= start <= end" in err
    assert not (root / "golden/judgments.jsonl").exists()


def test_a_committed_judgments_file_of_newlines_is_refused_before_it_is_read(pooled, capsys, monkeypatch):
    """8 MB of newlines in golden/judgments.jsonl made build --check take 67 s and 1.7 GB; the
    64 MiB byte bound allowed eight times that. Lines are counted (in C) before any is parsed."""
    from labeller.core import judgments
    root, _, _ = pooled
    monkeypatch.setattr(judgments, "JUDGMENTS_MAX_LINES", 10)
    path = root / "golden/judgments.jsonl"
    path.write_text("\n" * 10)
    assert cli(capsys, "build", "--check", "--root", root)[0] in (0, 1)  # at the bound: read
    path.write_text("\n" * 11)
    rc, out, err = cli(capsys, "build", "--check", "--root", root)
    assert rc == 2 and "judgments file has 11 lines, over the bound of 10" in err


def test_a_verdicts_or_pool_file_over_the_line_bound_is_refused(pooled, capsys, tmp_path, monkeypatch):
    from labeller.commands import judge
    from labeller.eval import pooling
    root, pool, entries = pooled
    monkeypatch.setattr(judge, "POOL_MAX_LINES", 3)
    monkeypatch.setattr(pooling, "POOL_MAX_LINES", 3)
    verdicts = tmp_path / "v.jsonl"
    verdicts.write_text(_verdict(entries[0]) + "\n" * 3)
    rc, _, err = _judge(capsys, root, pool, verdicts)
    assert rc == 2 and "verdicts file has 4 lines, over the bound of 3" in err
    pool.write_text(pool.read_text() + "\n\n")
    verdicts.write_text(_verdict(entries[0]))
    rc, _, err = _judge(capsys, root, pool, verdicts)
    assert rc == 2 and "pool file has 4 lines, over the bound of 3" in err
    assert not (root / "golden/judgments.jsonl").exists()


@pytest.mark.parametrize("line, reason", [
    ('{"query_id": "x1", "chunk_id": 7, "relevant": true}', "chunk_id: Input should be a valid string"),
    ('{"query_id": "x1", "chunk_id": "c", "relevant": NaN}', "the number NaN is not JSON"),
    ('{"query_id": "x1", "query_id": "x2", "chunk_id": "c", "relevant": true}', "duplicate key"),
    ('{"query_id": "x1", "chunk_id": "c", "relevant": "yes"}', "relevant: Input should be a valid boolean"),
    ('[1, 2]', "a verdict is {query_id, chunk_id, relevant, note?}"),
    ('{"query_id": "x1", "chunk_id": "' + "C" * 3_000_000 + '", "relevant": true}', "is not in the pool"),
], ids=["wrong-type", "nan", "duplicate-key", "string-bool", "not-an-object", "3-MB-id"])
def test_a_hostile_verdict_line_is_one_bounded_error_with_file_and_line(pooled, capsys, tmp_path, line, reason):
    root, pool, entries = pooled
    verdicts = tmp_path / "v.jsonl"
    verdicts.write_text(_verdict(entries[0]) + line + "\n")
    rc, out, err = _judge(capsys, root, pool, verdicts)
    assert rc == 2 and out == "" and f"{verdicts}:2" in err and reason in err, err[:500]
    assert len(err) < 2500 and "Traceback" not in err
    assert not (root / "golden/judgments.jsonl").exists()


def test_a_judge_name_with_controls_or_a_pool_out_that_is_a_link_or_fifo_writes_nothing(pooled, capsys, tmp_path):
    import os
    root, pool, entries = pooled
    verdicts = tmp_path / "v.jsonl"
    verdicts.write_text(_verdict(entries[0]))
    rc, _, err = cli(capsys, "judge", "--root", root, "--pool", pool, "--verdicts", verdicts,
                     "--judge", "ann\x1b[31m[bold]")
    assert rc == 2 and "printable characters" in err and "\x1b" not in err
    secret = tmp_path / "elsewhere.txt"
    secret.write_text("keep")
    link = tmp_path / "link.jsonl"
    link.symlink_to(secret)
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    for target in (link, fifo):
        rc, _, err = cli(capsys, "pool", "--root", root, "--depth", "5", "--out", target)
        assert rc == 2 and "not a regular file" in err
    assert secret.read_text() == "keep" and fifo.is_fifo() and not (root / "golden/judgments.jsonl").exists()


def test_a_committed_judge_name_is_printed_cut_and_inert(pooled, capsys):
    """golden/judgments.jsonl comes with the pull request; its judge names are not checked as a
    --judge name is, and `judge --agreement` printed a 100,000-character one whole."""
    root, _, entries = pooled
    text = (root / "corpus" / entries[0]["doc"]).read_text(encoding="utf-8")[entries[0]["start"]:entries[0]["end"]]
    hostile = "\x1b[31m[bold]" + "J" * 100_000
    (root / "golden/judgments.jsonl").write_text("".join(json.dumps(
        {"query_id": "x1", "doc": entries[0]["doc"], "quote": text.strip(), "relevant": True, "judge": judge}) + "\n"
        for judge in ("ann", hostile)))
    rc, out, _ = cli(capsys, "judge", "--agreement", "--root", root)
    assert rc == 0 and "vs" in out and len(out) < 1000 and "\x1b" not in out and "more characters" in out


def test_a_revisions_questions_over_the_bound_are_refused_by_size_before_reading(repo, capsys):  # noqa: F811
    size = len((repo / "golden/questions.jsonl").read_bytes())
    (repo / "labeller.toml").write_text(f"[limits]\nmax_file_bytes = {size - 1}\n")
    rc, out, err = cli(capsys, "diff", "HEAD", "HEAD", "--root", repo)
    assert rc == 2 and out == "" and f"is {size:,} bytes, over the bound of {size - 1:,}" in err


def test_a_link_in_the_working_tree_does_not_choose_which_committed_file_is_read(repo, capsys):  # noqa: F811
    """``golden -> decoy`` committed: a revision was read at decoy/questions.jsonl (the link
    followed in the working tree), so the diff showed the decoy's records, not the golden set's."""
    import shutil
    decoy = repo / "decoy"
    shutil.copytree(repo / "golden", decoy)
    shutil.rmtree(repo / "golden")
    (repo / "golden").symlink_to("decoy", target_is_directory=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "golden is a link")
    rc, out, err = cli(capsys, "diff", "HEAD~1", "HEAD", "--root", repo)
    assert rc == 2 and out == "" and "golden is a symlink in that commit" in err
