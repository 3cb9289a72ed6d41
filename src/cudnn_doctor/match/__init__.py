"""Find signature matches in a log: exactly (each signature's regex), and tolerantly (its message's words).

input -> normalize -> **match** -> rank -> render. The package, by concern:

- ``prefilter``: one pass over a window for every literal (hyperscan, or ``bytes.find``), and the lines around a
  match where a context item may match at all (one hyperscan database of the context items' literals);
- ``lines``: line access into a window of bytes;
- ``context``: ``require_any`` / ``exclude_any`` / ``support_any`` evidence around a match, under a CPU budget;
- ``probes``: the environment probes fed from the prefilter's hits, with their shape memo;
- ``matcher``: the Matcher, which runs the signatures' regexes over blocks of a log;
- ``results``: what the matcher yields (RawMatch, Miss);
- ``reading``: one source read: presentations undone, line numbers mapped back;
- ``tolerant`` and ``chains``: the tolerant reading (a message found from whatever is left of it).

What a signature's regex says before it runs (the literals each alternative holds, line-locality: kb/regexinfo.py)
and its message templates (kb/templates.py) are derived values the catalog cache keeps; this package uses them.
"""

from __future__ import annotations

from .matcher import MAX_NEAR_MISSES_PER_SIG, Matcher
from .prefilter import Prefilter
from .results import RawMatch

__all__ = ["MAX_NEAR_MISSES_PER_SIG", "Matcher", "Prefilter", "RawMatch"]
