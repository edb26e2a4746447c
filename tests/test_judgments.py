"""Pooling, judgments and judged@k (issue 28, SPEC §11) on the bundled handbook with labels removed.

The bundled set is copied to tmp_path without its judgments and one locator is dropped from every
question that has several: the incompleteness every real golden set has. Everything the tool says is checked
against a computation written here from the chunks' offsets and the label spans alone.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import REPO

from labeller.cli import main
from labeller.config import load_config
from labeller.core.build import build
from labeller.core.judgments import Judgment, load_judgments, parse_judgments, resolve_judgments
from labeller.core.merge3 import merge_bytes
from labeller.core.project import Project
from labeller.diagnostics import markdown_cell
from labeller.errors import InvalidInput
from labeller.eval.chunkset import load_chunk_set
from labeller.eval.retrievers import make_retriever
from labeller.eval.runner import run_eval

KS = (1, 5, 10)
DEPTH = 10


def overlaps(chunk, place) -> bool:
    """any_overlap (SPEC §5.1), written out: same document, the ranges share a character."""
    return chunk.doc_id == place[0] and chunk.start < place[2] and place[1] < chunk.end


def copy_bundled(root: Path) -> Path:
    """The bundled handbook without the judgments it ships: these tests judge a pool of their own."""
    root.mkdir()
    shutil.copytree(REPO / "corpus", root / "corpus")
    shutil.copytree(REPO / "golden", root / "golden")
    (root / "golden" / "judgments.jsonl").unlink(missing_ok=True)
    return root


def drop_locators(root: Path) -> dict[str, dict]:
    """Drop the last locator of every record with several (a multi-hop record left with one
    becomes single-hop); the dropped locators by record id."""
    path = root / "golden" / "questions.jsonl"
    out, dropped = [], {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("{"):
            rec = json.loads(line)
            if len(rec["locators"]) > 1:
                dropped[rec["id"]] = rec["locators"].pop()
                if len(rec["locators"]) < 2:
                    rec.pop("hop", None)
            line = json.dumps(rec, ensure_ascii=False)
        out.append(line)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return dropped


def project(root: Path) -> Project:
    return Project(load_config(root))


def label_places(proj: Project) -> dict[str, list[tuple[str, int, int]]]:
    built = build(proj, proj.load_questions().questions)
    assert built.ok
    return {r.question.id: [(s.doc_id, s.start, s.end) for s in r.spans] for r in built.records}


@pytest.fixture(scope="module")
def judged_set(tmp_path_factory):
    """The full set, the reduced copy, its pool, and the verdicts recorded for the pool."""
    base = tmp_path_factory.mktemp("judged")
    full = copy_bundled(base / "full")
    reduced = copy_bundled(base / "reduced")
    dropped = drop_locators(reduced)
    full_spans = label_places(project(full))
    proj = project(reduced)
    kept_spans = label_places(proj)
    removed = {qid: [p for p in full_spans[qid] if p not in kept_spans[qid]] for qid in dropped}
    before = run_eval(proj, ks=KS)
    pool_path = base / "pool.jsonl"
    assert main(["pool", "--root", str(reduced), "--depth", str(DEPTH), "--out", str(pool_path)]) == 0
    pool = [json.loads(line) for line in pool_path.read_text(encoding="utf-8").splitlines()]
    chunk = {c.chunk_id: c for c in proj.all_chunks}
    verdicts = base / "verdicts.jsonl"
    verdicts.write_text("".join(json.dumps({
        "query_id": e["query_id"], "chunk_id": e["chunk_id"],
        "relevant": any(overlaps(chunk[e["chunk_id"]], p) for p in removed.get(e["query_id"], []))}) + "\n"
        for e in pool), encoding="utf-8")
    assert main(["judge", "--root", str(reduced), "--pool", str(pool_path), "--verdicts", str(verdicts),
                 "--judge", "ann"]) == 0
    after = run_eval(project(reduced), ks=KS)
    return {"full": full, "reduced": reduced, "dropped": dropped, "removed": removed, "kept": kept_spans,
            "before": before, "after": after, "pool": pool, "pool_path": pool_path, "verdicts": verdicts,
            "chunk": chunk}


def test_some_labels_were_removed_and_retrieved(judged_set):
    assert len(judged_set["dropped"]) >= 5
    assert all(len(v) == 1 for v in judged_set["removed"].values())


def test_pool_is_exactly_the_unlabelled_retrieved_chunks(judged_set):
    before, kept, chunk = judged_set["before"], judged_set["kept"], judged_set["chunk"]
    scored = {s.query_id for s in before.scores}
    expected = {(qid, h.chunk_id) for qid in scored for h in before.hits[qid][:DEPTH]
                if not any(overlaps(chunk[h.chunk_id], p) for p in kept[qid])}
    pool = judged_set["pool"]
    assert {(e["query_id"], e["chunk_id"]) for e in pool} == expected
    assert len(pool) == len(expected)  # one line per (question, chunk)
    for e in pool:
        c = chunk[e["chunk_id"]]
        rank = [h.chunk_id for h in before.hits[e["query_id"]]].index(e["chunk_id"]) + 1
        assert (e["doc"], e["start"], e["end"], e["text"], e["systems"], e["best_rank"]) == (
            c.doc_id, c.start, c.end, c.text, ["bm25"], rank)


def test_pool_is_deterministic(judged_set, tmp_path):
    again = tmp_path / "again.jsonl"
    reduced = judged_set["reduced"]
    # the judgments now cover the whole pool: a fresh pool of the same depth is empty
    assert main(["pool", "--root", str(reduced), "--depth", str(DEPTH), "--out", str(again)]) == 0
    assert again.read_text(encoding="utf-8") == ""
    saved = reduced / "golden" / "judgments.jsonl"
    moved = tmp_path / "judgments.jsonl"
    shutil.move(saved, moved)
    try:
        assert main(["pool", "--root", str(reduced), "--depth", str(DEPTH), "--out", str(again)]) == 0
        assert again.read_bytes() == judged_set["pool_path"].read_bytes()
    finally:
        shutil.move(moved, saved)


def test_judged_at_k_matches_an_independent_count(judged_set):
    before, kept, chunk = judged_set["before"], judged_set["kept"], judged_set["chunk"]
    rows = {q["query_id"]: q for q in before.report["queries"]}
    per_k = {k: [] for k in KS}
    for s in before.scores:
        ranked = [h.chunk_id for h in before.hits[s.query_id]]
        for k in KS:
            judged = sum(1 for cid in ranked[:k] if any(overlaps(chunk[cid], p) for p in kept[s.query_id]))
            per_k[k].append(judged / k)
            assert rows[s.query_id]["chunk"][f"judged@{k}"] == pytest.approx(judged / k, abs=1e-6)
    for k in KS:
        assert before.report["aggregate"]["chunk"][f"judged@{k}"]["value"] == pytest.approx(
            sum(per_k[k]) / len(per_k[k]), abs=1e-6)
    shipped = before.report["config"]["shipped_k"]
    diag = next(d for d in before.report["diagnostics"] if d["check"] == "judged")
    assert diag["status"] == ("warn" if per_k[shipped] and sum(per_k[shipped]) / len(per_k[shipped]) < 0.9 else "ok")


def test_judging_the_pool_makes_judged_at_depth_one(judged_set):
    after = judged_set["after"]
    for s in after.scores:
        n = len(after.hits[s.query_id])
        for k in KS:
            assert s.chunk[f"judged@{k}"] == pytest.approx(min(n, k) / k)
    assert after.report["config"]["judgments"]["stale"] == 0
    assert after.report["config"]["judgments"]["resolved"] == len(judged_set["pool"])


def test_recall_with_judgments_equals_recall_on_the_completed_labels(judged_set):
    """Where the removed span is reachable by judging (exactly one chunk of the corpus overlaps
    it, that chunk is in the top DEPTH and no kept label covers it), the judged-relevant chunk
    stands in for the removed label: recall equals the full set's. Elsewhere the pool cannot
    know about it (never retrieved) and recall differs — which is why judged@k is reported."""
    full = run_eval(project(judged_set["full"]), ks=KS)
    after, before = judged_set["after"], judged_set["before"]
    full_rows = {s.query_id: s for s in full.scores}
    after_rows = {s.query_id: s for s in after.scores}
    before_rows = {s.query_id: s for s in before.scores}
    chunks = list(judged_set["chunk"].values())
    reachable = []
    for qid, (place,) in judged_set["removed"].items():
        if qid not in after_rows:
            continue  # holdout
        touching = [c for c in chunks if overlaps(c, place)]
        top = [h.chunk_id for h in before.hits[qid][:DEPTH]]
        if len(touching) == 1 and touching[0].chunk_id in top and not any(
                overlaps(touching[0], p) for p in judged_set["kept"][qid]):
            reachable.append(qid)
    assert reachable
    changed = 0
    for qid in reachable:
        for k in KS:
            assert after_rows[qid].chunk[f"recall@{k}"] == pytest.approx(full_rows[qid].chunk[f"recall@{k}"])
        changed += any(before_rows[qid].chunk[f"recall@{k}"] != full_rows[qid].chunk[f"recall@{k}"] for k in KS)
    assert changed  # the removal made a difference that the judgments repaired
    untouched = set(after_rows) - set(judged_set["removed"])
    for qid in untouched:  # judged-irrelevant chunks change no recall
        assert after_rows[qid].chunk == pytest.approx(before_rows[qid].chunk | {
            f"judged@{k}": after_rows[qid].chunk[f"judged@{k}"] for k in KS})


def test_promoted_judgments_score_like_the_judgments(judged_set, tmp_path):
    """``--promote`` turns the relevant verdicts into locators: the same numbers, now as labels."""
    root = copy_bundled(tmp_path / "promoted")
    shutil.copy(judged_set["reduced"] / "golden" / "questions.jsonl", root / "golden" / "questions.jsonl")
    assert main(["judge", "--root", str(root), "--pool", str(judged_set["pool_path"]), "--verdicts",
                 str(judged_set["verdicts"]), "--judge", "ann", "--promote"]) == 0
    promoted = run_eval(project(root), ks=KS)
    after = {s.query_id: s.chunk for s in judged_set["after"].scores}
    for s in promoted.scores:
        assert {k: v for k, v in s.chunk.items() if not k.startswith("judged@")} == pytest.approx(
            {k: v for k, v in after[s.query_id].items() if not k.startswith("judged@")})


def test_judgments_survive_a_change_of_chunker(judged_set, tmp_path):
    root = copy_bundled(tmp_path / "rechunked")
    shutil.copy(judged_set["reduced"] / "golden" / "questions.jsonl", root / "golden" / "questions.jsonl")
    shutil.copy(judged_set["reduced"] / "golden" / "judgments.jsonl", root / "golden" / "judgments.jsonl")
    (root / "labeller.toml").write_text('[build]\nchunker = "recursive-v1"\nmax_chars = 600\n', encoding="utf-8")
    proj = project(root)
    old = {(c.doc_id, c.start, c.end) for c in judged_set["chunk"].values()}
    assert len(old & {(c.doc_id, c.start, c.end) for c in proj.all_chunks}) < len(old) / 2  # most chunks moved
    jset = resolve_judgments(proj, load_judgments(proj), [q.id for q in proj.load_questions().questions])
    assert not jset.stale and len(jset.resolved) == len(judged_set["pool"])
    result = run_eval(proj, ks=KS)
    kept = label_places(proj)
    chunk = {c.chunk_id: c for c in proj.all_chunks}
    for s in result.scores:
        places = kept[s.query_id] + [tuple(r.place) for r in jset.of(s.query_id)]
        ranked = [h.chunk_id for h in result.hits[s.query_id]]
        for k in KS:
            judged = sum(1 for cid in ranked[:k] if any(overlaps(chunk[cid], p) for p in places))
            assert s.chunk[f"judged@{k}"] == pytest.approx(judged / k)


def test_condensed_drops_unjudged_chunks_first(judged_set):
    proj = project(judged_set["reduced"])
    condensed = run_eval(proj, ks=KS, condensed=True)
    after = judged_set["after"]
    jset = resolve_judgments(proj, load_judgments(proj), [q.id for q in proj.load_questions().questions])
    for qid, hits in condensed.hits.items():
        if qid not in {s.query_id for s in condensed.scores}:
            continue
        places = judged_set["kept"][qid] + [tuple(r.place) for r in jset.of(qid)]
        expected = [h.chunk_id for h in after.hits[qid]
                    if any(overlaps(judged_set["chunk"][h.chunk_id], p) for p in places)]
        assert [h.chunk_id for h in hits] == expected
    assert condensed.report["config"]["condensed"] is True
    assert condensed.report["fingerprint"]["condensed"] is True


def test_stale_judgment_is_shown_by_build_check(judged_set, tmp_path, capsys):
    root = copy_bundled(tmp_path / "stale")
    shutil.copy(judged_set["reduced"] / "golden" / "questions.jsonl", root / "golden" / "questions.jsonl")
    shutil.copy(judged_set["reduced"] / "golden" / "judgments.jsonl", root / "golden" / "judgments.jsonl")
    assert main(["build", "--root", str(root)]) == 0
    assert main(["build", "--root", str(root), "--check"]) == 0
    first = json.loads((root / "golden" / "judgments.jsonl").read_text(encoding="utf-8").splitlines()[0])
    doc = root / "corpus" / first["doc"]
    text = doc.read_text(encoding="utf-8")
    word = first["quote"].split()[2]
    doc.write_text(text.replace(first["quote"], first["quote"].replace(word, word + "X", 1), 1), encoding="utf-8")
    assert main(["build", "--root", str(root)]) == 0  # the labels still build: the artifact is up to date
    capsys.readouterr()
    assert main(["build", "--root", str(root), "--check", "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["drift"]["ok"] is True and out["ok"] is False
    assert [(s["id"], s["kind"], s["line"]) for s in out["stale_judgments"]][:1] == [(first["query_id"], "not_found", 1)]
    assert main(["build", "--root", str(root), "--check", "--format", "markdown"]) == 1
    md = capsys.readouterr().out
    assert md.startswith("### labeller build --check: stale judgments\n") and "stale judgment(s)" in md
    assert "up to date" not in md
    # a broken label beside it: the check is refused, and the stale judgment is still listed
    with (root / "golden" / "questions.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"id": "broken", "query": "a question whose quote is gone?", "expected_answer": "x",
                            "locators": [{"quote": "no such words anywhere in this corpus"}]}) + "\n")
    assert main(["build", "--root", str(root), "--check", "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert [e["id"] for e in out["errors"]] == ["broken"]
    assert [s["id"] for s in out["stale_judgments"]][:1] == [first["query_id"]]
    assert main(["build", "--root", str(root), "--check", "--format", "markdown"]) == 1
    assert "stale judgment(s)" in capsys.readouterr().out
    assert main(["build", "--root", str(root), "--check"]) == 1
    assert "stale judgments:" in capsys.readouterr().err


def test_judge_refuses_a_verdict_outside_the_pool(judged_set, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"query_id": "hb-001", "chunk_id": "0" * 64, "relevant": True}) + "\n")
    before = (judged_set["reduced"] / "golden" / "judgments.jsonl").read_bytes()
    assert main(["judge", "--root", str(judged_set["reduced"]), "--pool", str(judged_set["pool_path"]),
                 "--verdicts", str(bad), "--judge", "ann"]) == 2
    assert (judged_set["reduced"] / "golden" / "judgments.jsonl").read_bytes() == before


def test_judgments_file_refuses_bad_lines(tmp_path):
    good = {"query_id": "q1", "doc": "a.md", "quote": "text", "relevant": True, "judge": "ann"}
    data = "\n".join([json.dumps(good), json.dumps(good), json.dumps({**good, "relevant": "yes"}),
                      json.dumps({**good, "quote": "  "})]) + "\n"
    with pytest.raises(InvalidInput) as exc:
        parse_judgments(data, tmp_path / "judgments.jsonl")
    assert [d["line"] for d in exc.value.details] == [2, 3, 4]


def test_merge_driver_keys_judgments_like_the_file_does():
    a = Judgment(query_id="q1", doc="a.md", quote="text", relevant=True, judge="ann")
    b = Judgment(query_id="q1", doc="a.md", quote="text", relevant=False, judge="bob")
    base = a.line() + "\n"
    ours = base + b.line() + "\n"
    theirs = a.model_copy(update={"relevant": False}).line() + "\n"
    merged = merge_bytes(base.encode(), ours.encode(), theirs.encode(), names=("base", "ours", "theirs"))
    assert not merged.conflicts
    assert merged.text == theirs + b.line() + "\n"


def test_two_judges_agreement(judged_set, tmp_path, capsys):
    root = copy_bundled(tmp_path / "two")
    shutil.copy(judged_set["reduced"] / "golden" / "questions.jsonl", root / "golden" / "questions.jsonl")
    lines = judged_set["verdicts"].read_text(encoding="utf-8").splitlines()
    flipped = tmp_path / "bob.jsonl"
    # bob disagrees on the first three verdicts
    flipped.write_text("".join(json.dumps({**v, "relevant": not v["relevant"]} if i < 3 else v) + "\n"
                               for i, v in enumerate(map(json.loads, lines))), encoding="utf-8")
    for judge, path in (("ann", judged_set["verdicts"]), ("bob", flipped)):
        assert main(["judge", "--root", str(root), "--pool", str(judged_set["pool_path"]), "--verdicts", str(path),
                     "--judge", judge]) == 0
    capsys.readouterr()
    assert main(["judge", "--root", str(root), "--agreement", "--format", "json"]) == 0
    (pair,) = json.loads(capsys.readouterr().out)["pairs"]
    ann = [json.loads(v)["relevant"] for v in lines]
    bob = [not r if i < 3 else r for i, r in enumerate(ann)]
    n = len(ann)
    p_o = sum(a == b for a, b in zip(ann, bob)) / n
    pa, pb = sum(ann) / n, sum(bob) / n
    p_e = pa * pb + (1 - pa) * (1 - pb)
    assert pair["items"] == n and pair["observed"] == pytest.approx(p_o, abs=1e-4)
    assert pair["kappa"] == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-4)


def test_promote_onto_a_read_only_questions_file_writes_nothing(judged_set, tmp_path):
    root = copy_bundled(tmp_path / "readonly")
    questions = root / "golden" / "questions.jsonl"
    shutil.copy(judged_set["reduced"] / "golden" / "questions.jsonl", questions)
    questions.chmod(0o444)
    try:
        assert main(["judge", "--root", str(root), "--pool", str(judged_set["pool_path"]), "--verdicts",
                     str(judged_set["verdicts"]), "--judge", "ann", "--promote"]) == 2
    finally:
        questions.chmod(0o644)
    assert not (root / "golden" / "judgments.jsonl").exists()


def test_each_breakdown_group_has_judged_at_k_and_the_floor(judged_set, tmp_path, capsys, monkeypatch):
    """Judgments of the dev split only: the whole is partly judged, dev well, test barely. Each
    split, tag and hop group gets judged@k, the mean of its queries' own (read from the report's
    per-query rows, grouped here), and the 0.9 floor is applied per group; without judgments
    the breakdowns are as before."""
    monkeypatch.setenv("COLUMNS", "200")
    root = copy_bundled(tmp_path / "dev-judged")
    shutil.copy(judged_set["reduced"] / "golden" / "questions.jsonl", root / "golden" / "questions.jsonl")
    split = {json.loads(line)["id"]: json.loads(line).get("split") for line in
             (root / "golden" / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.startswith("{")}
    judged_lines = (judged_set["reduced"] / "golden" / "judgments.jsonl").read_text(encoding="utf-8").splitlines()
    (root / "golden" / "judgments.jsonl").write_text(
        "".join(line + "\n" for line in judged_lines if split[json.loads(line)["query_id"]] == "dev"), encoding="utf-8")
    run = tmp_path / "run.txt"
    assert main(["eval", "--root", str(root), "--format", "json", "--no-history", "--k", "1,5,10",
                 "--write-run", str(run)]) == 0
    report = json.loads(capsys.readouterr().out)
    shipped = report["config"]["shipped_k"]
    retrieved: dict[str, int] = {}  # each ranking's length, from the run file
    for line in run.read_text(encoding="utf-8").splitlines():
        retrieved[line.split()[0]] = retrieved.get(line.split()[0], 0) + 1
    members: dict[tuple[str, str], list[dict]] = {}
    for q in report["queries"]:
        members.setdefault(("split", q["split"] or "(none)"), []).append(q)
        for tag in q["tags"] or ["(untagged)"]:
            members.setdefault(("tag", tag), []).append(q)
        members.setdefault(("hop", q["hop"]), []).append(q)
    assert {(kind, g) for kind, groups in report["breakdowns"].items() for g in groups} == set(members)
    for (kind, group), qs in members.items():
        chunk = report["breakdowns"][kind][group]["chunk"]
        for k in (1, 5, 10):
            mean = sum(q["chunk"][f"judged@{k}"] for q in qs) / len(qs)
            assert chunk[f"judged@{k}"]["value"] == pytest.approx(mean, abs=1e-6) and chunk[f"judged@{k}"]["n"] == len(qs)
    value = {key: report["breakdowns"][key[0]][key[1]]["chunk"][f"judged@{shipped}"]["value"] for key in members}
    # a rank the ranking leaves empty counts as unjudged in judged@k, but not against the floor
    empty = {key: sum(max(0, shipped - retrieved.get(q["query_id"], 0)) / shipped for q in qs) / len(qs)
             for key, qs in members.items()}
    low = [key for key, v in value.items() if v + empty[key] < 0.9]
    assert ("split", "test") in low and ("split", "dev") not in low  # the set-up did what it says
    (diag,) = [d for d in report["diagnostics"] if d["check"] == "judged_breakdowns"]
    assert (diag["status"], diag["value"]) == ("warn", len(low))
    assert f"split test {value['split', 'test']:.2f}" in diag["reading"]

    assert main(["eval", "--root", str(root), "--no-history", "--k", "1,5,10"]) == 0
    out = capsys.readouterr()
    header = next(line for line in out.out.splitlines() if "┃ by " in line)
    assert f"judged@{shipped}" in header
    row = next(line for line in out.out.splitlines() if line.startswith("│ split │ test "))
    assert row.split("│")[-3].strip() == f"{value['split', 'test']:.3f}"  # the judged@k cell, before n
    assert f"below 0.9 in {len(low)} of {len(members)} split, tag and hop groups" in " ".join(out.err.split())
    assert main(["eval", "--root", str(root), "--no-history", "--k", "1,5,10", "--format", "markdown"]) == 0
    assert markdown_cell(f"{len(low)} of {len(members)} split, tag and hop groups") in capsys.readouterr().out

    # A tag is the repository's text: given to the least-judged query, it leads the reading, and
    # the diagnostics table prints it as text, not as Rich markup or a terminal escape.
    worst = min(report["queries"], key=lambda q: (q["chunk"][f"judged@{shipped}"], q["query_id"]))["query_id"]
    path = root / "golden" / "questions.jsonl"
    path.write_text("".join((json.dumps({**rec, "tags": [*rec.get("tags", []), "[b]\x1b"]}, ensure_ascii=False)
                             if (rec := json.loads(line))["id"] == worst else line) + "\n"
                            if line.startswith("{") else line + "\n"
                            for line in path.read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    assert main(["eval", "--root", str(root), "--no-history", "--k", "1,5,10"]) == 0
    out = capsys.readouterr()
    row = next(line for line in out.out.splitlines() if "judged_breakdowns" in line)
    assert "(tag [b]" in row and "\x1b" not in out.out + out.err

    plain = judged_set["before"].report  # no judgments: no judged@k per group, no group check
    assert not any(name.startswith("judged@") for groups in plain["breakdowns"].values() for agg in groups.values()
                   for name in agg["chunk"])
    assert "judged_breakdowns" not in {d["check"] for d in plain["diagnostics"]}


def test_empty_ranks_do_not_count_against_the_floor():
    """judged@k counts a rank the ranking leaves empty as unjudged (SPEC §11), but nothing can
    be pooled there: a shortfall made of empty ranks alone is said, never warned about."""
    from labeller.eval.judged import judged_breakdowns_diagnostic, judged_diagnostic

    assert judged_diagnostic(0.6, 5)["status"] == "warn"
    assert judged_diagnostic(0.6, 5, empty=0.2)["status"] == "warn"  # unjudged chunks fill 0.2 of the top 5
    short = judged_diagnostic(0.6, 5, empty=0.4)
    assert short["status"] == "ok" and "only because the rankings leave 0.40 of the top 5 empty" in short["reading"]
    assert judged_diagnostic(0.95, 5)["status"] == "ok"

    def groups(**values):
        return {"tag": {g: {"chunk": {"judged@5": {"value": v}}} for g, v in values.items()}}

    ok = judged_breakdowns_diagnostic(groups(a=0.6, b=0.95), 5, {"tag": {"a": 0.4, "b": 0.0}})
    assert (ok["status"], ok["value"]) == ("ok", 0) and "but 1 (tag a 0.60), below it only because" in ok["reading"]
    warn = judged_breakdowns_diagnostic(groups(a=0.6, b=0.95), 5, {"tag": {"a": 0.2, "b": 0.0}})
    assert (warn["status"], warn["value"]) == ("warn", 1) and "(tag a 0.60)" in warn["reading"]
    assert judged_breakdowns_diagnostic(groups(a=0.6), 5)["status"] == "warn"  # no empty ranks known


@pytest.mark.parametrize("analyzer, windows", [("auto", False), ("plain", False), ("auto", True)])
def test_the_bundled_example_is_judged(tmp_path, capsys, analyzer, windows):
    """The bundled example ships judgments for its pool (BM25 with either analyzer, and over the
    1,000-character windows of docs/eval.md's chunk-file example, to the shipped k): every chunk
    ranked in a top k is labelled or judged, every judgment resolves, and eval warns of nothing
    judged."""
    root = tmp_path / "example"
    root.mkdir()
    for part in ("corpus", "golden"):
        shutil.copytree(REPO / part, root / part)
    proj = project(root)
    questions = [q.id for q in proj.load_questions().questions]
    jset = resolve_judgments(proj, load_judgments(proj), questions)
    assert jset.resolved and not jset.stale
    assert {j.judgment.judge for j in jset.resolved} == {"labeller-maintainers"}
    chunks: list[str] = []
    if windows:
        path = tmp_path / "windows.jsonl"
        assert main(["chunks", "--root", str(root), "--chunker", "fixed-chars-v1:size=1000,overlap=500",
                     "--out", str(path)]) == 0
        chunks = ["--chunks", str(path)]
    result = run_eval(proj, chunks=chunks[1] if chunks else None,
                      retriever=make_retriever("bm25", proj, analyzer=analyzer,
                                               chunks=load_chunk_set(proj, chunks[1] if chunks else None)))
    shipped = result.report["config"]["shipped_k"]
    for s in result.scores:  # every retrieved chunk in the top k is judged; only empty ranks are not
        assert s.chunk[f"judged@{shipped}"] == pytest.approx(min(len(result.hits[s.query_id]), shipped) / shipped)
    checks = {d["check"]: d["status"] for d in result.report["diagnostics"]}
    assert checks["judged"] == checks["judged_breakdowns"] == "ok"
    capsys.readouterr()
    assert main(["eval", "--root", str(root), "--no-history", "--analyzer", analyzer, *chunks]) == 0
    assert "judged@" not in capsys.readouterr().err
