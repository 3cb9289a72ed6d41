"""Find signature matches in a log: exactly (each signature's regex), and tolerantly (its message's words).

input -> normalize -> **match** -> rank -> render; its modules, by concern: docs/architecture.md. What a
signature's regex says before it runs (kb/regexinfo.py) and its message templates (kb/templates.py) are derived
values the catalog cache keeps; this package uses them.
"""

from __future__ import annotations

from .matcher import MAX_NEAR_MISSES_PER_SIG, Matcher
from .prefilter import Prefilter
from .results import RawMatch

__all__ = ["MAX_NEAR_MISSES_PER_SIG", "Matcher", "Prefilter", "RawMatch"]
