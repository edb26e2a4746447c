"""The cost-curve arithmetic of ``benchmarks/curve.py``: the fitted exponent and the bend flag."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import curve  # noqa: E402

SIZES = {1_000_000: "1MB", 10_000_000: "10MB", 50_000_000: "50MB", 100_000_000: "100MB"}


def _series(values: list[float]) -> curve.Series:
    s = curve.Series("x", "x")
    for size, v in zip(sorted(SIZES), values):
        s.seconds[size] = [v * 0.9, v, v * 1.5]  # the median is v
        s.peak_mb[size] = [100.0]
    return s


@pytest.mark.parametrize("power", [0.5, 1.0, 1.3, 2.0])
def test_the_exponent_of_a_power_law_is_its_power(power):
    xs = [1.0, 10.0, 50.0, 100.0]
    assert curve.fit_exponent(xs, [3 * x ** power for x in xs]) == pytest.approx(power)
    assert curve.step_exponents(xs, [3 * x ** power for x in xs]) == pytest.approx([power] * 3)


def test_a_step_that_bends_upward_is_flagged_and_a_linear_one_is_not():
    bytes_of = {n: n for n in SIZES}
    linear, bent = curve.summarize([_series([1.0, 10.0, 50.0, 100.0]), _series([1.0, 10.0, 50.0, 400.0])],
                                   SIZES, bytes_of)[0::2]
    assert linear["exponent"] == pytest.approx(1.0) and linear["bends_upward"] == []
    assert bent["steps"][:2] == pytest.approx([1.0, 1.0]) and bent["steps"][2] == pytest.approx(3.0)
    assert bent["bends_upward"] == ["50MB→100MB"]
    table = curve.markdown([linear, bent], "note")
    assert "| 50MB→100MB |" in table and "| no |" in table
    assert "bends upward: 50MB→100MB" in curve.svg([linear, bent], "caption")
