"""Minimum detectable difference and ``eval --power`` (issue 28.5) against the textbook formula.

The bootstrap's variance of a mean approaches the sample variance over n (ddof 0); the
formula MDD = (z(0.975) + z(0.8)) * sd / sqrt(n) and n = ((z(0.975) + z(0.8)) * sd / delta)^2
is computed here from that, independently of the code under test.
"""

from __future__ import annotations

import json
import math
import random
import shutil
from statistics import NormalDist, pstdev

import pytest
from conftest import REPO

from labeller.cli import main
from labeller.errors import InvalidInput
from labeller.eval.power import mdd, questions_needed

Z = NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)


def deltas(n: int, seed: int = 7) -> list[float]:
    rng = random.Random(seed)
    return [rng.choice((-1.0, 0.0, 0.0, 0.0, 1.0, 0.5)) for _ in range(n)]


def test_mdd_is_the_textbook_formula_with_the_bootstrap_se():
    values = deltas(200)
    found = mdd(values, 4000, 1)
    analytic = Z * pstdev(values) / math.sqrt(len(values))
    assert found["value"] == pytest.approx(analytic, rel=0.08)
    assert found["n"] == 200 and found["power"] == 0.8 and found["alpha"] == pytest.approx(0.05)


def test_mdd_shrinks_with_the_square_root_of_the_questions():
    small, large = mdd(deltas(100), 4000, 1)["value"], mdd(deltas(400), 4000, 1)["value"]
    assert small / large == pytest.approx(2.0, rel=0.15)


def test_questions_needed_paired_and_unpaired():
    values = deltas(150)
    sd = pstdev(values)
    paired = questions_needed(0.1, values, 4000, 1, paired=True)
    assert paired["questions_needed"] == pytest.approx((Z * sd / 0.1) ** 2, rel=0.15)
    unpaired = questions_needed(0.1, values, 4000, 1, paired=False)  # twice the variance
    assert unpaired["questions_needed"] == pytest.approx(2 * (Z * sd / 0.1) ** 2, rel=0.15)
    with pytest.raises(InvalidInput):
        questions_needed(0, values, 100, 1, paired=True)


def test_eval_baseline_reports_mdd_and_power(tmp_path, capsys):
    root = tmp_path / "hb"
    root.mkdir()
    for name in ("corpus", "golden"):
        shutil.copytree(REPO / name, root / name)
    base = tmp_path / "base.json"
    assert main(["eval", "--root", str(root), "--no-history", "--format", "json", "--out", str(base)]) == 0
    capsys.readouterr()
    assert main(["eval", "--root", str(root), "--no-history", "--format", "json", "--analyzer", "plain",
                 "--baseline", str(base), "--power", "0.05"]) == 0
    report = json.loads(capsys.readouterr().out)
    shipped = report["config"]["shipped_k"]
    old = {q["query_id"]: q["chunk"][f"recall@{shipped}"] for q in json.loads(base.read_text())["queries"]}
    d = [q["chunk"][f"recall@{shipped}"] - old[q["query_id"]] for q in report["queries"]]
    sd = pstdev(d)
    got = report["comparison"]["mdd"]
    assert got["n"] == len(d) and got["metric"] == f"chunk recall@{shipped}"
    assert got["value"] == pytest.approx(Z * sd / math.sqrt(len(d)), rel=0.1)
    assert report["power"]["questions_needed"] == pytest.approx((Z * sd / 0.05) ** 2, rel=0.2)
