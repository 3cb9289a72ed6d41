"""Find signature matches in a log, in one pass over the text plus small windows around candidates.

input -> normalize -> **match** -> rank -> render. The package, by concern:

- ``regexinfo``: what a signature's regex says before it runs (required literal, line-local, Confirm words);
- ``prefilter``: one pass over a window for every literal (hyperscan, a trie-shaped `re`, or ``bytes.find``);
- ``lines``: line access into a window of bytes, block heads and tails, Confirm word lookups;
- ``evidence``: ``require_any`` / ``exclude_any`` / ``support_any`` context around a match;
- ``results``: what the matcher yields (RawMatch, Miss);
- ``matcher``: the Matcher, which runs them over blocks of a log (its docstring has the steps).

Tests that change a tuning constant (CONFIRM_FROM, PROBED_MEMO, SIGNATURE_BUDGET_S) patch it on
``cudnn_doctor.match.matcher``, the module that reads it.
"""

from __future__ import annotations

from ..model import RETIRE, Probe
from .evidence import DIRECT_RNN, MATCH_TIMEOUT_S, NON_RNN
from .lines import LazyLines
from .matcher import (
    CONFIRM_FROM,
    MAX_MATCH_TEXT,
    MAX_NEAR_MISSES_PER_SIG,
    PROBED_MEMO,
    SHORT_BEFORE,
    SIGNATURE_BUDGET_S,
    TRACEBACK_LINES,
    Matcher,
)
from .prefilter import SMALL_TEXT, Prefilter
from .regexinfo import (
    MIN_CONFIRM_WORD,
    Confirm,
    alternative_literals,
    confirm_words,
    derive_literal,
    line_local,
)
from .results import Miss, RawMatch

__all__ = [
    "CONFIRM_FROM",
    "DIRECT_RNN",
    "MATCH_TIMEOUT_S",
    "MAX_MATCH_TEXT",
    "MAX_NEAR_MISSES_PER_SIG",
    "MIN_CONFIRM_WORD",
    "NON_RNN",
    "PROBED_MEMO",
    "RETIRE",
    "SHORT_BEFORE",
    "SIGNATURE_BUDGET_S",
    "SMALL_TEXT",
    "TRACEBACK_LINES",
    "Confirm",
    "LazyLines",
    "Matcher",
    "Miss",
    "Prefilter",
    "Probe",
    "RawMatch",
    "alternative_literals",
    "confirm_words",
    "derive_literal",
    "line_local",
]
