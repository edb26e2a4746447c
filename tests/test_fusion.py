"""Fusion: ``--retriever hybrid``, ``rrf:a,b`` and run files fused with ``--run``; RRF and ``zscore``."""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys

import pytest

from helpers_app import write_small_project
from helpers_cpu import newest_kernel
from helpers_dense import TINY, tiny_model  # noqa: F401  (a fixture)
from helpers_interop import cli
from labeller.config import FusionConfig, load_config
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.eval.retrievers import REGISTRY, make_retriever
from labeller.eval.retrievers.base import Hit, top_k
from labeller.eval.retrievers.fusion import FusionRetriever, fuse, standardised


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


@pytest.mark.parametrize("toml, spec, method, dense_weight", [
    ("", "hybrid", "coverage", 0.4),                    # hybrid's own default: coverage, dense 0.4
    ("", "rrf:bm25,dense", "rrf", 1.0),                 # rrf: keeps the method its name says, weights 1
    ('method = "rrf"\n', "hybrid", "rrf", 1.0),          # a configured method rules both
    ('method = "zscore"\n', "rrf:bm25,dense", "zscore", 0.4),
    ('method = "zscore"\n', "hybrid", "zscore", 0.4),     # the second round's default, kept selectable
    ("weights = {dense = 0.7}\n", "hybrid", "coverage", 0.7),  # a listed weight wins over the default
])
def test_hybrid_fuses_by_coverage_with_dense_at_0_4_unless_configured(tmp_path, monkeypatch, toml, spec, method,
                                                                    dense_weight):
    """The default chosen on the selection sets (docs/performance.md, issue 37.6) is what
    ``--retriever hybrid`` runs, and it is in the fingerprint; ``rrf:`` stays reciprocal-rank."""
    root = write_small_project(tmp_path / "p")
    (root / "labeller.toml").write_text(f"[retriever.fusion]\n{toml}", encoding="utf-8")
    monkeypatch.setitem(REGISTRY, "bm25", Fixed.factory("bm25", ["x", "y", "z"]))
    monkeypatch.setitem(REGISTRY, "dense", Fixed.factory("dense", ["z", "x", "v"]))
    described = make_retriever(spec, Project(load_config(root))).describe()
    assert described["fusion"]["method"] == method
    assert [(m["name"], m["weight"]) for m in described["members"]] == [("bm25", 1.0), ("dense", dense_weight)]


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


# -- zscore: each member's scores read for how sure it is (issue 37.6) --------------------------

ZSCORE = FusionConfig(method="zscore", window=5)
SURE = [Hit("x", 12.0), Hit("y", 2.0), Hit("z", 1.9), Hit("w", 1.8), Hit("v", 1.7)]  # one hit stands out


def ids(hits: list[Hit]) -> list[str]:
    return [h.chunk_id for h in hits]


def test_zscore_a_member_with_a_flat_ranking_does_not_drag_a_sure_one_down():
    """A member whose scores are evenly spaced (no hit stands out) gives its top no more than
    its spread, so the hit the sure member puts far above its mean stays first; RRF, which
    reads ranks only, puts the chunk both rank near the top above it. A member whose scores
    are all equal says nothing at all: the fusion is the sure member's own ranking."""
    even = [Hit("y", 0.51), Hit("z", 0.50), Hit("w", 0.49), Hit("v", 0.48), Hit("u", 0.47)]
    assert ids(fuse([(1.0, SURE), (1.0, even)], ZSCORE, 3))[0] == "x"
    assert ids(fuse([(1.0, SURE), (1.0, even)], FusionConfig(method="rrf"), 3))[0] == "y"  # what zscore avoids
    level = top_k([Hit(c, 0.5) for c in "yzwvu"], 5)
    assert ids(fuse([(1.0, SURE), (1.0, level)], ZSCORE, 5)) == ids(SURE)
    assert ids(fuse([(1.0, level), (1.0, SURE)], ZSCORE, 5)) == ids(SURE)


def test_zscore_follows_the_member_that_is_sure_whichever_it_is():
    """Two members, each sure of a different chunk: the one standing further above its own
    mean wins, and a member's weight scales its say."""
    a = [Hit("x", 30.0), Hit("y", 1.0), Hit("z", 0.9), Hit("w", 0.8), Hit("v", 0.7)]
    b = [Hit("v", 0.9), Hit("z", 0.8), Hit("y", 0.7), Hit("w", 0.6), Hit("x", 0.5)]  # evenly spaced
    assert ids(fuse([(1.0, a), (1.0, b)], ZSCORE, 1)) == ["x"]
    assert ids(fuse([(1.0, a), (5.0, b)], ZSCORE, 1)) == ["v"]
    assert ids(fuse([(1.0, a), (0.0, b)], ZSCORE, 5)) == ids(a)  # weight 0: left out


def test_zscore_gives_identical_inputs_identical_output_and_keeps_a_ranking_fused_with_itself():
    rng = random.Random(7)
    members = [top_k([Hit(f"c{i}", rng.random() * 20) for i in range(60)], 40) for _ in range(2)]
    settings = FusionConfig(method="zscore", window=20)
    first = fuse([(1.0, members[0]), (0.4, members[1])], settings, 50)
    assert repr(first) == repr(fuse([(1.0, list(members[0])), (0.4, list(members[1]))], settings, 50))
    assert ids(fuse([(1.0, members[0]), (1.0, members[0])], settings, 40)) == ids(members[0])
    swapped = fuse([(1.0, members[1]), (1.0, members[0])], settings, 50)  # two terms: a + b is b + a, bit for bit
    assert repr(swapped) == repr(fuse([(1.0, members[0]), (1.0, members[1])], settings, 50))


def test_standardised_is_exact_where_it_can_be_and_never_overflows():
    """The mean is ``fsum``'s (exactly rounded), so scores scaled by a power of two give the
    same bits; a run file's scores near the float limit standardise to finite values; equal
    scores, or none, are no evidence (None)."""
    scores = [9.5, 7.25, 7.0, 3.0, 1.0, 0.5]
    assert standardised(scores, 4) == standardised([s * 2.0 ** 40 for s in scores], 4)
    mean, spread = statistics.fmean(scores[:3]), statistics.pstdev(scores[:3])
    assert standardised(scores, 3) == pytest.approx([(s - mean) / spread for s in scores], rel=1e-12)
    huge = standardised([1.7e308, 1.6e308, -1.7e308], 3)
    assert huge is not None and all(v == v and abs(v) < 10 for v in huge)
    assert standardised([2.0, 2.0, 2.0], 3) is None and standardised([], 5) is None
    # fewer hits than the window: the missing ones count as 0 (a lexical member's unmatched chunks)
    assert standardised([4.0], 4) == [pytest.approx(3 ** 0.5)]


_ZSCORE_SCRIPT = """
import random
from labeller.config import FusionConfig
from labeller.eval.retrievers.base import Hit, top_k
from labeller.eval.retrievers.fusion import fuse
rng = random.Random(3)
for window in (2, 7, 50):
    members = [(w, top_k([Hit(f"c{rng.randrange(300)}", rng.gauss(0, 1) * 10 ** rng.randrange(-3, 4))
                          for _ in range(120)], 100)) for w in (1.0, 0.4, 2.5)]
    print(repr(fuse(members, FusionConfig(method="zscore", window=window), 100)))
"""


def test_zscore_is_bit_identical_under_other_blas_kernels_and_simd_levels():
    """Pure Python floats in a fixed order, no library kernel: the unrounded fused scores are
    the same in a fresh interpreter whatever kernels numpy and OpenBLAS would pick."""
    outputs = set()
    kernel = newest_kernel()  # a kernel forced on a CPU without its instructions dies (helpers_cpu)
    for setting in ({}, {"OPENBLAS_CORETYPE": kernel} if kernel else {"OPENBLAS_NUM_THREADS": "2"},
                    {"NPY_DISABLE_CPU_FEATURES": "AVX2 FMA3 AVX512F AVX512CD AVX512_SKX", "OPENBLAS_NUM_THREADS": "1"}):
        env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES")}
        outputs.add(subprocess.run([sys.executable, "-c", _ZSCORE_SCRIPT], env={**env, **setting},
                                   capture_output=True, text=True, check=True).stdout)
    assert len(outputs) == 1 and outputs.pop().count("Hit(") == 300


class Given(Fixed):
    """A retriever returning these hits, in this order (any order: ``Retriever.retrieve``), for every query."""

    def __init__(self, name: str, hits: list[Hit]) -> None:
        super().__init__(name, [h.chunk_id for h in hits])
        self.hits = hits

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        return list(self.hits)


def test_zscore_is_set_in_the_config_recorded_in_the_fingerprint_and_reads_hits_in_any_order(tmp_path, monkeypatch):
    root = write_small_project(tmp_path / "p")
    (root / "labeller.toml").write_text('[retriever.fusion]\nmethod = "zscore"\nwindow = 4\ndepth = 5\n'
                                        "weights = {b = 0.5}\n", encoding="utf-8")
    unordered = [Hit("u", 0.3), Hit("v", 0.9), Hit("w", 0.5), Hit("z", 0.7), Hit("y", 0.1)]
    monkeypatch.setitem(REGISTRY, "a", lambda project, chunks=None: Given("a", SURE[::-1]))
    monkeypatch.setitem(REGISTRY, "b", lambda project, chunks=None: Given("b", unordered))
    fused = make_retriever("rrf:a,b", Project(load_config(root)))
    assert fused.describe() == {"name": "rrf", "fusion": {"method": "zscore", "window": 4, "depth": 5},
                                "members": [{"name": "a", "weight": 1.0}, {"name": "b", "weight": 0.5}]}
    assert fused.retrieve("q", "query", 5) == fuse([(1.0, SURE), (0.5, top_k(unordered, 5))], fused.settings, 5)


@pytest.mark.parametrize("toml, message", [
    ('method = "combsum"', "[retriever.fusion] method = \"combsum\": must be 'rrf', 'zscore' or 'coverage'"),
    ("ramp = [0.8, 0.5]", "the ramp [low, high] needs low < high; got [0.8, 0.5]"),
    ("ramp = [0.5, 1.5]", "must be at most 1"),
    ("unreadable_ramp = [0.1, 0.02]", "[retriever.fusion] unreadable_ramp = [0.1, 0.02]: the ramp [low, high] needs "
     "low < high; got [0.1, 0.02]"),
    ("unreadable_ramp = [-0.1, 0.1]", "[retriever.fusion] unreadable_ramp[0] = -0.1: must be at least 0"),
    ("window = 1", "[retriever.fusion] window = 1: must be at least 2"),
    ("window = 1001", "[retriever.fusion] window = 1001: must be at most 1000"),
])
def test_fusion_method_and_window_are_checked_in_the_config(tmp_path, toml, message):
    root = write_small_project(tmp_path / "p")
    (root / "labeller.toml").write_text(f"[retriever.fusion]\n{toml}\n", encoding="utf-8")
    with pytest.raises(InvalidInput) as exc:
        load_config(root)
    assert message in str(exc.value) and exc.value.line == 2 and "labeller.toml" in str(exc.value)


class Holding(Given):
    """A lexical member (``base.Lexical``): it says its first hit holds ``held`` of any question."""

    def __init__(self, name: str, hits: list[Hit], held: float) -> None:
        super().__init__(name, hits)
        self.held, self.asked = held, []

    def held_share(self, query: str, chunk_id: str) -> float:
        self.asked.append((query, chunk_id))
        return self.held


NEAR_TIE = [Hit("a1", 10.0), Hit("a2", 9.9), Hit("a3", 5.0), Hit("a4", 4.0), Hit("a5", 1.0)]
OTHER_WAY = [Hit("a2", 0.9), Hit("d1", 0.5), Hit("a1", 0.1), Hit("d2", 0.05)]


@pytest.mark.parametrize("held, keep", [(0.0, 1.0), (0.5, 1.0), (0.6, (0.8 - 0.6) / (0.8 - 0.5)), (0.8, 0.0),
                                        (1.0, 0.0)])
def test_coverage_weighs_the_members_that_do_not_match_words_by_how_much_the_lexical_first_hit_holds(
        tmp_path, monkeypatch, held, keep):
    """The per-question weight is exactly ``ramp``'s, the fusion zscore's over those weights;
    a question the first hit holds whole is ranked as the lexical member ranks it, a near-tie
    the other member would tip included."""
    from labeller.eval.retrievers.fusion import ramp

    root = write_small_project(tmp_path / "p")
    (root / "labeller.toml").write_text("[retriever.fusion]\nwindow = 5\n", encoding="utf-8")
    lexical = Holding("bm25", NEAR_TIE, held)
    monkeypatch.setitem(REGISTRY, "bm25", lambda project, chunks=None: lexical)
    monkeypatch.setitem(REGISTRY, "dense", lambda project, chunks=None: Given("dense", OTHER_WAY))
    fused = make_retriever("hybrid", Project(load_config(root)))
    assert ramp(held, fused.settings.ramp) == keep
    got = fused.retrieve("q", "which one?", 5)
    assert lexical.asked == [("which one?", "a1")]  # the lexical member's own first hit
    assert got == fuse([(1.0, NEAR_TIE), (0.4 * keep, OTHER_WAY)], fused.settings, 5)
    if keep == 0.0:
        assert ids(got) == ["a1", "a2", "a3", "a4", "a5"]
    if keep == 1.0:
        assert ids(got)[0] == "a2"  # the whole weight tips the near-tie (the ramp matters)
    assert fused.describe()["fusion"] == {"method": "coverage", "window": 5, "ramp": [0.5, 0.8],
                                          "unreadable_ramp": [0.02, 0.1], "depth": 100}


class Unreading(Given):
    """A member reading the query through a tokenizer (``base.Tokenized``): it says it cannot
    read ``unreadable`` of any question."""

    def __init__(self, name: str, hits: list[Hit], unreadable: float) -> None:
        super().__init__(name, hits)
        self.unreadable, self.asked = unreadable, []

    def unreadable_share(self, query: str) -> float:
        self.asked.append(query)
        return self.unreadable


@pytest.mark.parametrize("unreadable, keep", [(0.0, 1.0), (0.02, 1.0), (0.04, (0.1 - 0.04) / (0.1 - 0.02)),
                                              (0.1, 0.0), (0.5, 0.0)])
def test_coverage_weighs_a_member_by_how_much_of_the_question_its_tokenizer_cannot_read(
        tmp_path, monkeypatch, unreadable, keep):
    """A member that cannot read the question (an English model asked in Japanese) keeps the
    unreadable ramp's share of its weight, on top of the coverage ramp's: at 10% unreadable and
    more it has no say, the lexical member's near-tie stands; a member that is not ``Tokenized``
    (a run file) is not asked."""
    from labeller.eval.retrievers.fusion import ramp

    root = write_small_project(tmp_path / "p")
    (root / "labeller.toml").write_text("[retriever.fusion]\nwindow = 5\n", encoding="utf-8")
    dense = Unreading("dense", OTHER_WAY, unreadable)
    monkeypatch.setitem(REGISTRY, "bm25", lambda project, chunks=None: Holding("bm25", NEAR_TIE, 0.0))
    monkeypatch.setitem(REGISTRY, "dense", lambda project, chunks=None: dense)
    fused = make_retriever("hybrid", Project(load_config(root)))
    assert ramp(unreadable, fused.settings.unreadable_ramp) == keep
    got = fused.retrieve("q", "東京の宿泊代", 5)
    assert dense.asked == ["東京の宿泊代"]
    assert got == fuse([(1.0, NEAR_TIE), (0.4 * keep, OTHER_WAY)], fused.settings, 5)
    if keep == 0.0:
        assert ids(got) == ["a1", "a2", "a3", "a4", "a5"]  # the rule taken away, dense would tip it to a2
    if keep == 1.0:
        assert ids(got)[0] == "a2"


def test_the_unreadable_ramp_is_set_in_the_config_and_leaves_members_without_a_tokenizer_alone(tmp_path, monkeypatch):
    root = write_small_project(tmp_path / "p")
    (root / "labeller.toml").write_text('[retriever.fusion]\nmethod = "coverage"\nwindow = 5\n'
                                        "unreadable_ramp = [0.3, 0.6]\n", encoding="utf-8")
    monkeypatch.setitem(REGISTRY, "a", lambda project, chunks=None: Holding("a", NEAR_TIE, 0.0))
    monkeypatch.setitem(REGISTRY, "b", lambda project, chunks=None: Unreading("b", OTHER_WAY, 0.5))
    monkeypatch.setitem(REGISTRY, "c", lambda project, chunks=None: Given("c", OTHER_WAY))
    fused = make_retriever("rrf:a,b,c", Project(load_config(root)))
    assert fused.settings.unreadable_ramp == (0.3, 0.6)
    assert fused.retrieve("q", "query", 5) == fuse(
        [(1.0, NEAR_TIE), ((0.6 - 0.5) / (0.6 - 0.3), OTHER_WAY), (1.0, OTHER_WAY)], fused.settings, 5)


def test_coverage_without_a_lexical_member_or_its_hits_is_zscore(tmp_path, monkeypatch):
    root = write_small_project(tmp_path / "p")
    (root / "labeller.toml").write_text('[retriever.fusion]\nmethod = "coverage"\nwindow = 5\n', encoding="utf-8")
    monkeypatch.setitem(REGISTRY, "a", lambda project, chunks=None: Given("a", NEAR_TIE))
    monkeypatch.setitem(REGISTRY, "b", lambda project, chunks=None: Given("b", OTHER_WAY))
    monkeypatch.setitem(REGISTRY, "c", lambda project, chunks=None: Holding("c", [], 1.0))
    for spec in ("rrf:a,b", "rrf:c,b"):
        fused = make_retriever(spec, Project(load_config(root)))
        first = NEAR_TIE if spec == "rrf:a,b" else []
        assert fused.retrieve("q", "query", 5) == fuse([(1.0, first), (1.0, OTHER_WAY)], fused.settings, 5)


def test_bm25_held_share_is_the_share_of_the_question_terms_its_chunk_holds(tmp_path):
    """Counted again here from the chunk's own fields, analysed as BM25 indexes them."""
    root = write_small_project(tmp_path / "p")
    project = Project(load_config(root))
    bm25 = make_retriever("bm25", project)
    analyse = bm25.analyzer.terms
    seen = set()
    for query in ("rotate the API key", "rotate the key of the moon", "galaxies and nebulae", "on-call pager rota"):
        for hit in bm25.retrieve("q", query, 3) or [Hit(project.all_chunks[0].chunk_id, 0.0)]:
            chunk = bm25.chunk(hit.chunk_id)
            fields = {"heading": chunk.heading, "breadcrumb": chunk.breadcrumb, "body": chunk.text}
            held = set().union(*(analyse(v) for f, v in fields.items() if bm25.weights.get(f, 0) > 0))
            terms = set(analyse(query))
            share = len(terms & held) / len(terms) if terms else 0.0
            assert bm25.held_share(query, hit.chunk_id) == share
            seen.add(share)
    assert bm25.held_share("rotate", "no such chunk") == 0.0 and bm25.held_share("", hit.chunk_id) == 0.0
    assert 1.0 in seen and any(0 < v < 1 for v in seen)
