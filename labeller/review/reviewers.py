"""Who is reviewing: the name written into golden/reviews.jsonl.

Both ``labeller review`` / ``annotate`` and the app's review mode need the same answer,
so it lives here rather than in one of the commands (the app must not import commands).
"""

from __future__ import annotations

import getpass
import os

from labeller.errors import InvalidInput
from labeller.review.log import check_person


def default_reviewer(given: str | None) -> str:
    """``given``, else ``$LABELLER_REVIEWER``, else the login name; checked as a person name."""
    name = given or os.environ.get("LABELLER_REVIEWER")
    if not name:
        try:
            name = getpass.getuser()
        except (OSError, KeyError):
            raise InvalidInput("cannot tell who is reviewing; pass --as NAME") from None
    return check_person(name)
