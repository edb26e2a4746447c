"""Finding text in the corpus: the document tree and the search box."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList, Tree
from textual.widgets.option_list import Option

from labeller.app.widgets.fields import SafeInput
from labeller.app.widgets.markup import fmt
from labeller.display import safe_line

SNIPPET_CHARS = 160


class CorpusTree(Tree[str]):
    """Folders and documents of the corpus; choosing a document posts ``DocumentChosen``."""

    class DocumentChosen(Message):
        def __init__(self, doc_id: str) -> None:
            super().__init__()
            self.doc_id = doc_id

    def __init__(self, **kwargs) -> None:
        super().__init__("corpus", **kwargs)
        self.show_root = False
        self.guide_depth = 2

    def show_docs(self, doc_ids: list[str], counts: dict[str, int]) -> None:
        """``counts``: labels per document, shown after each name."""
        self.clear()
        folders = {"": self.root}
        for doc_id in doc_ids:
            parts = doc_id.split("/")
            for depth in range(1, len(parts)):
                key = "/".join(parts[:depth])
                if key not in folders:
                    parent = folders["/".join(parts[:depth - 1])]
                    folders[key] = parent.add(safe_line(parts[depth - 1]) + "/", expand=True)
            n = counts.get(doc_id, 0)
            label = safe_line(parts[-1]) + (f" [dim]({n})[/]" if n else "")
            folders["/".join(parts[:-1])].add_leaf(label, data=doc_id)

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.DocumentChosen(event.node.data))


class SearchPanel(Vertical):
    """A query box over the chunks and the best passages; posts ``Query`` and ``HitChosen``."""

    class Query(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class HitChosen(Message):
        def __init__(self, doc_id: str, start: int, end: int) -> None:
            super().__init__()
            self.doc_id = doc_id
            self.start = start
            self.end = end

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._hits: list = []

    def compose(self) -> ComposeResult:
        yield SafeInput(placeholder="search the corpus (BM25 over the chunks)", id="search-input")
        yield OptionList(id="search-hits")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Query(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._to_hits()

    def key_down(self, event) -> None:
        """↓ in the search box goes on to the hits (where Enter opens one)."""
        if isinstance(self.screen.focused, Input):
            event.stop()
            self._to_hits()

    def _to_hits(self) -> None:
        hits = self.query_one(OptionList)
        if hits.option_count:
            hits.focus()

    def show_hits(self, hits: list) -> None:
        """``hits``: best first, each with ``.chunk`` and ``.score``."""
        self._hits = hits
        options = self.query_one(OptionList)
        options.clear_options()
        for i, h in enumerate(hits):
            c = h.chunk
            options.add_option(Option(fmt(f"[b]$title[/b] [dim]({h.score:.2f})[/]\n  $snippet", title=c.heading_path,
                                          snippet=" ".join(c.text.split())[:SNIPPET_CHARS]), id=str(i)))
        if hits:
            options.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        c = self._hits[event.option_index].chunk
        self.post_message(self.HitChosen(c.doc_id, c.start, c.end))
