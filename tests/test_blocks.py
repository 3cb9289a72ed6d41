"""How a log is cut into blocks: input._blocks (whole lines, one copy of each read) and linemap.rechunk (the
last lines of a block go on with the next). Both were rewritten to copy each byte once; each is checked here
against the straightforward version it replaced, over random blocks and reads."""

from __future__ import annotations

import io
import random
from collections.abc import Iterable, Iterator

import pytest

from cudnn_doctor.read import sources as input_mod
from cudnn_doctor.read.linemap import rechunk as _rechunk
from cudnn_doctor.read.sources import Block, ReadStats


def _seeds(n: int, quick: int = 10) -> list[object]:
    """The first ``quick`` seeds in the quick suite, all ``n`` under ``pytest -m exhaustive``."""
    return [seed if seed < quick else pytest.param(seed, marks=pytest.mark.exhaustive) for seed in range(n)]


def _rechunk_reference(blocks: Iterable[Block], keep: int = 20, limit: int = 1 << 20) -> Iterator[Block]:
    """reading._rechunk before it kept its lines as pieces (two copies of every block)."""
    held: Block | None = None
    for b in blocks:
        if held is None:
            held = b
            continue
        if len(held.data) + len(b.data) < limit:
            held = Block(held.data + b"\n" + b.data, held.lines + b.lines)
            continue
        pos, n = len(held.data), 0
        while n < keep:
            p = held.data.rfind(b"\n", 0, pos)
            if p < 0:
                break
            pos, n = p, n + 1
        if n < keep or pos <= 0:
            yield held
            held = b
            continue
        yield Block(held.data[:pos], held.lines - n)
        held = Block(held.data[pos + 1 :] + b"\n" + b.data, n + b.lines)
    if held is not None:
        yield held


def _random_block(rng: random.Random) -> Block:
    lines = [b"x" * rng.choice((0, 0, 1, 3, 10, 40)) for _ in range(rng.choice((1, 1, 2, 3, 5, 8, 30)))]
    return Block(b"\n".join(lines), len(lines))


@pytest.mark.parametrize("seed", _seeds(300))
def test_rechunk_cuts_as_before(seed: int) -> None:
    rng = random.Random(seed)
    blocks = [_random_block(rng) for _ in range(rng.randint(0, 12))]
    keep, limit = rng.choice((1, 2, 3, 5, 20)), rng.choice((1, 8, 30, 100, 400))
    got = [(bytes(b.data), b.lines) for b in _rechunk(blocks, keep, limit)]
    assert got == [(b.data, b.lines) for b in _rechunk_reference(blocks, keep, limit)]
    assert all(isinstance(b.data, bytes) for b in _rechunk(blocks, keep, limit))
    assert b"\n".join(d for d, _ in got) == b"\n".join(b.data for b in blocks)


def _blocks_reference(data: bytes, read: int) -> list[bytes]:
    """Whole lines per read: what input._blocks gives for short lines (no line cut at MAX_LINE)."""
    out, carry = [], b""
    for i in range(0, len(data), read):
        chunk = carry + data[i : i + read]
        cut = chunk.rfind(b"\n")
        if cut < 0:
            carry = chunk
        else:
            out.append(chunk[:cut])
            carry = chunk[cut + 1 :]
    if carry:
        out.append(carry)
    return out


@pytest.mark.parametrize("seed", _seeds(100))
def test_blocks_are_the_whole_lines_of_each_read(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    read = rng.choice((1, 2, 7, 16, 64))
    monkeypatch.setattr(input_mod, "BLOCK_BYTES", read)
    data = b"\n".join(b"y" * rng.choice((0, 1, 5, 20, 90)) for _ in range(rng.randint(1, 40)))
    if rng.random() < 0.3:
        data += b"\n"
    got = list(input_mod._blocks(io.BytesIO(data), "t.log", ReadStats(), None))  # type: ignore[arg-type]
    assert [b.data for b in got] == _blocks_reference(data, read)
    assert all(b.lines == b.data.count(b"\n") + 1 for b in got)


@pytest.mark.parametrize("seed", range(6))
def test_line_starts_found_by_jumps_as_by_walking(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """match.lines._Lines.start walks far back by counting newlines over the bytes such lines take on average
    (_jump_back): over lines of very unequal lengths (empty ones, a run of long ones, short ones), asked in any
    order from any known line, every start is the one a split gives, and jumps did happen."""
    from cudnn_doctor.match import lines as lines_mod

    rng = random.Random(seed)
    rows = []
    for _ in range(rng.randrange(50, 1500)):
        kind = rng.random()
        rows.append(b"" if kind < 0.15 else b"x" * rng.randrange(300, 3000) if kind < 0.25 else b"y" * rng.randrange(1, 80))
    data = b"\n".join(rows)
    starts = [0]
    for row in rows[:-1]:
        starts.append(starts[-1] + len(row) + 1)
    for _ in range(20):
        lines = lines_mod.Lines(data, len(rows))
        for li in rng.sample(range(len(rows)), min(len(rows), 40)):
            if rng.random() < 0.3:  # a line located from its offset first, as the prefilter's hits are
                assert lines.line_at(starts[li]) == li
            assert lines.start(li) == starts[li], li


def _head_lines_reference(data: bytes, n: int) -> list[bytes]:
    """match.lines._head_lines before it gave one slice."""
    out: list[bytes] = []
    pos = 0
    while len(out) < n:
        end = data.find(b"\n", pos)
        if end < 0:
            out.append(data[pos:])
            break
        out.append(data[pos:end])
        pos = end + 1
    return out


def _tail_lines_reference(data: bytes, n: int, prev: list[bytes]) -> list[bytes]:
    """match.lines._tail_lines before it gave one slice (and walked back a line at a time)."""
    if n <= 0:
        return []
    out: list[bytes] = []
    end = len(data)
    while len(out) < n:
        start = data.rfind(b"\n", 0, end) + 1
        out.append(data[start:end])
        if start == 0:
            return (prev + out[::-1])[-n:]
        end = start - 1
    return out[::-1]


@pytest.mark.parametrize("seed", range(8))
def test_block_tails_and_heads_as_lists_of_lines_gave(seed: int) -> None:
    """The lines a block carries into the next window (_tail_region, topped up from the tail before it when the
    block is short) and those it lends the window before (_head_region) are, joined, the lines the old
    line-list versions gave, over blocks of any length (one empty line, fewer lines than kept, long runs)."""
    from cudnn_doctor.match.lines import head_region as _head_region
    from cudnn_doctor.match.lines import tail_region as _tail_region
    from cudnn_doctor.match.lines import tail_views

    rng = random.Random(seed)
    prev_ref: list[bytes] = []
    prev: tuple[tuple[tuple[bytes, int, int], ...], int] = ((), 0)
    for _ in range(60):
        rows = [b"z" * rng.choice((0, 1, 5, 40, 90, 400)) for _ in range(rng.choice((1, 2, 5, 30, 150, 600)))]
        data = b"\n".join(rows)
        for n in (0, 1, 3, 24, 25, 130, 214):
            head = _head_lines_reference(data, n)
            assert _head_region(data, n) == (b"\n".join(head), len(head)), (n, len(rows))
            tail = _tail_lines_reference(data, n, prev_ref)
            pieces, k = _tail_region(data, len(rows), n, prev)
            assert (b"\n".join(tail_views(pieces)), k) == (b"\n".join(tail), len(tail)), (n, len(rows))
        prev_ref = _tail_lines_reference(data, 214, prev_ref)
        prev = _tail_region(data, len(rows), 214, prev)


def test_rechunk_merges_blocks_up_to_the_size_of_a_read_as_it_is_then(monkeypatch: pytest.MonkeyPatch) -> None:
    """rechunk merges small blocks while they stay under the scan's read size (input.BLOCK_BYTES, as it is when
    rechunk is called: tests make it a few hundred bytes so that a log spans many blocks), not under a fixed
    1 MiB that made such a log one block again."""
    monkeypatch.setattr(input_mod, "BLOCK_BYTES", 200)
    data = b"\n".join(b"step %d " % i + b"x" * 30 for i in range(300))
    blocks = list(input_mod._blocks(io.BytesIO(data), "t.log", ReadStats(), None))  # type: ignore[arg-type]
    got = list(_rechunk(blocks))
    assert b"\n".join(bytes(b.data) for b in got) == data and sum(b.lines for b in got) == 300
    # each block: at most the lines carried into it (20 of ~38 bytes) and a read
    assert len(got) > 30 and max(len(b.data) for b in got) < 200 + 20 * 40
