"""The one Markdown parser configuration labeller uses (CommonMark + tables + front matter).

Expansion, section locators and document titles all read Markdown through here, so
"what is a block" has a single answer across the build, the app and the eval.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

import yaml
from markdown_it import MarkdownIt
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.rules_block.table import table as _markdown_table
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin


def _title_loader(base: type) -> type:
    """A loader of ``base`` (a ``BaseLoader``: every scalar a string, every tag ignored) that
    also reads a plain ``~``/``null``/empty value as None.

    Only ``title`` is ever used, as text, so nothing else is built: a safe loader builds
    dates and integers from what a document says (``date: 2020-13-45``, a 4,300-digit
    integer, ``!!timestamp``), which raised ``ValueError`` past the ``YAMLError`` a bad
    front matter is, and every command that titles a document exited 3."""

    class TitleLoader(base):
        pass

    null = yaml.resolver.Resolver.yaml_implicit_resolvers["~"][0]  # ("tag:yaml.org,2002:null", regex)
    TitleLoader.add_implicit_resolver(null[0], null[1], ["~", "n", "N", ""])
    TitleLoader.add_constructor(null[0], lambda loader, node: None)
    TitleLoader.__name__ = TitleLoader.__qualname__ = f"Title{base.__name__}"  # the chunk cache key names it
    return TitleLoader


# libyaml's loader when PyYAML has it (a tenth of the pure-Python loader's time on front
# matter); both read the same subset, and tests hold their titles equal.
YAML_LOADER = _title_loader(getattr(yaml, "CBaseLoader", yaml.BaseLoader))


@lru_cache(maxsize=1)
def block_parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table").use(front_matter_plugin)


@lru_cache(maxsize=1)
def _front_matter_parser() -> MarkdownIt:
    return MarkdownIt("zero").use(front_matter_plugin)


def parse(text: str) -> list[Token]:
    return block_parser().parse(text)


# Of a table, the structure parse keeps only these tokens: blocks-v1 reads a table's line
# range, never its rows or cells.
_TABLE_KEPT = frozenset({"table_open", "table_close"})


def _table_outline(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's own table rule with its row and cell tokens dropped as they are made.

    The rule pushes about fourteen tokens per row (each with its dicts and a copy of the
    cell text): an 18 MB table held 3.5 million of them at once, over a gigabyte. Here
    ``push`` keeps only ``_TABLE_KEPT`` and hands the rule one scratch token for the rest,
    keeping the nesting level it would have had, so which lines the table takes — the rule
    itself — is unchanged, and memory no longer grows with the number of cells.
    """
    if silent:
        return _markdown_table(state, start_line, end_line, silent)
    push = state.push
    scratch = Token("", "", 0)

    def outline_push(ttype: str, tag: str, nesting: Literal[-1, 0, 1]) -> Token:
        if ttype in _TABLE_KEPT:
            return push(ttype, tag, nesting)
        state.level += nesting  # what ``push`` does to the level, net of the token's own
        scratch.attrs, scratch.meta, scratch.map = {}, {}, None
        return scratch

    state.push = outline_push  # type: ignore[method-assign]  # this one rule call only
    try:
        return _markdown_table(state, start_line, end_line, silent)
    finally:
        del state.push  # the class's method again


@lru_cache(maxsize=1)
def _structure_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable("table").use(front_matter_plugin).disable("inline")
    md.block.ruler.at("table", _table_outline, {"alt": ["paragraph", "reference"]})
    return md


def parse_structure(text: str) -> list[Token]:
    """Block tokens only: what expansion and section locators read (types, maps, heading text).

    Same rules as ``parse`` minus the core ``inline`` pass, which only fills each inline
    token's ``children`` and never changes a block token (skipping it saves a quarter of the
    parse), and minus the tokens inside a table (``_table_outline``: memory stays linear in
    the document whatever its tables hold). tests/test_perf_equivalence.py holds the two
    parses equal on every other block token.
    """
    return _structure_parser().parse(text)


# Every line the front matter plugin could take for a closing line (a superset: it also
# wants the dashes at least as many as the opening line's and fewer than 4 columns of
# indent, and ``...`` in column 0).
_CLOSER_LIKE = re.compile(r"^[ \t]*(?:-{3,}|\.\.\.)[ \t]*$", re.MULTILINE)


@lru_cache(maxsize=64)
def front_matter(text: str) -> tuple[int, str | None]:
    """Return (number of lines the front matter covers, its ``content``), or (0, None).

    Cached: every window parsed from a document asks again (a string's hash is
    computed once, and the lookup compares the same object).

    The plugin only recognises front matter that starts on line 0 and is closed by the
    first closing line, so a prefix that holds that line parses to the same token as the
    whole document, and a prefix that does not parses to none. We parse prefixes ending at
    candidate closing lines, each at least twice as long as the last one parsed (then the
    last candidate, if skipped): the characters parsed stay under three times the
    document's whatever it holds, where one parse per candidate line was quadratic (an
    unclosed ``---`` followed by thousands of bullets took minutes).
    """
    if not text.startswith("---"):
        return 0, None
    parser = _front_matter_parser()
    parsed = 0  # length of the longest prefix parsed so far
    skipped = 0  # end of a candidate passed over since then
    for m in _CLOSER_LIKE.finditer(text, text.find("\n") + 1 or len(text)):
        end = min(m.end() + 1, len(text))
        if end < 2 * parsed:
            skipped = end
            continue
        parsed, skipped = end, 0
        if found := _front_matter_token(parser, text[:end]):
            return found
    if skipped:
        return _front_matter_token(parser, text[:skipped]) or (0, None)
    return 0, None


def _front_matter_token(parser: MarkdownIt, text: str) -> tuple[int, str] | None:
    for tok in parser.parse(text):
        if tok.type == "front_matter" and tok.map:
            return tok.map[1], tok.content
    return None


def front_matter_title(text: str) -> str | None:
    """The ``title`` key of YAML front matter, if present and scalar."""
    _, content = front_matter(text)
    if content is None:
        return None
    try:
        data = yaml.load(content, Loader=YAML_LOADER)  # noqa: S506 (builds only strings, lists and dicts)
    except (yaml.YAMLError, RecursionError):  # malformed, or nested past the constructor's stack
        return None
    if isinstance(data, dict):
        title = data.get("title")
        if isinstance(title, str) and title.strip():
            return title.strip()
    return None
