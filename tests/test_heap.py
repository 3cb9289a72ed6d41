"""read/heap.py: once a big log is being read, the memory of a freed block is used again for the next one
(glibc: no page faulted in again), which is what makes it worth its place (bench/kinds.py, the notebook)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# each round makes and frees a few MiB-sized copies, as reading a notebook's block does; the page faults of
# the rounds after the first are counted
ROUNDS = """
import resource, sys
from cudnn_doctor.read import heap
if sys.argv[1] == "kept":
    heap.keep_freed()
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
block = b"x" * (1 << 20)
for i in range(12):
    if i == 2:
        before = faults()
    copies = [block.replace(b"x", b"y"), block.decode() + "z", (block * 3).upper()]
    del copies
print(faults() - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's thresholds")
def test_a_freed_blocks_memory_is_used_again() -> None:
    def faults(mode: str) -> int:
        out = subprocess.run([sys.executable, "-c", ROUNDS, mode], capture_output=True, text=True, check=True)
        return int(out.stdout)

    plain, kept = faults("plain"), faults("kept")
    assert kept * 4 < plain, (kept, plain)  # each round faults its copies in again, unless kept
