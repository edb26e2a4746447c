"""Project configuration: ``labeller.toml`` at the project root, then command-line flags.

Everything has a default so that a folder with ``corpus/`` and ``golden/questions.jsonl``
is already a project. The file is parsed once, up front, into one pydantic model per
section; every value is checked (types *and* ranges, unknown keys refused) before any
command runs, so a bad setting is an exit-2 message naming the file, the key and the
reason — never a traceback halfway through a build.

This module is the bottom layer with ``io`` and ``errors``: it imports nothing else of
labeller, and the core reads its bounds (``Limits``) and corpus defaults from here.
Names that only an upper layer can judge are checked by their owners: the chunker and
the hit rule as soon as a project is opened (``core.project``), the analyzer when an eval
runs (its registry pulls in the search library, which a quick ``build --check`` must not pay
for).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from pathlib import Path
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, ValidationInfo

from labeller.errors import InvalidInput
from labeller.io import read_regular_file
from labeller.layout import CONFIG_NAME, STATE_DIR, ProjectLayout, inside, project_tree

DEFAULT_INCLUDE = ("**/*.md",)
DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_K = 1000  # the deepest cut-off an eval scores (and so retrieves)
MAX_CONFIG_BYTES = 1024 * 1024  # labeller.toml is read like any other untrusted file: bounded
# Upper bounds of the settings (issue 23): labeller.toml comes with the repository, so a
# value within a key's type must still not make a CI job run for hours, take gigabytes or
# overflow. Each sits far above any real use; the docs/interop.md table lists them.
MAX_INPUT_BYTES = 256 * 1024 * 1024  # a document or a label file (the run file's and report's own bound)
MAX_CHUNK_FILE_BYTES = 1024 * 1024 * 1024
MAX_FIELD_WEIGHT = 1000.0  # weights are ratios: 0..1000 against the defaults' 0.25..1; scores stay finite
MAX_RECORDS = 1_000_000  # questions in a golden set, and so records in its artifact
MAX_BOOTSTRAP_SAMPLES = 100_000  # an interval end within 0.05 percentile points of exact: no printed digit moves

_NonEmpty = Annotated[str, Field(min_length=1)]
_Positive = Annotated[int, Field(ge=1)]
_Bytes = Annotated[int, Field(ge=1, le=MAX_INPUT_BYTES)]


class _Section(BaseModel):
    """Strict (a string is never read as a number), frozen, unknown keys refused.

    The docstrings under the fields document the keys for the reader of this file; pydantic
    is not asked to copy them into field descriptions (``use_attribute_docstrings``), which
    reads and parses this file's source at import: a tenth of the app's start, for a text
    nothing prints."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    @field_validator("*", mode="before")
    @classmethod
    def _lists_as_tuples(cls, value: Any) -> Any:
        # TOML has arrays, the models hold tuples (hashable, immutable)
        return tuple(value) if isinstance(value, list) else value


class CorpusConfig(_Section):
    """``[corpus]``: which files are documents."""

    root: _NonEmpty = "corpus"
    """The corpus folder, relative to the project root."""
    include: Annotated[tuple[_NonEmpty, ...], Field(min_length=1)] = DEFAULT_INCLUDE
    """Glob patterns (relative to the corpus folder) of the files that are documents."""
    exclude: tuple[_NonEmpty, ...] = ()
    """Glob patterns of files left out even though an include pattern matches them."""
    max_file_bytes: _Bytes = DEFAULT_MAX_FILE_BYTES
    """Largest document, in bytes (at most 256 MiB); a bigger file stops the load (exit 2)."""


class GoldenConfig(_Section):
    """``[golden]``: where the labels live."""

    questions: _NonEmpty = "golden/questions.jsonl"
    """The source of truth, relative to the project root."""
    out: _NonEmpty = "golden"
    """The folder the derived artifact and manifest are written to."""


class BuildConfig(_Section):
    """``[build]``: how labels become answer-bearing chunks."""

    chunker: _NonEmpty = "md-struct-v1"
    """The named, versioned chunker (checked against the registry when the project opens)."""
    max_chars: Annotated[int, Field(ge=1, le=1_000_000)] = 1800
    """The chunker's size budget in characters (1..1,000,000: a bigger chunk is no retrieval unit)."""
    hit_rule: _NonEmpty = "any_overlap"
    """any_overlap, span_containment, coverage>=T or union_coverage>=T (checked when the project opens)."""


class Limits(_Section):
    """``[limits]``: bounds on an untrusted label file (questions, annotations, imports)."""

    max_file_bytes: _Bytes = 1024 * 1024
    """Largest label file, in bytes (at most 256 MiB)."""
    max_records: Annotated[int, Field(ge=1, le=MAX_RECORDS)] = 10_000
    """Most records in one label file (at most 1,000,000)."""
    max_query_chars: Annotated[int, Field(ge=1, le=100_000)] = 8_000
    """Longest query, in characters after NFC normalisation (at most 100,000)."""
    max_locators: Annotated[int, Field(ge=1, le=10_000)] = 64
    """Most locators on one record (at most 10,000)."""

    @property
    def max_lines(self) -> int:
        """Most lines in a label file whose lines are records (questions, annotations, queries):
        a record, a comment and a blank line for each and 1,000 more, so no file within
        ``max_records`` reaches it, while a file of newlines stops at this many lines, not at
        ``max_file_bytes`` of them (each line read costs an object and time even when blank)."""
        return 3 * self.max_records + 1000


_K = Annotated[int, Field(ge=1, le=MAX_K)]


class EvalConfig(_Section):
    """``[eval]``: how ``labeller eval`` scores a retriever."""

    k: Annotated[tuple[_K, ...], Field(min_length=1)] = (1, 5, 10, 20, 50)
    """Cut-offs scored, each 1..1000. ``shipped_k`` need not be listed: it is always scored too."""
    shipped_k: _K = 5
    """The cut-off the product ships (the regression gate and diagnostics read it)."""
    analyzer: _NonEmpty = "auto"
    """Text analysis of the default BM25 retriever: auto, plain or a versioned analyzer name."""
    bootstrap_samples: Annotated[int, Field(ge=1, le=MAX_BOOTSTRAP_SAMPLES)] = 2000
    """Bootstrap resamples behind each confidence interval (1..100,000)."""
    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] = 20261129
    """Seed of the bootstrap's random generator (a non-negative 64-bit integer)."""
    field_weights: dict[Literal["heading", "breadcrumb", "body"], float] = Field(default_factory=dict)
    """BM25F weight per chunk field (heading, breadcrumb, body), each a finite number from 0 to 1000."""
    bm25_k1: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None
    """BM25's term-frequency saturation k1 (0..100; unset: the retriever's default, 0.9)."""
    bm25_b: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)] | None = None
    """BM25's length normalisation b (0..1; unset: the retriever's default, 0.85)."""
    history: _NonEmpty = f"{STATE_DIR}/runs.duckdb"
    """The run history database, relative to the project root."""
    chunk_file_max_bytes: Annotated[int, Field(ge=1, le=MAX_CHUNK_FILE_BYTES)] = 256 * 1024 * 1024
    """Largest chunk file ``eval --chunks`` reads, in bytes (an untrusted file: bounded; at most 1 GiB)."""
    chunk_file_max_chunks: Annotated[int, Field(ge=1, le=10_000_000)] = 1_000_000
    """Most chunks in one chunk file (at most 10,000,000)."""

    @field_validator("field_weights")
    @classmethod
    def _finite_non_negative(cls, value: dict[str, float]) -> dict[str, float]:
        return _finite_weights(value, "field")


def _finite_weights(value: dict[str, float], what: str) -> dict[str, float]:
    # 1e308 is finite, yet summed over fields and terms it made every BM25 score inf
    for name, weight in value.items():
        if not (math.isfinite(weight) and 0 <= weight <= MAX_FIELD_WEIGHT):
            raise ValueError(f"the weight of {what} {name!r} must be a finite number >= 0 and <= {MAX_FIELD_WEIGHT:g}")
    return value


# Embedding runs on the CPU, where a bigger batch is no faster but holds more: all-MiniLM-L6-v2
# peaked at 0.8 GB with 32 chunk-sized texts a batch and 2.8 GB with 512 (about 4 MB a text), so
# 4096 from a fork's labeller.toml would be some 16 GB, more than a CI runner has.
MAX_DENSE_BATCH = 256
# An instruction is a sentence; a megabyte one (labeller.toml allows 1 MiB) copied before each
# of 10,000 chunks is 10 GB of text to hold and tokenize.
_Prefix = Annotated[str, Field(max_length=1000)]


class DenseConfig(_Section):
    """``[retriever.dense]``: the embedding model of ``--retriever dense`` (``labeller[dense]``)."""

    model: _NonEmpty = "sentence-transformers/all-MiniLM-L6-v2"
    """A sentence-transformers folder inside the project, or a model name found in the local
    Hugging Face cache or an installed model package; never downloaded."""
    query_prefix: _Prefix = ""
    """Put before every query (E5: ``"query: "``; BGE: its instruction); at most 1,000 characters."""
    passage_prefix: _Prefix = ""
    """Put before every chunk's text (E5: ``"passage: "``); at most 1,000 characters."""
    batch_size: Annotated[int, Field(ge=1, le=MAX_DENSE_BATCH)] = 32
    """Chunks embedded per batch (1..256)."""


class FusionConfig(_Section):
    """``[retriever.fusion]``: how ``--retriever hybrid`` and ``rrf:a,b`` fuse their members' rankings."""

    method: Literal["rrf", "zscore", "coverage"] | None = None
    """``rrf``: reciprocal-rank fusion; ``zscore``: each member's scores standardised over its own
    top ``window``, the part above its mean summed; ``coverage``: ``zscore``, the members that do
    not match words weighing less the more of the question the lexical member's first hit holds
    (``retrievers/fusion.py``, docs/eval.md). Not set: ``hybrid`` fuses by ``coverage``,
    ``rrf:a,b`` by ``rrf`` (``fusion.settled``)."""
    k: Annotated[int, Field(ge=1, le=1_000_000)] = 60
    """The RRF constant: a member's hit at rank r adds weight / (k + r)."""
    depth: _K = 100
    """How deep each member retrieves before fusing (at least the eval's own depth is used)."""
    window: Annotated[int, Field(ge=2, le=MAX_K)] = 50
    """``zscore``: how many of a member's top scores give its mean and spread (2..1000)."""
    weights: dict[str, float] = Field(default_factory=dict)
    """Weight per member name (bm25, dense, run, ...), each 0..1000; a member not listed weighs 1,
    except ``dense`` under ``zscore`` and ``coverage``, 0.4 (``fusion.DEFAULT_WEIGHTS``)."""
    ramp: tuple[Annotated[float, Field(ge=0.0, le=1.0)], Annotated[float, Field(ge=0.0, le=1.0)]] = (0.5, 0.8)
    """``coverage``: ``[low, high]``: a member that does not match words keeps its weight while the
    lexical member's first hit holds at most ``low`` of the question's terms, none from ``high``,
    linearly in between (0 <= low < high <= 1)."""
    unreadable_ramp: tuple[Annotated[float, Field(ge=0.0, le=1.0)], Annotated[float, Field(ge=0.0, le=1.0)]] = (
        0.02, 0.1)
    """``coverage``: ``[low, high]``: a member reading the question through a model's tokenizer
    (dense) keeps its weight while the share of the question's non-space characters its
    tokenizer maps to the unknown token is at most ``low``, none from ``high``, linearly in
    between (0 <= low < high <= 1): an English model asked in Japanese has no say."""

    @field_validator("weights")
    @classmethod
    def _finite_non_negative(cls, value: dict[str, float]) -> dict[str, float]:
        return _finite_weights(value, "member")

    @field_validator("ramp", "unreadable_ramp")
    @classmethod
    def _rising(cls, value: tuple[float, float]) -> tuple[float, float]:
        if not value[0] < value[1]:
            raise ValueError(f"the ramp [low, high] needs low < high; got [{value[0]:g}, {value[1]:g}]")
        return value


class RetrieverConfig(_Section):
    """``[retriever.*]``: settings of the built-in retrievers beyond BM25 (which ``[eval]`` holds)."""

    dense: DenseConfig = DenseConfig()
    fusion: FusionConfig = FusionConfig()


_Column = Annotated[str, Field(min_length=1, max_length=200)] | None
_Factor = Annotated[float, Field(ge=1.0, le=100.0)]
_Share = Annotated[float, Field(gt=0.0, lt=1.0)]


class TrafficConfig(_Section):
    """``[traffic]``: how ``labeller traffic sample`` reads a query log and draws from it (SPEC §14).

    The column keys name a log's columns (for an OpenInference span export, its attribute
    names); a flag of the same name overrides each."""

    query: _NonEmpty = "query"
    """The column holding the query text."""
    tenant: _Column = None
    """The tenant (customer, workspace): per-tenant estimates and a stratum column."""
    feedback: _Column = None
    """The user's feedback on the answer; values in ``negative_feedback`` mark a negative."""
    intent: _Column = None
    """Any other column to stratify by (an intent label, a product area)."""
    doc_ids: _Column = None
    """A list column: the ids of the passages the pipeline retrieved, in rank order."""
    doc_texts: _Column = None
    """A list column: their texts (redacted like the query)."""
    doc_scores: _Column = None
    """A list column: their scores."""
    stratify_by: Literal["tenant", "feedback", "intent"] | None = None
    """Which mapped column crosses the head/torso/tail strata."""
    negative_feedback: tuple[_NonEmpty, ...] = ("negative", "thumbs_down", "down", "-1", "bad")
    """Feedback values (compared case-insensitively) that mark a negative."""
    head_share: _Share = 0.5
    """The head: the most frequent folded queries that together make this share of the traffic."""
    torso_share: _Share = 0.3
    """The torso: the next ones, making this much more; the tail is the rest."""
    tail_factor: _Factor = 2.0
    """How many times its share of traffic the tail's share of the sample is (1..100)."""
    negative_factor: _Factor = 2.0
    """The same for folded queries with negative feedback."""
    splits: dict[str, Annotated[float, Field(ge=0.0, le=1.0)]] = Field(
        default_factory=lambda: {"dev": 0.6, "test": 0.3, "holdout": 0.1})
    """The split each sampled query is assigned by a hash of its fold key (holdout is the canary)."""
    names: Annotated[str, Field(min_length=1, max_length=500)] | None = None
    """Also remove person names, by the detector this spec names (``presidio``, ``list:file=PATH``;
    docs/traffic.md); a detector asked for that cannot run stops the run (exit 2). --names overrides it."""

    @field_validator("splits")
    @classmethod
    def _split_names(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(value) - {"dev", "test", "holdout"})
        if unknown:
            raise ValueError(f"unknown split {unknown[0]!r}; splits: dev, test, holdout")
        if not value or abs(math.fsum(value.values()) - 1.0) > 1e-9:
            raise ValueError("the fractions must add up to 1")
        return value

    @field_validator("torso_share")
    @classmethod
    def _tail_left(cls, value: float, info: ValidationInfo) -> float:
        if value + info.data.get("head_share", 0.0) >= 1.0:
            raise ValueError("head_share + torso_share must be below 1 (the tail is the rest)")
        return value


class LabellerToml(_Section):
    """The whole file: seven optional sections, nothing else."""

    corpus: CorpusConfig = CorpusConfig()
    golden: GoldenConfig = GoldenConfig()
    build: BuildConfig = BuildConfig()
    limits: Limits = Limits()
    eval: EvalConfig = EvalConfig()
    retriever: RetrieverConfig = RetrieverConfig()
    traffic: TrafficConfig = TrafficConfig()


SECTIONS: dict[str, type[_Section]] = {"corpus": CorpusConfig, "golden": GoldenConfig, "build": BuildConfig,
                                       "limits": Limits, "eval": EvalConfig, "retriever": RetrieverConfig,
                                       "traffic": TrafficConfig}
_CORPUS, _GOLDEN, _BUILD = CorpusConfig(), GoldenConfig(), BuildConfig()  # the defaults, spelled once


class ProjectConfig(BaseModel):
    """The effective configuration of one project: file values over defaults, flags over both.

    Paths are absolute (joined to ``root``); ``sources`` says where each ``section.key``
    came from (``default``, ``labeller.toml`` or ``flag --name``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    root: Path
    corpus: Path
    include: tuple[str, ...] = _CORPUS.include
    exclude: tuple[str, ...] = _CORPUS.exclude
    max_file_bytes: Annotated[int, Field(ge=1)] = _CORPUS.max_file_bytes
    questions: Path = Path(_GOLDEN.questions)
    out: Path = Path(_GOLDEN.out)
    chunker: str = _BUILD.chunker
    max_chars: Annotated[int, Field(ge=1)] = _BUILD.max_chars
    hit_rule: str = _BUILD.hit_rule
    limits: Limits = Limits()
    eval: EvalConfig = EvalConfig()
    retriever: RetrieverConfig = RetrieverConfig()
    traffic: TrafficConfig = TrafficConfig()
    sources: dict[str, str] = Field(default_factory=dict)

    @property
    def dense_model_path(self) -> Path | None:
        """``[retriever.dense] model`` as a path of the project, or None when it is a model's
        name: it is a path when it is absolute, starts with ``.`` or names something that
        exists under the root (a Hugging Face name is ``owner/name``, neither)."""
        model = self.retriever.dense.model
        path = self.root / model
        return path if model.startswith(".") or Path(model).is_absolute() or os.path.lexists(path) else None

    @property
    def layout(self) -> ProjectLayout:
        return ProjectLayout(root=self.root, corpus=self.corpus, questions=self.questions, out=self.out,
                             run_history=self.root / self.eval.history)

    def invalid(self, key: str, reason: str) -> InvalidInput:
        """The error for a configured value an upper layer found wrong (``key`` is ``section.key``),
        naming where the value came from."""
        section, name = key.split(".", 1)
        source = self.sources.get(key, "default")
        if source.startswith("flag "):
            return InvalidInput(f"{source}: {reason}")
        if source == "default":  # no file to name: the default value itself is refused
            return InvalidInput(f"[{section}] {name} (default): {reason}")
        return InvalidInput(f"[{section}] {name}: {reason}", path=str(self.layout.config_file))

    def effective(self) -> dict[str, dict[str, Any]]:
        """Every setting as ``{section: {key: value}}``, paths relative to the root where they can be."""
        def rel(p: Path) -> str:
            try:
                return p.relative_to(self.root).as_posix()
            except ValueError:
                return str(p)

        return {
            "build": {"chunker": self.chunker, "hit_rule": self.hit_rule, "max_chars": self.max_chars},
            "corpus": {"exclude": list(self.exclude), "include": list(self.include),
                       "max_file_bytes": self.max_file_bytes, "root": rel(self.corpus)},
            "eval": {k: (list(v) if isinstance(v, tuple) else v)
                     for k, v in self.eval.model_dump().items()},
            "golden": {"out": rel(self.out), "questions": rel(self.questions)},
            "limits": self.limits.model_dump(),
            "retriever": self.retriever.model_dump(),
            "traffic": {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.traffic.model_dump().items()},
        }


_FLAG_KEYS = {"corpus": "corpus.root", "questions": "golden.questions", "out": "golden.out",
              "hit_rule": "build.hit_rule"}


def load_config(root: Path | str = ".", *, corpus: str | None = None, questions: str | None = None,
                out: str | None = None, hit_rule: str | None = None, allow_outside: bool = False) -> ProjectConfig:
    """Read ``labeller.toml`` (if any) under ``root``, check all of it, and apply flag overrides.

    Every configured path must stay inside the project's tree (``layout.project_tree``):
    the file and the repository it sits in are untrusted. ``allow_outside`` lifts that; it
    comes from the command line only, never from a file."""
    root = Path(root).resolve()
    path = root / CONFIG_NAME
    data: dict = {}
    text = ""
    if path.exists() or path.is_symlink():
        import tomllib  # only with a labeller.toml (the app's start need not wait for it otherwise)

        raw = read_regular_file(path, max_bytes=MAX_CONFIG_BYTES, what="configuration file")
        try:
            text = raw.decode("utf-8")
            data = tomllib.loads(text)
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"not valid UTF-8 at byte {exc.start}", path=str(path)) from None
        except tomllib.TOMLDecodeError as exc:
            raise InvalidInput(f"cannot parse: {exc}", path=str(path)) from None
        except RecursionError:  # tomllib recurses once per nested array or inline table
            raise InvalidInput("cannot parse: arrays or inline tables nested too deeply", path=str(path)) from None
        except ValueError:  # an integer past Python's 4,300 digits (every key's own bound is far below)
            raise InvalidInput("cannot parse: a number of thousands of digits, far past any setting's bound",
                               path=str(path), line=_line_of_long_number(text)) from None
    toml = parse_toml(data, str(path), text)
    sources = {f"{s}.{k}": ("labeller.toml" if k in data.get(s, {}) else "default")
               for s, model in SECTIONS.items() for k in model.model_fields}
    flags = {"corpus": corpus, "questions": questions, "out": out, "hit_rule": hit_rule}
    for flag, value in flags.items():
        if value is not None:
            if not value.strip():
                raise InvalidInput(f"--{flag.replace('_', '-')} must not be empty")
            sources[_FLAG_KEYS[flag]] = f"flag --{flag.replace('_', '-')}"
    c, g, b = toml.corpus, toml.golden, toml.build
    config = ProjectConfig(
        root=root,
        corpus=root / (corpus or c.root),
        include=c.include,
        exclude=c.exclude,
        max_file_bytes=c.max_file_bytes,
        questions=root / (questions or g.questions),
        out=root / (out or g.out),
        chunker=b.chunker,
        max_chars=b.max_chars,
        hit_rule=hit_rule or b.hit_rule,
        limits=toml.limits,
        eval=toml.eval,
        retriever=toml.retriever,
        traffic=toml.traffic,
        sources=sources,
    )
    if not allow_outside:
        _confine(config)
    return config


def _confine(config: ProjectConfig) -> None:
    """Refuse a configured path that leaves the project's tree, naming the key and its source."""
    tree = project_tree(config.root)
    layout = config.layout
    model = config.dense_model_path
    for key, path in (("corpus.root", layout.corpus), ("golden.questions", layout.questions),
                      ("golden.out", layout.out), ("eval.history", layout.run_history),
                      *((("retriever.dense", model),) if model is not None else ())):
        if not inside(tree, path):
            raise config.invalid(key, f"{path} leads to {os.path.realpath(path)}, outside the project's tree {tree} "
                                 "(an absolute path, a '..' or a symlink out of it); labeller reads and writes only "
                                 "inside it: pass --allow-outside on the command line if you mean it")


def parse_toml(data: dict, path: str = CONFIG_NAME, text: str = "") -> LabellerToml:
    """The parsed TOML as models; the first problem of each bad key is told in plain words, with
    its line in ``text`` (the file) when the key is spelled plainly under its section header."""
    try:
        return LabellerToml.model_validate(data)
    except ValidationError as exc:
        first: dict[tuple, Any] = {}  # (pydantic ErrorDetails) one reason per key: a bad item also fails its list's other checks
        for err in exc.errors():
            first.setdefault(tuple(_table_loc(err["loc"])[:2]), err)
        problems = [(_line_of(text, *loc), _plain(err, data)) for loc, err in first.items()]
        details = [{"path": path, "line": line, "message": p} for line, p in problems]
        if len(problems) == 1:
            raise InvalidInput(problems[0][1], path=path, line=problems[0][0]) from None
        raise InvalidInput(f"{len(problems)} problems in the configuration", path=path).with_details(details) from None


def _line_of_long_number(text: str) -> int | None:
    """The line of the first run of more digits than Python converts (``sys.get_int_max_str_digits``)."""
    m = re.search(r"[0-9_]{%d,}" % (sys.get_int_max_str_digits() + 1), text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _line_of(text: str, section: str = "", key: str = "") -> int | None:
    """The 1-based line of ``key`` under ``[section]`` (or of the header itself), if it is
    written that plainly; ``None`` otherwise (dotted keys, inline tables): then only the key
    is named."""
    in_section, found = False, None
    for n, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_section = stripped.split("#")[0].strip() == f"[{section}]"
            if in_section and not key:
                return n
        elif in_section and key and stripped.split("=")[0].strip() in (key, f'"{key}"'):
            found = found or n
    return found


def _table_loc(loc: Sequence[object]) -> list[str]:
    """An error's location with a sub-table joined to its section (``[retriever.dense]``), as the file spells it."""
    parts = [str(p) for p in loc]
    model = SECTIONS.get(parts[0]) if parts else None
    while model is not None and len(parts) > 2:
        field = model.model_fields.get(parts[1])
        sub = field.annotation if field is not None else None
        if not (isinstance(sub, type) and issubclass(sub, _Section)):
            break
        parts, model = [f"{parts[0]}.{parts[1]}", *parts[2:]], sub
    return parts


def _section_model(section: str) -> type[_Section] | None:
    model: type[_Section] | None = SECTIONS.get(section.split(".")[0])
    for sub in section.split(".")[1:]:
        field = model.model_fields.get(sub) if model is not None else None
        model = field.annotation if field is not None and isinstance(field.annotation, type) else None
    return model


def _plain(err: dict, data: dict) -> str:
    """One pydantic error as ``[section] key: reason`` (no URLs, no "Input should be")."""
    loc = _table_loc(err["loc"])
    kind, msg = err["type"], err["msg"]
    if not loc:
        return f"the file must be a table of sections, not {type(data).__name__}"
    section = loc[0]
    if len(loc) == 1:
        if kind == "extra_forbidden":
            return f"unknown section [{section}]; sections: {', '.join(f'[{s}]' for s in SECTIONS)}"
        return f"[{section}] must be a table of keys"
    key = loc[1]
    where = f"[{section}] {key}" + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in loc[2:] if p != "[key]")
    if kind == "extra_forbidden":
        model = _section_model(section)
        known = ", ".join(model.model_fields) if model is not None else ""
        return f"unknown key {key!r} in [{section}]; keys: {known}"
    value = err.get("input")
    shown = json.dumps(value, ensure_ascii=False, default=str) if not isinstance(value, dict) else "a table"
    if len(shown) > 60:
        shown = shown[:57] + "..."
    reason = msg.removeprefix("Value error, ")
    reason = (reason.replace("Input should be", "must be").replace("Input", "the value")
              .replace("greater than or equal to", "at least").replace("less than or equal to", "at most"))
    if kind in ("int_type", "int_from_float"):
        reason = "must be a whole number"
    elif kind == "string_type":
        reason = "must be a string"
    elif kind in ("tuple_type", "list_type"):
        reason = "must be a list"
    elif kind in ("float_type", "float_parsing"):
        reason = "must be a number"
    elif kind == "too_short":
        reason = "must not be empty"
    elif kind == "bool_type":
        reason = "must be true or false"
    return f"{where} = {shown}: {reason}"
