"""``labeller merge-driver %O %A %B``: git's merge driver for questions.jsonl, judgments.jsonl
and reviews.jsonl (SPEC §12; the merge itself is ``core.merge3``).

Git calls it with the base, ours and theirs versions in temp files and takes ``%A`` as the
result: exit 0 a clean merge, 1 a merge with conflicts (written between git's markers, each
named by its record), anything else a failure. On bad input (a malformed line, a duplicate
id) it exits 2 and leaves ``%A`` untouched, so git reports a conflict and keeps ours.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from labeller.commands.common import console
from labeller.core.merge3 import merge_bytes
from labeller.diagnostics import listing
from labeller.display import safe_line
from labeller.errors import EXIT_OK, EXIT_REFUSED
from labeller.io import atomic_write_text, read_regular_file
from labeller.review.log import MAX_LOG_BYTES

# The largest of the three files it merges (the review log's bound; questions.jsonl's is 1 MiB).
MAX_BYTES = MAX_LOG_BYTES


def register(sub) -> None:
    p = sub.add_parser("merge-driver",
                       description="Three-way merge by record id, for git: `git config merge.labeller.driver "
                       "\"labeller merge-driver %%O %%A %%B\"` and `golden/questions.jsonl merge=labeller` in "
                       ".gitattributes. Writes the result to OURS; exit 1 when records conflict.")
    p.add_argument("base", metavar="BASE", help="the common ancestor's version (%%O)")
    p.add_argument("ours", metavar="OURS", help="our version, replaced by the result (%%A)")
    p.add_argument("theirs", metavar="THEIRS", help="their version (%%B)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    paths = [Path(args.base), Path(args.ours), Path(args.theirs)]
    base, ours, theirs = (read_regular_file(p, max_bytes=MAX_BYTES, what=f"{what} version")
                          for p, what in zip(paths, ("base", "ours", "theirs")))
    merged = merge_bytes(base, ours, theirs, names=(f"base {args.base}", f"ours {args.ours}", f"theirs {args.theirs}"))
    atomic_write_text(paths[1], merged.text)
    err = console(stderr=True)
    if merged.theirs_comments_differ:
        err.print("labeller merge-driver: warning: their side changed comment lines; comments are kept from ours "
                  "(check the merged file)")
    if merged.conflicts:
        err.print(f"labeller merge-driver: {len(merged.conflicts)} record(s) changed differently on both sides: "
                  f"{safe_line(listing(merged.conflicts, 'records'))}")
        return EXIT_REFUSED
    return EXIT_OK
