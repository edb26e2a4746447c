"""The cached BM25 index is verified while read once and then memory-mapped (issue 19, item 3).

The retriever reads postings out of the index long after it is opened, so what
``load_storage`` verified must be what is read for as long as the retriever lives. The
design (``bm25.load_storage``, ``cache.map_verified``): each file is hashed through one
descriptor and that descriptor is mapped, so replacing, renaming or deleting the files or
the folder later cannot reach the retriever; and only files that nobody but this user can
write are mapped, so nobody else can write into a mapped inode. These tests hold both
halves, with planted files (a pickle payload that writes a marker file if anything ever
unpickled it).
"""

from __future__ import annotations

import mmap
import os
import pickle
import shutil
import stat
from pathlib import Path

import numpy as np
import pytest
from conftest import write_project

from labeller.config import load_config
from labeller.core import cache as cache_module
from labeller.core.cache import DigestCache
from labeller.core.project import Project
from labeller.eval.analysis import AUTO_V3
from labeller.eval.retrievers.bm25 import (DEFAULT_FIELD_WEIGHTS, INDEX_FILE, MANIFEST, BM25Retriever, IndexFiles,
                                           build_storage, distinct_chunks, index_key, load_storage)

DOCS = {
    "expenses.md": "# Expenses\n\nReimbursements are paid on the 25th with the salary.\n\n## Receipts\n\n"
                   "Submit receipts within 30 days of the purchase.\n",
    "vpn.md": "# VPN\n\nThe WireGuard key of a laptop expires after 90 days.\n\n## Phones\n\n"
              "Phones use certificates that last 365 days.\n",
    "経費.md": "# 経費精算\n\n立て替えた経費は毎月25日に給与と一緒に振り込まれます。\n",
}
QUERIES = ("when are reimbursements paid", "receipts purchase", "wireguard key laptop", "phones certificates",
           "経費 給与", "days")


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('code ran')",)


def _project(root: Path) -> Project:
    cfg = load_config(root)
    return Project(cfg, DigestCache(cfg.layout.cache_dir))


def _index_dir(root: Path) -> Path:
    (folder,) = [p for p in (root / ".labeller-cache" / "bm25").iterdir() if not p.name.startswith(".")]
    return folder


def _rankings(r: BM25Retriever) -> list[list[tuple[str, float]]]:
    return [[(h.chunk_id, h.score) for h in r.search_hits(text, 10)] for text in QUERIES]


def _loaded(root: Path) -> tuple[Project, IndexFiles, BM25Retriever]:
    project = _project(root)
    chunks = distinct_chunks(project.all_chunks)
    storage, why = load_storage(_index_dir(root), index_key(project, AUTO_V3, chunks), project.cache.secret)
    assert why == "loaded" and isinstance(storage, IndexFiles)
    return project, storage, BM25Retriever(chunks, storage, AUTO_V3, dict(DEFAULT_FIELD_WEIGHTS), "loaded")


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "PWNED"
    pickle.loads(pickle.dumps(_Payload(path)))  # the payload is live
    assert path.exists()
    path.unlink()
    return path


def test_a_loaded_index_is_mapped_not_copied_and_ranks_like_a_fresh_build(tmp_path):
    root = write_project(tmp_path / "p", DOCS)
    cold = BM25Retriever.for_project(_project(root))
    assert cold.cache_status == "built (missing)"
    project, storage, warm = _loaded(root)
    assert all(isinstance(m, (mmap.mmap, bytes)) for m in storage.files.values())
    assert any(isinstance(m, mmap.mmap) for m in storage.files.values())
    chunks = distinct_chunks(project.all_chunks)
    fresh = BM25Retriever(chunks, build_storage(chunks, AUTO_V3), AUTO_V3, dict(DEFAULT_FIELD_WEIGHTS))
    assert _rankings(cold) == _rankings(warm) == _rankings(fresh)
    # every file saved is writable by its owner only (load_storage refuses anything else)
    for path in _index_dir(root).iterdir():
        assert not path.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH)


@pytest.mark.parametrize("bits", [stat.S_IWGRP, stat.S_IWOTH], ids=["group", "other"])
def test_an_index_file_others_could_write_into_is_never_mapped(tmp_path, bits):
    root = write_project(tmp_path / "p", DOCS)
    fresh = _rankings(BM25Retriever.for_project(_project(root)))
    folder = _index_dir(root)
    victim = max((p for p in folder.iterdir() if p.name != MANIFEST), key=lambda p: p.stat().st_size)
    victim.chmod(victim.stat().st_mode | bits)  # bytes unchanged: it is who could change them that counts
    project = _project(root)
    key = index_key(project, AUTO_V3, distinct_chunks(project.all_chunks))
    assert load_storage(folder, key, project.cache.secret) == (None, "corrupt")
    r = BM25Retriever.for_project(project)
    assert r.cache_status == "built (corrupt)" and _rankings(r) == fresh
    assert BM25Retriever.for_project(_project(root)).cache_status == "loaded"  # the rebuild is mapped again


def test_an_index_file_of_another_owner_is_never_mapped(tmp_path, monkeypatch):
    root = write_project(tmp_path / "p", DOCS)
    BM25Retriever.for_project(_project(root))
    project = _project(root)
    key = index_key(project, AUTO_V3, distinct_chunks(project.all_chunks))
    assert load_storage(_index_dir(root), key, project.cache.secret)[1] == "loaded"
    monkeypatch.setattr(cache_module.os, "geteuid", lambda: os.getuid() + 1)  # as if another user owned the files
    assert load_storage(_index_dir(root), key, project.cache.secret) == (None, "corrupt")


@pytest.mark.parametrize("how", ["rename_folder", "replace_files", "delete_folder"])
def test_an_index_replaced_after_verification_reaches_nothing_the_retriever_reads(tmp_path, marker, how):
    """After the index is loaded, its folder or files are swapped for pickles that run code
    when unpickled: the retriever goes on reading postings (and a new one opens the same
    storage again) and sees only the verified bytes; nothing runs, and every ranking is
    unchanged."""
    root = write_project(tmp_path / "p", DOCS)
    BM25Retriever.for_project(_project(root))
    project, storage, r = _loaded(root)
    before = _rankings(r)
    folder = _index_dir(root)
    payload = pickle.dumps(_Payload(marker))
    names = [p.name for p in folder.iterdir()]
    if how == "rename_folder":
        planted = folder.parent / "planted"
        planted.mkdir()
        for name in names:
            (planted / name).write_bytes(payload)
        os.rename(folder, folder.parent / "gone")
        os.rename(planted, folder)
    elif how == "replace_files":  # a new inode per file, renamed over the old one
        for name in names:
            (folder / f"{name}.new").write_bytes(payload)
            os.replace(folder / f"{name}.new", folder / name)
    else:
        shutil.rmtree(folder)
    r._weighted_cache.clear()  # read every posting list again, from the storage
    assert _rankings(r) == before
    again = BM25Retriever(distinct_chunks(project.all_chunks), storage, AUTO_V3, dict(DEFAULT_FIELD_WEIGHTS))
    assert _rankings(again) == before  # the header and arrays read again from the same maps
    assert not marker.exists()
    if how != "delete_folder":  # and the next load refuses what was planted, and rebuilds
        fresh = BM25Retriever.for_project(_project(root))
        assert fresh.cache_status in ("built (corrupt)", "built (untrusted)") and _rankings(fresh) == before
        assert not marker.exists()


class _RecordedMap(mmap.mmap):
    """A read-only map that records the ranges given back to the system."""

    released: list[tuple[int, int]]

    def madvise(self, option, start=0, length=None):  # type: ignore[override]
        self.released.append((option, start, length))
        return super().madvise(option, start, length)


@pytest.mark.skipif(not hasattr(mmap, "MADV_DONTNEED"), reason="no madvise on this platform (Windows): "
                    "save_storage then copies the file's bytes without giving pages back")
def test_saving_a_mapped_index_gives_each_copied_piece_back(tmp_path):
    """``save_storage`` copies a built (mapped) index out of its maps piece by piece and hands
    each piece's pages back once it is copied: at 100 MB of corpus the index is
    ~330 MB, and holding all of its read pages made the save the cold eval's peak (measured
    by benchmarks/curve.py, not here). The copy stays byte-identical."""
    from labeller.eval.retrievers.bm25 import PIECE, save_storage

    size = 5 * PIECE + 123
    big = tmp_path / "built" / "MAIN_big.seg"
    big.parent.mkdir()
    big.write_bytes(bytes(range(251)) * (size // 251) + bytes(size % 251))
    with open(big, "rb") as f:
        mapped = _RecordedMap(f.fileno(), 0, access=mmap.ACCESS_READ)
    mapped.released = []
    storage = IndexFiles({big.name: mapped})
    saved = save_storage(tmp_path / "cache" / "slot", storage, {"k": 1}, b"s" * 32)
    assert (tmp_path / "cache" / "slot" / big.name).read_bytes() == big.read_bytes()
    assert isinstance(saved, IndexFiles) and len(saved.files[big.name]) == size
    assert mapped.released == [(mmap.MADV_DONTNEED, at, min(PIECE, size - at)) for at in range(0, size, PIECE)]


def test_a_terms_postings_are_copied_out_of_the_mapped_index(tmp_path):
    """``BM25Index.postings`` gives back the mapped pages it read (the term cache keeps its
    own copy), so what it returns must not be a view of the map."""
    root = write_project(tmp_path / "p", DOCS)
    BM25Retriever.for_project(_project(root))
    _, storage, warm = _loaded(root)
    assert isinstance(storage.files[INDEX_FILE], mmap.mmap)
    whole = np.frombuffer(storage.files[INDEX_FILE], dtype=np.uint8)
    ids, weights = warm._index.postings("body", "day")
    assert len(ids) and len(ids) == len(weights)
    assert not np.shares_memory(ids, whole) and not np.shares_memory(weights, whole)
    assert _rankings(warm) == _rankings(BM25Retriever.for_project(_project(root)))
