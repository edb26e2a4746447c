"""The HTML report in a real browser: Debian's Chromium, headless, driven by Selenium through
Debian's chromedriver (never a downloaded browser; .ci/run installs both when missing).

It renders with its policy obeyed (no console error: a script refused by the CSP would log
one), loads nothing, its charts hold drawn marks, and a click on a column header sorts the
per-query table, again in reverse on a second click."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from conftest import require_optional
from test_eval_cli import N, facts_project, gold_chunk_ids

from labeller.cli import main

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    require_optional(CHROMIUM.exists() and CHROMEDRIVER.exists(), "LABELLER_REQUIRE_BROWSER",
                     "Debian's chromium and chromium-driver: apt-get install -y chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}", "--window-size=1280,900"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A report whose queries hit at ranks 1-4 (gold at rank i % 5 + 1, rank 5 dropped: a miss),
    written as HTML and JSON by one run."""
    tmp = tmp_path_factory.mktemp("report")
    root = facts_project(tmp)
    ids = gold_chunk_ids(root)
    lines = []
    for i in range(N):
        gold, others = ids[f"doc{i:02d}.md"], [ids[f"doc{(i + j) % N:02d}.md"] for j in range(1, 6)]
        ranked = others[:i % 5] + ([gold] if i % 5 != 4 else []) + others[i % 5:]
        lines += [f"q{i:02d} Q0 {cid} {r} {20 - r} ext\n" for r, cid in enumerate(ranked, 1)]
    (tmp / "r.run").write_text("".join(lines))
    assert main(["eval", "--root", str(root), "--no-history", "--run", str(tmp / "r.run"), "--html",
                 str(tmp / "r.html"), "--out", str(tmp / "r.json"), "--format", "json"]) == 0
    return tmp / "r.html", json.loads((tmp / "r.json").read_text())


def test_it_renders_obeys_its_policy_and_loads_nothing(browser, report):
    html, _ = report
    browser.get(html.as_uri())
    assert browser.title.startswith("labeller eval ")
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("labeller eval · run")
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def test_every_chart_has_drawn_marks(browser, report):
    html, _ = report
    browser.get(html.as_uri())
    figures = browser.find_elements(By.CSS_SELECTOR, "figure.chart")
    assert [f.get_attribute("id") for f in figures] == ["chart-recall", "chart-mrr", "chart-split", "chart-tag"]
    for figure in figures:
        marks = browser.execute_script(
            "return Array.from(arguments[0].querySelectorAll('g.mark-line path, g.mark-symbol path, "
            "g.mark-rect path, g.mark-area path')).map(function (p) { var b = p.getBBox(); "
            "return [p.closest('g[class*=mark-]').getAttribute('class'), b.width, b.height]; })", figure)
        assert marks, figure.get_attribute("id")
        assert any(w > 0 and h > 0 for _, w, h in marks), (figure.get_attribute("id"), marks)
    curve = browser.execute_script("return document.querySelectorAll('#chart-recall g.mark-line path').length")
    assert curve == 3  # chunk, document and character recall over the k sweep


def column_ids(browser) -> list[str]:
    return [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#queries tbody tr td:first-child")]


def test_clicking_a_column_header_sorts_the_query_table(browser, report):
    html, data = report
    browser.get(html.as_uri())
    listed = [q["query_id"] for q in data["queries"]]
    assert column_ids(browser) == listed
    rank = {q["query_id"]: min((r for r in q["hit_ranks"] if r is not None), default=float("inf"))
            for q in data["queries"]}
    header = browser.find_element(By.XPATH, "//table[@id='queries']//th[.='first hit rank']")
    header.click()
    ascending = sorted(listed, key=lambda q: (rank[q], listed.index(q)))  # ties keep the report's order
    assert column_ids(browser) == ascending
    assert header.get_attribute("aria-sort") == "ascending"
    assert len(set(rank.values())) > 2 and ascending != listed  # the click had something to do
    header.click()
    assert column_ids(browser) == sorted(listed, key=lambda q: (-rank[q], listed.index(q)))
    assert header.get_attribute("aria-sort") == "descending"
