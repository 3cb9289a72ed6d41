"""The differential of a finding (record["differential"]) as plain text, for the CI formats and markdown.

One place says how a candidate cause reads, so every format shows the same: the possible causes
most-confirmed first, each with its check, then the ones this log rules out with the reason. How many of
them a view lists is rank's decision (``rank.View.causes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rank.findings import MAX_DIFFERENTIAL, head, split_differential

if TYPE_CHECKING:  # the records are types only: nothing to import at run time
    from ..records import CandidateRecord, FindingRecord

HEADING = "Possible causes (most-confirmed first)"


def mixed(f: FindingRecord) -> bool:
    """Whether the differential holds both RNN and non-RNN causes (then each says which it is)."""
    return any(c.get("rnn") is False for c in f.get("differential") or ())


def label(c: CandidateRecord, both: bool = True) -> str:
    """'cause [id] (non-RNN; 3 threads)'; with ``both``, RNN causes say 'RNN' too."""
    tags = []
    if c.get("rnn") is False:
        tags.append("non-RNN")
    elif c.get("rnn") and both:
        tags.append("RNN")
    n = int(c.get("thread_count") or 0)
    if n:
        tags.append(f"{n} thread{'s' if n != 1 else ''}")
    out = str(c.get("cause") or "")
    if c.get("id"):
        out += f" [{c['id']}]"
    return out + (f" ({'; '.join(tags)})" if tags else "")


split = split_differential  # (possible, ruled out): rank decides which is which


def lines(f: FindingRecord, limit: int | None = MAX_DIFFERENTIAL) -> list[str]:
    """Plain-text lines (no trailing newline): heading, numbered causes with their check, ruled-out ones."""
    possible, out = split(f)
    if not possible and not out:
        return []
    both = mixed(f)
    rows = [f"{HEADING}:"]
    shown, more = head(possible, limit)
    for i, c in enumerate(shown, 1):
        rows.append(f"  {i}. {label(c, both)}")
        rows.append(f"     check: {c.get('check') or ''}")
        if c.get("note"):
            rows.append(f"     note: {c['note']}")
    if more:
        rows.append(f"  ... {more} more (--format json lists all)")
    shown, more = head(out, limit)
    for c in shown:
        rows.append(f"  ruled out: {label(c, both)}: {c.get('ruled_out_reason') or ''}")
    if more:
        rows.append(f"  ... {more} more ruled out")
    return rows


def text(f: FindingRecord, limit: int | None = MAX_DIFFERENTIAL) -> str:
    return "\n".join(lines(f, limit))


def one_line(f: FindingRecord, limit: int | None) -> str:
    """'Possible causes: a (check: x); b (check: y); 2 ruled out by the log.' for one-line formats."""
    possible, out = split(f)
    if not possible and not out:
        return ""
    shown, more = head(possible, limit)
    parts = [f"{c.get('cause')} (check: {c.get('check')})" for c in shown]
    s = "Possible causes: " + ("; ".join(parts) if parts else "none left")
    if more:
        s += f"; {more} more"
    if out:
        s += f"; {len(out)} ruled out by the log"
    return s + "."
