"""A loaded project: config, corpus, chunks and resolver, built lazily and shared.

The CLI, the app and the eval all start from a ``Project`` so that they see one corpus
snapshot through one chunker and one resolver, and never re-implement a step. Opening a
project checks the configured names only the core knows (chunker, hit rule), so a bad
``[build]`` value stops every command before any work, naming labeller.toml.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

from labeller.config import Limits, ProjectConfig
from labeller.core.cache import DigestCache
from labeller.core.chunkers import Chunk, Chunker, chunk_corpus, get_chunker
from labeller.core.corpus import Corpus, load_corpus
from labeller.core.hitrules import HitRule, parse_hit_rule
from labeller.core.questions import QuestionsFile, load_questions
from labeller.errors import InvalidInput
from labeller.layout import ProjectLayout

if TYPE_CHECKING:  # the resolver (Markdown parsing, the quote index) is imported when first asked for
    from labeller.core.resolve import Resolver


class Project:
    def __init__(self, config: ProjectConfig, cache: DigestCache | None = None) -> None:
        self.config = config
        self.cache = cache
        self._questions: tuple[Limits, QuestionsFile] | None = None  # the last parse, and the limits it was made under
        try:
            self.chunker: Chunker = get_chunker(config.chunker, max_chars=config.max_chars)
        except InvalidInput as exc:
            raise config.invalid("build.chunker", exc.reason) from None
        try:
            self.hit_rule: HitRule = parse_hit_rule(config.hit_rule)
        except InvalidInput as exc:
            raise config.invalid("build.hit_rule", exc.reason) from None

    @property
    def layout(self) -> ProjectLayout:
        return self.config.layout

    @property
    def corpus_loaded(self) -> bool:
        """Whether ``corpus`` has been read (it is read on first use, which may be a worker's)."""
        return "corpus" in self.__dict__  # where cached_property keeps it once computed

    @cached_property
    def corpus(self) -> Corpus:
        c = self.config
        return load_corpus(c.corpus, c.include, c.exclude, c.max_file_bytes)

    @cached_property
    def chunks(self) -> dict[str, list[Chunk]]:
        return chunk_corpus(self.corpus, self.chunker, self.cache)

    @cached_property
    def all_chunks(self) -> list[Chunk]:
        """Every chunk in corpus order (doc id, then position)."""
        return [c for doc_id in self.corpus.docs for c in self.chunks[doc_id]]

    @cached_property
    def resolver(self) -> Resolver:
        from labeller.core.resolve import Resolver

        return Resolver(self.corpus, self.chunks, self.chunker, block_cache=self.block_cache,
                        search_cache=self.cache)

    @property
    def block_cache(self):
        """Parsed blocks keyed by (doc_id, sha256), on disk when the project has a cache."""
        if self.cache is None:
            return None
        import markdown_it
        import mdit_py_plugins

        from labeller.core.cache import CacheView
        from labeller.core.expansion import BLOCKS_CODEC, EXPANSION_VERSION
        from labeller.core.windows import WINDOWS_CODEC, WINDOWS_VERSION

        return CacheView(self.cache, ("blocks", EXPANSION_VERSION, markdown_it.__version__,
                                      mdit_py_plugins.__version__),
                         lambda key: WINDOWS_CODEC if key[0] == WINDOWS_VERSION else BLOCKS_CODEC)

    def load_questions(self) -> QuestionsFile:
        """The questions file as it is on disk now, parsed again only when its text changed
        (``core.questions.load_questions``' ``reuse``); each caller gets its own copy."""
        limits = self.config.limits
        last = self._questions if self._questions is not None and self._questions[0] == limits else None
        qf = load_questions(self.config.questions, limits, reuse=last[1] if last is not None else None)
        self._questions = (limits, replace(qf, entries=list(qf.entries)))  # kept apart from the copy handed out
        return qf
