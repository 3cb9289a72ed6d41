"""What the matcher yields: a match (RawMatch) or a near miss (Miss), for rank.py and the cut reader."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import Signature

MAX_MATCH_TEXT = 4000  # characters of a match's text kept
TRACEBACK_LINES = 60  # lines kept before a signature's first match (its traceback's user frame)


@dataclass(slots=True)
class RawMatch:
    """A signature's message found in a source, before ranking: where, what it captured, its evidence."""

    sig: Signature
    source: str
    line: int
    end_line: int
    text: str
    captures: dict[str, str | None]
    stream: str = ""
    evidence: list[str] = field(default_factory=list)
    supported: bool = False
    before: Sequence[str] = field(default_factory=list)
    cut: dict[str, Any] | None = None  # the message was cut off: what was read and what was not (tolerant.py)


@dataclass(slots=True)
class Miss:
    """A signature whose message was found but whose context ruled it out (a near miss), and why."""

    sig: Signature
    source: str
    line: int
    reason: str
