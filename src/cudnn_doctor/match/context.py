"""Context evidence around a match: a signature's ``exclude_any`` / ``require_any`` / ``support_any``.

Each item is a regex, or an ``@set`` of the catalog's evidence file (``_evidence.yaml``), searched ignoring
case. Every item's regex runs under the same CPU budget as a signature's: past it the item is skipped for the
rest of the run, with one warning (a user's catastrophic pattern costs its budget once, not at every match).

Around a big log's repeated warning the lines of a context are not all normalized: prefilter.RuleOut says on which
raw lines an item may match at all, and only those are read (``Matcher._context_text``), each distinct line
once for an item found within one line.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..kb.patterns import Lazy, compile_pattern, derived, regex_error
from ..kb.regexinfo import alternative_literals, line_local

MATCH_TIMEOUT_S = 1.0
# the CPU time one signature's regex, or one evidence item's, may spend over a whole run (all its searches;
# CPU, not wall time, so that a busy machine does not drop one): past it, it is skipped with one warning
SIGNATURE_BUDGET_S = 5.0
NON_RNN = "@non_rnn"
# An RNN API or op named inside the matched text: direct evidence that outweighs conv/batch-norm words nearby.
DIRECT_RNN = Lazy(
    r"\bcudnnRNN\w*|\bcudnn(?:Set|Get)RNN\w*|\bCudnnRNN\w*|\b_cudnn_rnn\w*|\b(?:Then|Do)Rnn(?:Forward|Backward)\b"
    r"|\brnn-inl\.h\b|\bcurnn\.jl\b"
)
# what keeps a pattern from being searched on a subset of its lines: anchors see where the text starts and
# ends, a class is skipped first ('^' negating a class is no anchor). A lookaround of a line-local pattern
# cannot read a line break, so it sees no further than its line, and a line's start or end the same way
# in the subset as in all the lines (tests/test_match_budgets.py)
_CLASS = re.compile(r"\[\^?\]?(?:\\.|[^\]\\])*\]")
_ANCHORED = ("^", "$", "\\A", "\\Z")


class Budget:
    """The CPU seconds each pattern (by key) has spent; one search's timeout never runs past its budget. A pattern
    past it, or one that does not compile, is skipped for the rest of the run, with one warning."""

    def __init__(self, timeout: float, warnings: list[str]) -> None:
        self.budget = max(timeout, SIGNATURE_BUDGET_S)
        self.timeout = timeout
        self.spent: dict[Any, float] = {}
        self.skipped: set[Any] = set()
        self.warnings = warnings

    def search(self, key: Any, run: Any) -> Any:
        """``run(timeout)`` charged to ``key``; raises TimeoutError when the budget is spent."""
        left = self.budget - self.spent.get(key, 0.0)
        if left <= 0:
            raise TimeoutError
        started = time.thread_time()
        try:
            return run(min(self.timeout, left))
        finally:
            self.spent[key] = self.spent.get(key, 0.0) + time.thread_time() - started

    def skip(self, key: Any, what: str, exc: Exception, hint: str = "") -> None:
        """Skip ``key`` (``what``: its name in the warning) for the rest of the run: it timed out or erred."""
        why = f"its regex took longer than its {self.budget:g}s budget{hint}" if isinstance(exc, TimeoutError) else str(exc)
        self.skipped.add(key)
        self.warnings.append(f"{what} skipped for the rest of this run: {why}")


class Evidence:
    """Finds context evidence: the items' patterns, compiled once, each searched under its CPU budget."""

    def __init__(self, sets: Mapping[str, Sequence[str]], timeout: float = MATCH_TIMEOUT_S, warnings: list[str] | None = None) -> None:
        self.sets = sets
        self.warnings: list[str] = [] if warnings is None else warnings
        self.budget = Budget(timeout, self.warnings)  # the matcher's too: the signatures' regexes

    def parts(self, item: str) -> tuple[str, ...]:
        """The regexes of an item: an ``@set``'s entries, or the item itself."""
        return tuple(self.sets.get(item[1:], ())) if item.startswith("@") else (item,)

    def pattern(self, item: str) -> Any:
        """The item's compiled regex (kept by ``compile_pattern``): an ``@set``'s is the alternation of its entries
        (none: never matches)."""
        source = ("|".join(f"(?:{p})" for p in self.parts(item)) or r"(?!x)x") if item.startswith("@") else item
        return compile_pattern(source, ("IGNORECASE",))

    def search(self, item: str, text: str) -> Any:
        """The first match of ``item`` in ``text``, or None (also once the item is skipped)."""
        if item in self.budget.skipped or not text:
            return None
        try:
            pattern = self.pattern(item)
            return self.budget.search(item, lambda timeout: pattern.search(text, timeout=timeout))
        except (TimeoutError, regex_error()) as exc:
            where = "_evidence.yaml" if item.startswith("@") else "a signature's context"
            self.budget.skip(item, f"context evidence {item[:80]!r} ({where})", exc)
        return None

    def find(self, items: Sequence[str], text: str | Callable[[str], str]) -> str | None:
        """The text of the first item (in order) found anywhere in ``text`` (or in ``text(item)``: the text
        that item may match in), or None."""
        for item in items:
            m = self.search(item, text if isinstance(text, str) else text(item))
            if m is not None:
                return m.group(0)[:120]  # type: ignore[no-any-return]
        return None

    def linewise(self, item: str) -> bool:
        """Whether each match of ``item`` lies on one line that holds one of its literals, and searching a
        subset of the lines finds what searching all of them finds (no anchor, no lookaround)."""
        return _linewise(self.parts(item))

    def verdict(self, sig: Any, direct: bool, text: str | Callable[[str], str]) -> tuple[list[str], bool] | str:
        """(evidence, supported) of a match whose context ``text`` passes ``exclude_any`` / ``require_any``;
        else the near-miss reason. ``direct``: the matched text names a cuDNN RNN call (``direct_rnn``)."""
        ctx = sig.context
        # where the matched text itself names a cuDNN RNN call or op, a convolution nearby (a CRNN) does not make
        # it a convolution error
        exclude = tuple(e for e in ctx.exclude_any if e != NON_RNN) if direct else ctx.exclude_any
        bad = self.find(exclude, text)
        if bad is not None:
            return f"matched, but excluded by context {bad!r} nearby"
        evidence: list[str] = []
        if ctx.require_any:
            good = self.find(ctx.require_any, text)
            if good is None:
                return f"matched, but no required evidence ({', '.join(ctx.require_any)}) within the lines around it"
            evidence.append(good)
        extra = self.find(ctx.support_any, text)
        if extra is not None:
            evidence.append(extra)
        return evidence, extra is not None


def literal_map(evidence: Evidence, items: Iterable[str]) -> dict[str, tuple[bytes, ...]]:
    """{item: its literals} for the context items ``items`` that have some (prefilter.RuleOut): one value per base,
    kept in the catalog cache (a matcher is made per source)."""
    from ..kb import cache

    keys = tuple(sorted(set(items)))
    parts = tuple(evidence.parts(i) for i in keys)
    digest = cache.digest(repr(parts).encode("utf-8", "surrogatepass"))
    made = lambda _digest: {k: lits for k, p in zip(keys, parts, strict=True) if (lits := _literals(p)) is not None}  # noqa: E731 - made only where the cache has none
    return derived("match.context.literal_map", (digest,), made)  # type: ignore[no-any-return]


def _literals(parts: tuple[str, ...]) -> tuple[bytes, ...] | None:
    out: list[bytes] = []
    for part in parts:
        lits = alternative_literals(part, ("IGNORECASE",))
        if not lits:
            return None
        out += (x.lower().encode() for x in lits)
    return tuple(dict.fromkeys(out))


def _linewise(parts: tuple[str, ...]) -> bool:
    for part in parts:
        bare = _CLASS.sub("", part)
        if any(a in bare for a in _ANCHORED) or not line_local(part, ("IGNORECASE",)):
            return False
    lits = _literals(parts)
    return lits is not None and not any(b"\n" in lit for lit in lits)


def direct_rnn(sig: Any, matched: str) -> bool:
    """Whether a match's text names a cuDNN RNN call or op where its signature excludes ``@non_rnn``."""
    return NON_RNN in sig.context.exclude_any and DIRECT_RNN.search(matched) is not None


def context_items(sig: Any) -> tuple[str, ...]:
    """Every item of a signature's context, in the order the checks look at them."""
    ctx = sig.context
    return (*ctx.exclude_any, *ctx.require_any, *ctx.support_any)


def context_span(sig: Any, li_s: int, li_e: int, size: int) -> tuple[int, int]:
    """The lines a match on lines ``li_s``..``li_e`` (of ``size``) has its context read on."""
    return max(0, li_s - sig.context.lines_before), min(size - 1, li_e + sig.context.lines_after)
