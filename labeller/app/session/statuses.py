"""The words the question list shows for a record's status, and the filter offers.

Kept apart from ``preview`` (which resolves, and so imports the core's build, rapidfuzz
and the suggestions) so that the question list, the first screen, can show statuses
before any of that is imported.
"""

from __future__ import annotations

STATUS_RESOLVED = "resolved"
STATUS_NOT_FOUND = "not found"
STATUS_AMBIGUOUS = "ambiguous"
STATUS_UNANSWERABLE = "unanswerable"
STATUS_STALE = "stale"
STATUS_INCOMPLETE = "incomplete"
STATUS_PENDING = "…"
STATUSES = (STATUS_RESOLVED, STATUS_NOT_FOUND, STATUS_AMBIGUOUS, STATUS_UNANSWERABLE, STATUS_STALE,
            STATUS_INCOMPLETE)
