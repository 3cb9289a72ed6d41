"""Phrases more than one format writes the same way: a rate and its basis, what a cut message means, counts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import TIER_TEXT

if TYPE_CHECKING:  # the records are types only: nothing to import at run time
    from ..records import CutRecord


SCOPE_TEXT = {"rnn": "RNN-specific", "cudnn": "general cuDNN", "cuda": "general CUDA"}


def scope_text(scope: str) -> str:
    return SCOPE_TEXT.get(scope, scope)


def plural(n: int, word: str) -> str:
    """'1 line', '2 lines'."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def sources_text(sources: list[str], most: int = 3) -> str:
    """The inputs for a header: every name up to ``most``, else a count and the first names."""
    if not sources:
        return "input"
    if len(sources) <= most:
        return ", ".join(sources)
    return f"{len(sources)} files ({', '.join(sources[:most])}, ...)"


def rate_text(rate: float | None, tier: str | None) -> str:
    """'95% (from official documentation)'; an estimate is labelled as such."""
    if rate is None:
        return "rate unknown"
    pct = f"{round(rate * 100)}%"
    basis = TIER_TEXT.get(tier or "", "source not stated")
    if tier in ("estimated", "ai_generated"):
        return f"~{pct} ({basis})"
    return f"{pct} ({basis})"


def cut_note(cut: CutRecord | None) -> str:
    """One sentence for a finding read from a cut message: what was read, what could not be, and whether the
    full line would change the answer (every format shows it)."""
    if not cut:
        return ""
    read = str(cut.get("read") or "")
    read = ("..." + read[-80:]) if len(read) > 80 else read
    if cut.get("described"):  # (match/prose.py: a sentence or title that describes the error)
        return f"Read from a description of the error, not its message: {read!r}. Paste the full error message for a confident answer."
    if cut.get("retyped"):  # (match/tolerant.py: the words of the message, some of them not as printed)
        return f"Read as the message typed in other words (articles, plurals, a status name's STATUS, a misspelt cudnn), not as printed: {read!r}. Paste the error as printed for a confident answer."
    note = f"Only part of the message could be read: {read!r}"  # (cut at its end, its start or both)
    unread = [str(u) for u in cut.get("unread") or []]
    if unread:
        note += f"; not read: {', '.join(unread[:8])}"
    also = [str(a) for a in cut.get("could_also_be") or []]
    if also:
        note += f"; the rest could also make it {', '.join(also[:4])}"
    if cut.get("ask_full_line"):
        note += ". Paste the full line for a more precise answer."
    else:
        note += ". The rest of the line would not change this answer."
    return note
