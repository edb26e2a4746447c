"""Reciprocal-rank fusion: ``--retriever hybrid``, ``rrf:a,b`` and run files fused with ``--run``."""

from __future__ import annotations

import json
import shutil

import pytest

from helpers_app import write_small_project
from helpers_dense import TINY, tiny_model  # noqa: F401  (a fixture)
from helpers_interop import cli
from labeller.config import load_config
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.eval.retrievers import REGISTRY, make_retriever
from labeller.eval.retrievers.base import Hit, top_k
from labeller.eval.retrievers.fusion import FusionRetriever


class Fixed:
    """A retriever returning a fixed ranking (best first) for every query."""

    def __init__(self, name: str, ids: list[str]) -> None:
        self.name, self.ids = name, ids

    @classmethod
    def factory(cls, name: str, ids: list[str]):
        return lambda project, chunks=None: cls(name, ids)

    def describe(self) -> dict:
        return {"name": self.name}

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        return [Hit(cid, float(len(self.ids) - i)) for i, cid in enumerate(self.ids[:k])]


def rrf(rankings: list[tuple[list[str], float]], k: int) -> dict[str, float]:
    scores: dict[str, float] = {}
    for ids, weight in rankings:
        for rank, cid in enumerate(ids, 1):
            scores[cid] = scores.get(cid, 0.0) + weight / (k + rank)
    return scores


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = write_small_project(tmp_path / "p")
    (root / "labeller.toml").write_text("[retriever.fusion]\nk = 10\ndepth = 3\nweights = {a = 2.0}\n",
                                        encoding="utf-8")
    monkeypatch.setitem(REGISTRY, "a", Fixed.factory("a", ["x", "y", "z", "w"]))
    monkeypatch.setitem(REGISTRY, "b", Fixed.factory("b", ["z", "x", "v"]))
    return Project(load_config(root))


def test_rrf_adds_weight_over_k_plus_rank_reading_each_member_depth_deep(project):
    fused = make_retriever("rrf:a,b", project)
    got = fused.retrieve("q", "query", 2)
    # depth 3: a's fourth chunk "w" is never read; weight 2 for a, 1 for b (not listed), k = 10
    expected = rrf([(["x", "y", "z"], 2.0), (["z", "x", "v"], 1.0)], 10)
    assert got == top_k([Hit(c, s) for c, s in expected.items()], 2)
    assert fused.describe() == {"name": "rrf", "fusion": {"method": "rrf", "k": 10, "depth": 3},
                                "members": [{"name": "a", "weight": 2.0}, {"name": "b", "weight": 1.0}]}


def test_a_deeper_cut_than_depth_reads_members_k_deep(project):
    got = {h.chunk_id for h in make_retriever("rrf:a,b", project).retrieve("q", "query", 10)}
    assert got == {"x", "y", "z", "w", "v"}


@pytest.mark.parametrize("spec, message", [
    ("rrf:a", "at least two rankings"), ("rrf:a,a", "given twice"), ("rrf:a,run", "cannot be a member"),
    ("rrf:a,rrf", "cannot be a member"), ("rrf:a,nope", "unknown retriever 'nope'"),
    ("bm25:a", "takes no ':' list"),
])
def test_bad_fusions_are_refused(project, spec, message):
    with pytest.raises(InvalidInput, match=message):
        make_retriever(spec, project)


def test_progress_goes_only_to_factories_that_take_it(project):
    assert make_retriever("a", project, progress=lambda *a: None).name == "a"


def test_runs_given_with_run_are_fused_with_the_retrievers(tmp_path, capsys):
    root = write_small_project(tmp_path / "p")
    rc, _, err = cli(capsys, "eval", "--root", root, "--write-run", tmp_path / "bm25.run", "--no-history")
    assert rc == 0, err
    rc, out, err = cli(capsys, "eval", "--root", root, "--retriever", "rrf:bm25", "--run", tmp_path / "bm25.run",
                       "--format", "json", "--no-history")
    assert rc == 0, err
    r = json.loads(out)["fingerprint"]["retriever"]
    assert [m["name"] for m in r["members"]] == ["bm25", "run"] and r["fusion"]["k"] == 60
    rc, out, err = cli(capsys, "eval", "--root", root, "--run", tmp_path / "bm25.run", "--run",
                       tmp_path / "bm25.run", "--format", "json", "--no-history")
    assert rc == 0, err
    assert [m["name"] for m in json.loads(out)["fingerprint"]["retriever"]["members"]] == ["run", "run"]
    rc, _, err = cli(capsys, "eval", "--root", root, "--retriever", "bm25", "--run", tmp_path / "bm25.run")
    assert rc == 2 and "rrf:bm25" in err


def test_fusing_a_ranking_with_itself_keeps_its_order(tmp_path, capsys):
    """RRF is monotone in rank: BM25 fused with its own run ranks every query as BM25 does."""
    root = write_small_project(tmp_path / "p")
    assert cli(capsys, "eval", "--root", root, "--write-run", tmp_path / "a.run", "--no-history")[0] == 0
    assert cli(capsys, "eval", "--root", root, "--retriever", "rrf:bm25", "--run", tmp_path / "a.run",
               "--write-run", tmp_path / "b.run", "--no-history")[0] == 0

    def order(path):
        rows = [line.split() for line in path.read_text(encoding="utf-8").splitlines()]
        return {q: [r[2] for r in rows if r[0] == q] for q in dict.fromkeys(r[0] for r in rows)}

    assert order(tmp_path / "a.run") == order(tmp_path / "b.run")


def test_hybrid_fuses_bm25_and_dense(tmp_path, tiny_model, capsys):
    root = write_small_project(tmp_path / "p")
    shutil.copytree(tiny_model, root / TINY)
    (root / "labeller.toml").write_text(f'[retriever.dense]\nmodel = "{TINY}"\nquery_prefix = "q: "\n'
                                        '[retriever.fusion]\nweights = {dense = 0.5}\n', encoding="utf-8")
    rc, out, err = cli(capsys, "eval", "--root", root, "--retriever", "hybrid", "--format", "json", "--no-history")
    assert rc == 0, err
    r = json.loads(out)["fingerprint"]["retriever"]
    assert r["name"] == "hybrid" and [(m["name"], m["weight"]) for m in r["members"]] == [("bm25", 1.0),
                                                                                          ("dense", 0.5)]
    assert r["members"][1]["model"] == TINY and r["members"][1]["query_prefix"] == "q: "


def test_fusion_weights_are_checked_in_the_config(tmp_path, capsys):
    root = write_small_project(tmp_path / "p")
    (root / "labeller.toml").write_text("[retriever.fusion]\nweights = {bm25 = -1.0}\n", encoding="utf-8")
    rc, _, err = cli(capsys, "eval", "--root", root, "--retriever", "hybrid", "--no-history")
    assert rc == 2 and "weights" in err and "finite number >= 0" in err
