"""The README's key table lists exactly the app's bindings (no key added or renamed silently)."""

from __future__ import annotations

from pathlib import Path

from labeller.app.app import binding_groups

REPO = Path(__file__).resolve().parents[1]


def key_table_rows(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.startswith("| ") and "`" in line}


def test_key_table_matches_the_bindings():
    # the section is written in notes/readme-app.md and merged into README.md by the lead
    sources = [p for p in (REPO / "notes" / "readme-app.md", REPO / "README.md") if p.is_file()]
    documented = [key_table_rows(p.read_text(encoding="utf-8")) for p in sources]
    expected = {f"| {where} | `{key}` | {does} |" for where, rows in binding_groups() for key, does in rows}
    assert any(expected <= rows for rows in documented), sorted(expected - set().union(*documented))
