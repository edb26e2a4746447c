"""The traffic queue file: the sampled queries waiting to be labelled.

JSON Lines, one folded query a line, sorted by stratum then id, keys sorted (so a rerun with
the same log, configuration and seed is byte-identical). Fields (docs/traffic.md):

``id`` (``t-`` + 12 hex of the fold key and tenant), ``query`` (redacted, normalised: the
first-seen phrasing), ``key`` (the fold key), ``frequency`` (requests folded into it),
``stratum``, ``pi`` (inclusion probability), ``split``, ``log_hash`` (salted HMAC-SHA256 of
the first line's raw query, hex), optional ``tenant``, ``intent``, ``negative`` (drew
negative feedback), ``retrieved`` (the pipeline's own passages, ``[{id, text, score}]``,
texts redacted) and ``verdict`` (``out_of_scope`` or ``unclear``: what the app's author said of
an item that is not labelled; it stays here, never in the golden set).

The same file may come from a warehouse (the SQL in docs/traffic.md): ``read_queue`` checks
every line, and (given a redactor) redacts its texts again, since a file made elsewhere
cannot be trusted to have been; ``labeller traffic check --out`` writes the result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.io import atomic_write_text, read_jsonl

MAX_QUEUE_BYTES = 256 << 20
MAX_QUEUE_ITEMS = 1_000_000


class Retrieved(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: StrictStr | None = None
    text: StrictStr | None = None
    score: float | None = None


class QueueItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: StrictStr = Field(pattern=r"^t-[0-9a-f]{12}$")
    query: StrictStr = Field(min_length=1)
    key: StrictStr
    frequency: StrictInt = Field(ge=1)
    stratum: StrictStr = Field(min_length=1, max_length=200)
    pi: float = Field(gt=0.0, le=1.0)
    split: StrictStr = Field(pattern=r"^(dev|test|holdout)$")
    log_hash: StrictStr = Field(pattern=r"^[0-9a-f]{16,64}$")
    tenant: StrictStr | None = None
    intent: StrictStr | None = None
    negative: bool = False
    retrieved: list[Retrieved] = Field(default_factory=list)
    verdict: Literal["out_of_scope", "unclear"] | None = None


def render_queue(items: Iterable[QueueItem]) -> str:
    ordered = sorted(items, key=lambda it: (it.stratum, it.id))
    return "".join(json_dumps(it.model_dump(exclude_defaults=True), sort_keys=True) + "\n" for it in ordered)


def write_queue(path: Path, items: Iterable[QueueItem]) -> None:
    atomic_write_text(path, render_queue(items))


def read_queue(path: Path, redact: Callable[[str], str] | None) -> list[QueueItem]:
    """Every item of a queue file, checked (``InvalidInput`` naming the line and the reason);
    texts passed through ``redact`` unless it is None (``--no-redact``)."""
    items: list[QueueItem] = []
    seen: dict[str, int] = {}
    for jl in read_jsonl(path, max_bytes=MAX_QUEUE_BYTES, what="traffic queue", max_lines=MAX_QUEUE_ITEMS):
        if jl.skipped:
            continue
        if jl.error is not None or not isinstance(jl.value, dict):
            raise jl.refuse(jl.error or "each line must be a JSON object")
        try:
            item = QueueItem.model_validate(jl.value)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"]) or "item"
            raise InvalidInput(f"{loc}: {err['msg']}", path=str(path), line=jl.line,
                               record_id=jl.value.get("id") if isinstance(jl.value.get("id"), str) else None) from None
        if item.id in seen:
            raise InvalidInput(f"duplicate id (first on line {seen[item.id]})", path=str(path), line=jl.line,
                               record_id=item.id)
        seen[item.id] = jl.line
        if redact is not None:  # every free text a log could have carried personal data into
            item = item.model_copy(update={
                "query": redact(item.query), "stratum": redact(item.stratum),
                "tenant": None if item.tenant is None else redact(item.tenant),
                "intent": None if item.intent is None else redact(item.intent),
                "retrieved": [r.model_copy(update={"text": None if r.text is None else redact(r.text)})
                              for r in item.retrieved]})
        items.append(item)
    return items
