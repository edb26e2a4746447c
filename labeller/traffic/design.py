"""The sampling design as arithmetic: frequency bands, cells, allocation, inclusion probabilities.

Kept apart from the streaming pass (``sample``) so that what decides an item's inclusion
probability can be read, tested and simulated without a log file (``tests/test_traffic_estimate.py``
draws thousands of samples through these very functions).

* **Band**: folded queries ordered by frequency (most frequent first, ties by key), the
  traffic before a query decides its band: below ``head_share`` of all traffic it is head,
  below ``head_share + torso_share`` torso, else tail. A few head queries carry half the
  traffic; the tail is most of the distinct queries and a fraction of the requests.
* **Cell** (the stratum): the band, ``|negative`` when the folded query drew negative
  feedback, and ``|<column>=<value>`` for the configured crossing column.
* **Allocation**: each cell's share of the sample is proportional to its share of traffic
  times its factors (``tail_factor``, ``negative_factor``), so the tail and the complaints are
  over-sampled by exactly the stated factors; every cell gets at least two items when the
  sample is big enough (a stratum of one has no variance to resample), never more than it
  has, and what a full cell cannot take goes to the others.
* **Inclusion probability**: within a cell the draw is simple random sampling without
  replacement (the ``n_h`` smallest seeded hash priorities), so ``π = n_h / N_h``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from labeller.errors import InvalidInput
from labeller.io import read_regular_file

BANDS = ("head", "torso", "tail")
MIN_PER_CELL = 2


def band(before: float, total: float, head_share: float, torso_share: float) -> str:
    """The band of a folded query with ``before`` requests of more frequent queries ahead of it."""
    if before < head_share * total:
        return "head"
    if before < (head_share + torso_share) * total:
        return "torso"
    return "tail"


def cell_name(band_: str, negative: bool, column: str | None, value: str | None) -> str:
    name = band_ + ("|negative" if negative else "")
    return name + (f"|{column}={value if value is not None else '(none)'}" if column else "")


@dataclass(frozen=True)
class Cell:
    name: str
    units: int  # folded queries
    traffic: int  # requests they stand for
    factor: float  # the over-sampling factor (tail x negative)


def cell_factor(name: str, tail_factor: float, negative_factor: float) -> float:
    parts = name.split("|")
    return (tail_factor if parts[0] == "tail" else 1.0) * (negative_factor if "negative" in parts[1:] else 1.0)


def allocate(cells: Sequence[Cell], n: int) -> dict[str, int]:
    """Items per cell: ``n`` in all (or every unit, when there are fewer), see the module docstring.

    Shares are proportional to traffic x factor; a cell whose share is above its size takes
    all it has, one whose share is below the floor takes the floor, and the rest share what is
    left again, until every remaining share lies between the two; then whole items by the
    largest remainder (ties by name)."""
    if n >= sum(c.units for c in cells):
        return {c.name: c.units for c in cells}
    floor = {c.name: min(c.units, MIN_PER_CELL) for c in cells}
    if sum(floor.values()) > n:
        floor = {c.name: 0 for c in cells}
    take: dict[str, int] = {}
    open_cells = list(cells)
    left = n
    while open_cells:
        weight = {c.name: c.traffic * c.factor for c in open_cells}
        total = math.fsum(weight.values())
        ideal = {c.name: left * (weight[c.name] / total if total > 0 else 1 / len(open_cells)) for c in open_cells}
        fixed = {c.name: c.units if ideal[c.name] >= c.units else floor[c.name] for c in open_cells
                 if ideal[c.name] >= c.units or ideal[c.name] < floor[c.name]}
        if not fixed:
            whole = {name: math.floor(v) for name, v in ideal.items()}
            spare = left - sum(whole.values())
            by_remainder = sorted(open_cells, key=lambda c: (-(ideal[c.name] - whole[c.name]), c.name))
            for i, c in enumerate(by_remainder):
                take[c.name] = whole[c.name] + (1 if i < spare else 0)
            break
        take.update(fixed)
        left -= sum(fixed.values())
        open_cells = [c for c in open_cells if c.name not in fixed]
    return {c.name: take[c.name] for c in cells}


def priority(seed: int, key: str) -> str:
    """A folded query's place in its cell's draw: the ``n_h`` smallest are taken. SHA-256 of
    ``"<seed>\\0<key>"`` as hex, which a warehouse computes alike (docs/traffic.md)."""
    return hashlib.sha256(f"{seed}\0{key}".encode("utf-8")).hexdigest()


def split_of(key: str, splits: Mapping[str, float]) -> str:
    """The split of a folded query, by a hash of its key alone: the same query lands in the same
    split in every sample, whatever the seed (a test query never turns up in dev next month)."""
    u = int(hashlib.sha256(f"split\0{key}".encode("utf-8")).hexdigest()[:15], 16) / 16 ** 15
    acc = 0.0
    names = [s for s in ("dev", "test", "holdout") if splits.get(s, 0) > 0]
    for name in names:
        acc += splits[name]
        if u < acc:
            return name
    return names[-1]


MAX_CELLS_BYTES = 16 << 20


def read_cells(path: Path, tail_factor: float, negative_factor: float) -> list[Cell]:
    """The strata a warehouse counted (CSV ``cell,units,traffic``, docs/traffic.md), sorted by name."""
    text = read_regular_file(path, max_bytes=MAX_CELLS_BYTES, what="strata CSV").decode("utf-8", errors="replace")
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or [h.strip() for h in header[:3]] != ["cell", "units", "traffic"]:
        raise InvalidInput("the first line must be the header cell,units,traffic", path=str(path), line=1)
    cells: dict[str, Cell] = {}
    for line, row in enumerate(reader, start=2):
        if not row:
            continue
        try:
            name, units, traffic = row[0], int(row[1]), int(row[2])
        except (IndexError, ValueError):
            raise InvalidInput("each row must be a cell name and two whole numbers", path=str(path),
                               line=line) from None
        if name in cells or units < 1 or traffic < units:
            raise InvalidInput(f"cell {name!r}: repeated, or units < 1, or traffic < units", path=str(path),
                               line=line)
        cells[name] = Cell(name, units, traffic, cell_factor(name, tail_factor, negative_factor))
    return [cells[k] for k in sorted(cells)]
