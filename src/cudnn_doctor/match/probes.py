"""The environment probes (model.Probe) fed from the prefilter's hits, with the probe shape memo.

A speed mechanism (bench/: a dense log names cuDNN on one line in three: version banners, op traces): a line
of the same *shape* as one probed before (the same bytes but for digits) is not even decoded when no probe
wanted that shape, and goes only to the probes that wanted it (a shape-free probe whose regex did not match it cannot match a line
of that shape). Its equivalence test: tests/test_dense.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..model import RETIRE, Probe
from .prefilter import indexed

PROBED_MEMO = 16384  # line shapes remembered, the memo emptied when full
MEMO_LINE = 600  # bytes: longer lines are probed each time
# digits -> '0': lines that differ only in their numbers (timestamps, step counters, versions) share a shape
_SHAPE = bytes.maketrans(b"123456789", b"000000000")


class Probes:
    """The probes, by literal, and the memos of what they were given."""

    def __init__(self, probes: Sequence[Probe]) -> None:
        self.probes = list(probes)
        self.retired: set[int] = set()
        self.by_literal = self._by_literal()
        self._shapes: dict[tuple[bytes, tuple[int, ...]], tuple[int, ...]] = {}

    def _by_literal(self) -> dict[str, tuple[int, ...]]:
        """{literal: the probes holding it} of the probes not retired."""
        return indexed(() if pidx in self.retired else probe.literals for pidx, probe in enumerate(self.probes))

    def give(self, line: bytes, pidxs: tuple[int, ...], text: Callable[[], tuple[str, int]]) -> bool:
        """Give a raw line holding the probes ``pidxs``' literals to them (``text``: its normalized text and
        absolute line number, asked only when needed); True when a probe retired: it is given no more lines,
        and its literals no longer make a line a probe line (they may go)."""
        shape = (line.translate(_SHAPE), pidxs) if len(line) <= MEMO_LINE else None
        todo = self._shapes.get(shape)  # type: ignore[arg-type]
        if todo == ():  # a shape every probe declined: the commonest case
            return False
        norm, at = text()
        wanted: list[int] = []  # the probes that want more lines of its shape
        before = len(self.retired)
        # (never a retired probe: ``by_literal`` drops it and the shapes memo is emptied when one retires)
        for pidx in tuple(sorted(set(pidxs))) if todo is None else todo:
            said = self.probes[pidx].handle(norm, at)
            if said == RETIRE:
                self.retired.add(pidx)
                self.by_literal = self._by_literal()
                self._shapes.clear()
            elif said is not False or not self.probes[pidx].shape_free:
                wanted.append(pidx)
        if shape is not None:
            if len(self._shapes) >= PROBED_MEMO:
                self._shapes.clear()
            self._shapes[shape] = tuple(wanted)
        return len(self.retired) > before
