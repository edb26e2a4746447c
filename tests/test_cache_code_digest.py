"""A cache entry is read only by the code that wrote it, not merely by the same version.

A development checkout changes labeller's rules without changing ``__version__``; entries
keyed by the version alone kept answering with the old code's results (a build's
suggestions stayed the old rule's until an input changed).
"""

from __future__ import annotations

from pathlib import Path

from labeller.core import cache
from labeller.core.cache import Codec, DigestCache, source_digest

INTS = Codec("test-ints", list, list)
SECRET = b"k" * 32


def _package(root: Path) -> Path:
    (root / "pkg" / "core").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "core" / "rule.py").write_text("LIMIT = 80\n")
    return root / "pkg"


def test_the_digest_follows_every_source_change_and_nothing_else(tmp_path):
    package = _package(tmp_path)
    first = source_digest(package)
    assert source_digest(package) == first
    (package / "core" / "__pycache__").mkdir()
    (package / "core" / "__pycache__" / "rule.cpython-311.pyc").write_bytes(b"\0compiled")
    assert source_digest(package) == first  # compiled files are not the code
    (package / "core" / "rule.py").write_text("LIMIT = 60\n")
    edited = source_digest(package)
    assert edited != first
    (package / "core" / "rule.py").rename(package / "core" / "rules.py")
    assert source_digest(package) not in (first, edited)  # the same bytes under another name
    (package / "core" / "rules.py").rename(package / "core" / "rule.py")
    assert source_digest(package) == edited
    (package / "extra.py").write_text("")
    assert source_digest(package) != edited


def test_an_entry_written_by_other_code_of_the_same_version_is_a_miss(tmp_path, monkeypatch):
    folder = tmp_path / ".labeller-cache"
    monkeypatch.setattr(cache, "code_digest", lambda: "the code before an edit")
    DigestCache(folder, SECRET).put(("doc", "sha"), [1, 2, 3], INTS)
    assert DigestCache(folder, SECRET).get(("doc", "sha"), INTS) == [1, 2, 3]  # from disk: a fresh memory
    monkeypatch.setattr(cache, "code_digest", lambda: "the code after it")
    assert DigestCache(folder, SECRET).get(("doc", "sha"), INTS) is None

