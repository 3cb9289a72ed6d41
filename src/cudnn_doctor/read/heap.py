"""Keep a big log's freed memory for its next block: a speed mechanism of reading (read/sources.py).

glibc gives a freed chunk bigger than its mmap threshold back to the system at once, and trims the top of the
heap once more than its trim threshold is free there, so the pages of each MiB block read, and of the text a
presentation makes from it (a notebook's strings decoded: three or four MiB-sized copies a block), are faulted
in again for the next block: on this project's machine a page fault costs ~3 us, a quarter of the CPU of a
notebook's JSON (bench/kinds.py). glibc's own rule raises both thresholds when a chunk above the mmap
threshold is freed (to its size, and twice that); ``keep_freed`` frees one WARM_BYTES chunk, once per process,
so chunks up to that size stay on the heap and up to twice that stays free there. The chunk is calloc'ed from
fresh zero pages and never touched: no page is faulted in. Elsewhere (another allocator, thresholds set by
MALLOC_* variables) it does nothing. Peak RSS: within the budget (bench/kinds.py).
"""

from __future__ import annotations

WARM_BYTES = 8 << 20
_done = [False]


def keep_freed() -> None:
    """Raise glibc's mmap and trim thresholds to WARM_BYTES and twice that (once per process)."""
    if not _done[0]:
        _done[0] = True
        del_me = bytes(WARM_BYTES)  # calloc: fresh pages, not touched
        del del_me
