"""A planted cache runs nothing (issue 18, finding 1).

``.labeller-cache/`` sits in the project, so a pull request, a tarball or a shared folder can
carry it. Here every kind of cache entry, and the BM25 index's file, is replaced by a pickle whose loading writes a marker file, in each form an attacker (or an
old labeller) could leave: a labeller 1 entry at its old name, an entry at today's name whose
MAC is forged, and even one whose MAC is valid (as if the secret had leaked: the body must
still never be unpickled). Then ``labeller build --check`` and ``labeller eval`` run as real
commands on a copy of the bundled project, and the app's session starts on it: the marker
never appears and every command succeeds, the planted entries ignored and recomputed.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import q, write_project

from labeller import __version__
from labeller.cli import main
from labeller.config import load_config
from labeller.core import anchors, chunkers, expansion, windows
from labeller.core.build import build, last_build_codec
from labeller.core.cache import CACHE_FORMAT, Codec, DigestCache, cache_secret, mac, secret_path
from labeller.core.project import Project
from labeller.core.vocab import BlockKind, Place, RefusalKind
from labeller.eval.retrievers import bm25

REPO = Path(__file__).resolve().parents[1]
V1_MAGIC = b"labeller-cache-v1\n"


class _Payload:
    """Unpickling this runs code: it writes the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('code ran')",)


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "PWNED"
    pickle.loads(pickle.dumps(_Payload(path)))  # the payload is live: unpickling it does write the marker
    assert path.exists()
    path.unlink()
    return path


@pytest.fixture
def bundled(tmp_path):
    root = tmp_path / "bundled"
    for name in ("corpus", "golden"):
        shutil.copytree(REPO / name, root / name)
    return root


def _start_session(root: Path):
    """What the app does when it starts: open the project, chunk and index it, build every
    record, load the search index."""
    from labeller.app.session.session import AuthoringSession

    session = AuthoringSession.open(root)
    session.prepare()
    session.store(session.compute(session.snapshot()))
    session.warm_search()
    return session


def _written_entries(root: Path, monkeypatch) -> dict[tuple[str, str], tuple[tuple, Codec]]:
    """Run build, eval and the app's start once, recording every (key, codec) stored; plus the
    whole-document blocks of every document (the app's section view asks for them)."""
    written = {}
    put = DigestCache.put

    def recording(self, key, value, codec):
        written[repr(key), codec.name] = key, codec
        put(self, key, value, codec)

    with monkeypatch.context() as mp:
        mp.setattr(DigestCache, "put", recording)
        assert main(["build", "--root", str(root)]) == 0
        assert main(["eval", "--root", str(root), "--no-history"]) == 0
        _start_session(root)
    project = Project(load_config(root), DigestCache(load_config(root).layout.cache_dir))
    for doc in project.corpus:
        key = (*project.block_cache.namespace, doc.doc_id, doc.sha256)
        written[repr(key), expansion.BLOCKS_CODEC.name] = key, expansion.BLOCKS_CODEC
    return written


def _every_codec_name() -> set[str]:
    names = {c.name for module in (anchors, chunkers, expansion, windows) for c in vars(module).values()
             if isinstance(c, Codec)}
    return names | {last_build_codec((), []).name}


def _v2_path(root: Path, key: tuple, codec: Codec) -> Path:
    cache = DigestCache(root / ".labeller-cache")
    name = cache._name(key, codec)
    return cache.folder / name[:2] / name


def _v1_path(root: Path, key: tuple) -> Path:
    digest = hashlib.sha256(repr((__version__, key)).encode("utf-8")).hexdigest()
    return root / ".labeller-cache" / "derived" / digest[:2] / digest


def _plant_entries(root: Path, entries, form: str, body: bytes) -> list[Path]:
    planted = []
    for key, codec in entries.values():
        if form == "v1":  # exactly what labeller 1 wrote and unpickled: sha256(body), magic, pickle
            path = _v1_path(root, key)
            data = hashlib.sha256(body).hexdigest().encode() + b"\n" + V1_MAGIC + body
            _v2_path(root, key, codec).unlink(missing_ok=True)  # so a v1 reader would have nothing else
        else:
            path = _v2_path(root, key, codec)
            name = path.name
            tag = (mac(cache_secret(), name.encode(), body) if form == "valid-mac"
                   else hashlib.sha256(body).hexdigest()).encode()
            data = CACHE_FORMAT.encode() + b"\n" + tag + b"\n" + body
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        planted.append(path)
    return planted


def _planted_index(root: Path, marker: Path, keep_mac: bool) -> dict[str, bytes]:
    """The cached index folder with every index file replaced by the payload's pickle,
    listed in the manifest with its right sha256 (anyone can compute that; only the MAC
    needs the secret). Returned as file contents, to be put back before each command."""
    (folder,) = [p for p in (root / ".labeller-cache" / "bm25").iterdir() if not p.name.startswith(".")]
    manifest = json.loads((folder / bm25.MANIFEST).read_text())
    body = pickle.dumps(_Payload(marker))
    files = {name: body for name in manifest["files"]}
    manifest["files"] = {name: hashlib.sha256(body).hexdigest() for name in files}
    if not keep_mac:
        del manifest["mac"]  # the manifest labeller 1 wrote, before the MAC
    files[bm25.MANIFEST] = json.dumps(manifest).encode()
    return {f"{folder.name}/{name}": data for name, data in files.items()}


def _put_back(root: Path, files: dict[str, bytes]) -> None:
    base = root / ".labeller-cache" / "bm25"
    shutil.rmtree(base)
    for name, data in files.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_bytes(data)


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "labeller.cli", *args, "--root", str(root)], env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("form", ["v1", "forged-mac", "valid-mac"])
def test_a_planted_pickle_in_any_cache_entry_or_the_index_runs_nothing(bundled, marker, monkeypatch, form):
    entries = _written_entries(bundled, monkeypatch)
    assert {name for _, name in entries} == _every_codec_name()  # every kind of entry is planted
    body = pickle.dumps(_Payload(marker))
    index = _planted_index(bundled, marker, keep_mac=form != "v1")

    def plant() -> list[Path]:
        _put_back(bundled, index)
        return _plant_entries(bundled, entries, form, body)

    plant()
    done = _cli(bundled, "build", "--check")
    assert not marker.exists(), "a planted cache entry ran code on build --check"
    assert done.returncode == 0, done.stdout + done.stderr

    plant()
    done = _cli(bundled, "eval", "--no-history")
    assert not marker.exists(), "a planted cache entry or index ran code on eval"
    assert done.returncode == 0, done.stdout + done.stderr

    plant()
    session = _start_session(bundled)
    assert not marker.exists(), "a planted cache entry or index ran code when the app started"
    assert session.ready and session.last_build.ok
    assert bm25.BM25Retriever.for_project(session.project).cache_status == (
        "built (corrupt)" if form == "v1" else "built (untrusted)")

    if form != "v1":  # each planted entry that was asked for was dropped, recomputed and stored again
        cache = DigestCache(bundled / ".labeller-cache")
        for key, codec in entries.values():
            if codec is not expansion.BLOCKS_CODEC:  # whole-document blocks: planted, never asked for here
                path = _v2_path(bundled, key, codec)
                assert b"PWNED" not in path.read_bytes() and cache.get(key, codec) is not None, codec.name
    assert main(["build", "--root", str(bundled), "--check"]) == 0
    assert not marker.exists()


def _mutations(data):
    """Copies of ``data`` with one leaf of another type: what a decoder must refuse."""
    def swap(value, first_only: list):
        if isinstance(value, list):
            return [swap(v, first_only) for v in value]
        if isinstance(value, dict):
            return {k: swap(v, first_only) for k, v in value.items()}
        if first_only and type(value) is first_only[0]:
            first_only.clear()
            return {int: "7", str: 7, float: "0.5"}[type(value)]
        return value

    for kind in (int, str, float):
        flag = [kind]
        mutated = swap(data, flag)
        if not flag:  # something was swapped
            yield mutated
    yield None
    yield {"unexpected": [1, 2, 3]}
    yield [[[[[]]]]]


def test_an_authenticated_entry_of_the_wrong_shape_is_a_miss_never_a_crash(bundled, monkeypatch, capsys):
    """Even with a valid MAC (our own older entry, or a leaked secret) every decoder checks
    the shape: a wrong one is recomputed, and the build still matches the committed artifact."""
    entries = _written_entries(bundled, monkeypatch)
    originals, codecs = {}, {}
    for key, codec in entries.values():
        path = _v2_path(bundled, key, codec)
        if path.exists():
            originals[path] = json.loads(path.read_bytes().split(b"\n", 2)[2])
            codecs[path] = codec
            codec.decode(originals[path])  # what labeller wrote decodes...
    assert {c.name for c in codecs.values()} == _every_codec_name() - {expansion.BLOCKS_CODEC.name}
    variants = {path: list(_mutations(data)) for path, data in originals.items()}
    for path, mutated in variants.items():
        for data in mutated:
            with pytest.raises(Exception):  # ...and no variant of another type does
                codecs[path].decode(data)
    deep = b"[" * 100_000 + b"]" * 100_000  # json.loads recursion
    rounds = max(len(v) for v in variants.values()) + 1
    for i in range(rounds):
        for path, mutated in variants.items():
            body = deep if i == rounds - 1 else json.dumps(mutated[min(i, len(mutated) - 1)]).encode()
            tag = mac(cache_secret(), path.name.encode(), body).encode()
            path.write_bytes(CACHE_FORMAT.encode() + b"\n" + tag + b"\n" + body)
        assert main(["build", "--root", str(bundled), "--check"]) == 0, i
        session = _start_session(bundled)
        assert session.last_build.ok
    capsys.readouterr()


def test_the_cached_build_result_round_trips_with_every_kind_of_refusal(tmp_path):
    root = write_project(tmp_path / "p", {
        "a.md": "# Alpha\n\nThe kestrel nests on the ridge.\n\n- one item\n- two item\n\n# Beta\n\nkestrel again.\n",
    }, [q("r1", {"quote": "nests on the ridge"}), q("r2", {"quote": "kestrel"}), q("r3", {"quote": "kestrel nests on a ridge"}),
        q("r4", {"doc": "a.md", "heading": "Beta"}), q("r5", {"doc": "a.md", "quote": "# Alpha"}),
        q("r6", {"quote": "one item"}, {"quote": "one item"}), q("r7", {"doc": "missing.md", "quote": "x"})])
    project = Project(load_config(root))
    questions = project.load_questions().questions
    result = build(project, questions)
    kinds = {r.kind for r in result.refusals}
    assert {"ambiguous", "not_found", "duplicate_span", "unknown_doc"} <= kinds
    by_kind = {r.kind: r for r in result.refusals}
    assert by_kind["ambiguous"].places and by_kind["not_found"].suggested_places  # the new fields are not empty
    assert any(o["context"] for o in by_kind["ambiguous"].occurrences)  # a dict inside an occurrence
    codec = last_build_codec(("k",), questions)
    key, decoded = codec.decode(json.loads(json.dumps(codec.encode((("k",), result)))))
    assert (key, decoded) == (("k",), result)
    # StrEnums equal their strings, so == alone would not see a kind or block come back as str
    assert all(type(r.kind) is RefusalKind for r in decoded.refusals)
    assert all(type(s.block) is BlockKind for rec in decoded.records for s in rec.spans) and decoded.records[0].spans
    assert all(type(p) is Place for r in decoded.refusals for p in (*r.places, *r.suggested_places))
    with pytest.raises(ValueError):
        last_build_codec(("other",), questions).decode(json.loads(json.dumps(codec.encode((("k",), result)))))


def test_the_cache_secret_is_private_and_refused_when_it_is_not(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "conf"))
    secret = cache_secret()
    path = secret_path()
    assert secret and path == tmp_path / "conf" / "labeller" / "cache.key"
    assert oct(path.stat().st_mode & 0o777) == "0o600" and oct(path.parent.stat().st_mode & 0o777) == "0o700"
    assert cache_secret() == secret  # created once, then read

    from labeller.core import cache as cache_module

    def fresh() -> DigestCache:
        cache_module._load_secret.cache_clear()
        return DigestCache(tmp_path / "proj" / ".labeller-cache")

    path.chmod(0o644)
    refused = fresh()
    assert refused.folder is None and "group or others" in refused.disabled
    path.chmod(0o600)
    assert fresh().folder is not None
    path.parent.chmod(0o777)
    assert fresh().folder is None
    path.parent.chmod(0o700)
    path.parent.parent.chmod(0o775)  # ~/.config under a umask of 002: the user's own group
    assert fresh().folder is not None
    path.parent.parent.chmod(0o777)
    assert fresh().folder is None
    path.parent.parent.chmod(0o700)
    moved = tmp_path / "elsewhere.key"
    path.rename(moved)
    path.symlink_to(moved)
    assert fresh().folder is None
    path.unlink()
    assert fresh().folder is not None and cache_secret() != secret  # a new secret: old entries are all misses
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    cache_module._load_secret.cache_clear()
    assert secret_path() == tmp_path / "home" / ".config" / "labeller" / "cache.key" and cache_secret()
    cache_module._load_secret.cache_clear()


def test_a_symlinked_cache_folder_is_never_written_through(bundled, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (bundled / ".labeller-cache").symlink_to(elsewhere)
    assert main(["build", "--root", str(bundled), "--check"]) == 0
    assert main(["eval", "--root", str(bundled), "--no-history"]) == 0
    assert list(elsewhere.iterdir()) == []


def test_a_fifo_planted_as_a_cache_entry_does_not_hang(bundled, monkeypatch):
    entries = _written_entries(bundled, monkeypatch)
    for key, codec in entries.values():
        path = _v2_path(bundled, key, codec)
        path.unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path)
    (folder,) = [p for p in (bundled / ".labeller-cache" / "bm25").iterdir() if not p.name.startswith(".")]
    (folder / bm25.MANIFEST).unlink()
    os.mkfifo(folder / bm25.MANIFEST)
    done = _cli(bundled, "build", "--check")
    assert done.returncode == 0, done.stderr
    done = _cli(bundled, "eval", "--no-history")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", sorted(chunkers.REGISTRY))
def test_every_registered_chunkers_rows_are_stored_as_checked_json_and_read_back(bundled, name, monkeypatch):
    """Each chunker's rows go through ``ROWS_CODEC``: a second run reads them from disk (the
    chunker is never asked again) and gets the same chunks; a planted row of the wrong type
    is a miss, recomputed."""
    from labeller.core.corpus import load_corpus

    corpus = load_corpus(bundled / "corpus")
    chunker = chunkers.get_chunker(name)
    first = chunkers.chunk_corpus(corpus, chunker, DigestCache(bundled / ".labeller-cache"))
    assert sum(map(len, first.values())) > 0

    def asked(doc):
        raise AssertionError(f"{name} was asked to chunk {doc.doc_id} again: its rows were not read back")

    with monkeypatch.context() as mp:
        mp.setattr(type(chunker), "rows", lambda self, doc: asked(doc))
        assert chunkers.chunk_corpus(corpus, chunker, DigestCache(bundled / ".labeller-cache")) == first
    doc = next(iter(corpus))
    path = _v2_path(bundled, chunkers.chunk_key(chunker, doc), chunkers.ROWS_CODEC)
    data = json.loads(path.read_bytes().split(b"\n", 2)[2])
    data["start"][0] = str(data["start"][0])  # authenticated, but a string where an offset goes
    body = json.dumps(data).encode()
    path.write_bytes(CACHE_FORMAT.encode() + b"\n" + mac(cache_secret(), path.name.encode(), body).encode()
                     + b"\n" + body)
    assert DigestCache(bundled / ".labeller-cache").get(chunkers.chunk_key(chunker, doc), chunkers.ROWS_CODEC) is None
    assert chunkers.chunk_corpus(corpus, chunker, DigestCache(bundled / ".labeller-cache")) == first
