"""Work a large eval does once, not per use (issue 37 point 7): a breakdown group of every query
is bootstrapped once and copied, and the JSON report is encoded once for ``--out`` and stdout.
Neither may change a byte of the report."""

from __future__ import annotations

import random
from types import SimpleNamespace

from conftest import q, write_project

from labeller.cli import main
from labeller.eval import report as rp
from labeller.eval.metrics import QueryScore

KS = (1, 5)


def scores(n: int, seed: int = 3) -> list[QueryScore]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        values = {f"{m}@{k}": rng.choice((0.0, 0.5, 1.0)) for m in ("recall", "success", "mrr", "ndcg") for k in KS}
        values |= {f"all@{k}": rng.choice((0.0, 1.0)) for k in KS}
        out.append(QueryScore(f"q{i}", i % 7 == 0, [], [], [], dict(values), dict(values)))
    return out


def test_a_group_of_every_query_has_the_aggregate_of_its_members_and_its_own_copy():
    s = scores(40)
    # one split and one hop hold everyone; tag "x" is as long as the set but counts q0 twice and misses q39
    questions = {x.query_id: SimpleNamespace(split=None, hop="single", tags=["x", "x"] if x.query_id == "q0" else
                                             [] if x.query_id == "q39" else ["x"]) for x in s}
    got = rp.breakdowns(s, questions, KS, 200, 7)
    whole = rp.aggregate(s, KS, 200, 7)
    assert got["split"]["(none)"] == whole and got["hop"]["single"] == whole
    members = [s[0], *s[:39]]
    assert len(members) == len(s)
    assert got["tag"]["x"] == rp.aggregate(members, KS, 200, 7) != whole
    got["split"]["(none)"]["chunk"]["recall@1"]["value"] = -1.0  # each group its own dicts
    assert got["hop"]["single"]["chunk"]["recall@1"] == whole["chunk"]["recall@1"]


def test_stdout_is_the_out_file_byte_for_byte_and_the_report_without_out(tmp_path, capsys):
    docs = {f"d{i}.md": f"# Topic {i}\n\nThe heron number {i} nests on ridge {i}.\n" for i in range(6)}
    root = write_project(tmp_path / "proj", docs, [q(f"q{i}", {"doc": f"d{i}.md", "quote": f"ridge {i}"},
                                                     query=f"where does heron {i} nest ‘é’") for i in range(6)])
    args = ["eval", "--root", str(root), "--format", "json", "--no-history"]
    assert main([*args, "--out", str(tmp_path / "r.json")]) == 0
    printed = capsys.readouterr().out
    assert main(args) == 0
    alone = capsys.readouterr().out
    assert printed == alone == (tmp_path / "r.json").read_bytes().decode("utf-8")
    assert printed.startswith("{\n") and printed.endswith("}\n")
