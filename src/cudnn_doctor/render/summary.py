"""The record's ``summary``: one paragraph for a model or a person in a hurry.

Built from the record's own fields (so it says nothing the full report does not): what the error is, what the
log shows, why it happens, the dead end to avoid and the workaround to try first. One line, no markup.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..rank.findings import SUMMARY, head, try_first, warn_first
from .causes import one_line

if TYPE_CHECKING:  # the records are types only: nothing to import at run time
    from ..records import FindingRecord, Report

_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)(?<=[.!?])\s+(?=[A-Z(`'\"])")
_SPACES = re.compile(r"\s+")


def first_sentence(text: str, limit: int = 240) -> str:
    """The first sentence of ``text`` on one line, and the next ones while they fit in ``limit`` characters or
    while what is taken is short (a first sentence that only sets the scene says little); cut at a word
    boundary past ``limit``."""
    flat = _SPACES.sub(" ", text).strip()
    sentences = _SENTENCE_END.split(flat)
    out = sentences[0]
    for more in sentences[1:]:
        if len(out) + 1 + len(more) > limit and len(out) >= limit // 2:
            break
        out += " " + more
    if len(out) > limit:
        cut = out.rfind(" ", 0, limit)
        out = out[: cut if cut > limit // 2 else limit].rstrip(" ,;:") + " ..."
    return out


def _end(text: str) -> str:
    return text if text.endswith((".", "!", "?", "...")) else text + "."


def finding_summary(f: FindingRecord) -> str:
    """One finding in one paragraph: cause, the dead end to avoid, the fix to try first."""
    parts = [f"{f['title']} ({f['id']}, {f['source']}:{f['line']}, confidence {f['confidence']:.2f})."]
    if f.get("explanation"):
        parts.append("In this log: " + _end(first_sentence(f["explanation"], 240)))
    if f.get("root_cause"):
        parts.append("Cause: " + _end(first_sentence(f["root_cause"], 240)))
    if f.get("differential"):  # a generic status: the causes it could be (render/causes.py)
        parts.append(one_line(f, SUMMARY.causes))
    d = warn_first(f)
    if d:
        why = first_sentence(d["why_fails"], 140) if d.get("why_fails") else ""
        if why[:2].istitle():  # "The check runs..." -> "the check runs..." after the colon
            why = why[0].lower() + why[1:]
        parts.append(f"Dead end: {d['action']} fails {d['rate_basis']}" + (f": {_end(why)}" if why else "."))
    w = try_first(f)
    if w:
        when = f" ({w['condition']})" if w.get("condition") else ""
        parts.append(f"Try first: {w['action']}{when}, works {w['rate_basis']}.")
    elif f.get("hidden_workarounds"):
        parts.append("No listed workaround applies to the detected versions.")
    return " ".join(parts)


def record_summary(record: Report) -> str:
    """The whole diagnosis in one paragraph: the best finding's summary, or why there is no diagnosis."""
    findings = record["findings"]
    if findings:
        text = findings[0].get("summary") or finding_summary(findings[0])
        others, more = head([f["id"] for f in findings[1:]], SUMMARY.also_found)
        if others:
            text += f" Also found: {', '.join(others)}" + (f" and {more} more." if more else ".")
        return text
    n = record["lines_read"]
    text = f"No known cuDNN RNN error signature matched ({n} line{'' if n == 1 else 's'} read); no diagnosis is given."
    weak = record.get("below_threshold") or []
    if weak:
        text += f" Closest, with too little confidence: {weak[0]['id']} ({weak[0]['confidence']:.2f})."
    lines = record.get("error_lines") or []
    if lines:
        text += f" Last line that looks like an error: {first_sentence(lines[-1]['text'], 200)}"
    return text
