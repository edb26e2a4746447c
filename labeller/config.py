"""Project configuration: ``labeller.toml`` at the project root, then command-line flags.

Everything has a default so that a folder with ``corpus/`` and ``golden/questions.jsonl``
is already a project.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from labeller.core.corpus import DEFAULT_INCLUDE, DEFAULT_MAX_FILE_BYTES
from labeller.core.questions import Limits
from labeller.errors import InvalidInput

CONFIG_NAME = "labeller.toml"


@dataclass(frozen=True)
class EvalConfig:
    k: tuple[int, ...] = (1, 5, 10, 20, 50)
    shipped_k: int = 5
    analyzer: str = "auto"
    bootstrap_samples: int = 2000
    seed: int = 20261129
    field_weights: dict = field(default_factory=dict)
    history: str = ".labeller/runs.duckdb"
    chunk_file_max_bytes: int = 256 * 1024 * 1024  # bounds on an untrusted chunk file (eval --chunks)
    chunk_file_max_chunks: int = 1_000_000


@dataclass(frozen=True)
class ProjectConfig:
    root: Path
    corpus: Path
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    questions: Path = Path("golden/questions.jsonl")
    out: Path = Path("golden")
    chunker: str = "md-struct-v1"
    max_chars: int = 1800
    hit_rule: str = "any_overlap"
    limits: Limits = Limits()
    eval: EvalConfig = EvalConfig()

    @property
    def artifact_path(self) -> Path:
        return self.out / "golden-set.v1.jsonl"

    @property
    def manifest_path(self) -> Path:
        return self.out / "golden-set.v1.manifest.json"

    @property
    def cache_dir(self) -> Path:
        return self.root / ".labeller-cache"

    @property
    def review_log(self) -> Path:
        return self.questions.with_name("reviews.jsonl")


_SECTIONS = {
    "corpus": {"root": str, "include": list, "exclude": list, "max_file_bytes": int},
    "golden": {"questions": str, "out": str},
    "build": {"chunker": str, "max_chars": int, "hit_rule": str},
    "limits": {"max_file_bytes": int, "max_records": int, "max_query_chars": int, "max_locators": int},
    "eval": {"k": list, "shipped_k": int, "analyzer": str, "bootstrap_samples": int, "seed": int,
             "field_weights": dict, "history": str, "chunk_file_max_bytes": int, "chunk_file_max_chunks": int},
}


def _validate(data: dict, path: Path) -> None:
    for section, values in data.items():
        if section not in _SECTIONS or not isinstance(values, dict):
            raise InvalidInput(f"unknown section [{section}]", path=str(path))
        for key, value in values.items():
            want = _SECTIONS[section].get(key)
            if want is None:
                raise InvalidInput(f"unknown key {key!r} in [{section}]", path=str(path))
            if not isinstance(value, want) or (want is int and isinstance(value, bool)):
                raise InvalidInput(f"[{section}] {key} must be a {want.__name__}", path=str(path))


def load_config(root: Path | str = ".", *, corpus: str | None = None, questions: str | None = None,
                out: str | None = None, hit_rule: str | None = None) -> ProjectConfig:
    """Read ``labeller.toml`` (if any) under ``root`` and apply flag overrides."""
    root = Path(root).resolve()
    path = root / CONFIG_NAME
    data: dict = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"cannot parse: {exc}", path=str(path)) from None
        _validate(data, path)
    c, g, b = data.get("corpus", {}), data.get("golden", {}), data.get("build", {})
    lim = data.get("limits", {})
    ev = dict(data.get("eval", {}))
    if "k" in ev:
        ev["k"] = tuple(int(k) for k in ev["k"])
    cfg = ProjectConfig(
        root=root,
        corpus=root / (corpus or c.get("root", "corpus")),
        include=tuple(c.get("include", DEFAULT_INCLUDE)),
        exclude=tuple(c.get("exclude", ())),
        max_file_bytes=c.get("max_file_bytes", DEFAULT_MAX_FILE_BYTES),
        questions=root / (questions or g.get("questions", "golden/questions.jsonl")),
        out=root / (out or g.get("out", "golden")),
        chunker=b.get("chunker", "md-struct-v1"),
        max_chars=b.get("max_chars", 1800),
        hit_rule=hit_rule or b.get("hit_rule", "any_overlap"),
        limits=replace(Limits(), **lim),
        eval=replace(EvalConfig(), **ev),
    )
    return cfg
