"""A hard wrap read under a line longer than its width (read/present.py ``_cut_width``): a console's progress
line padded with spaces, or a line pasted from elsewhere, is longer than the width the rest was wrapped at, which
ruled the wrap out (the longest line was taken as the width, and one over 200 columns ruled out any). The lines
cut inside a word at one width three times, or once where the cut splits a literal of the knowledge base, tell
the width; records of one length and lists of paths still do not."""

from __future__ import annotations

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from cudnn_doctor.match import Matcher
from cudnn_doctor.read.present import present, wrap_width
from presenting import hard_wrap  # tests/ is on sys.path (rootdir-based imports)

CATALOG = catalogs.builtin()
LITERALS = Matcher(CATALOG).vocabulary()
# PyTorch's RNN check (torch/nn/modules/rnn.py check_hidden_size: 'Expected hidden size {}, got {}'), its traceback
TRACE = (
    "Traceback (most recent call last):\n"
    '  File "/home/user/project/train_sequence_model.py", line 74, in main_training_loop_for_the_model\n'
    "    output, hidden_state = model.recurrent_encoder(input_batch, initial_hidden_state)\n"
    '  File "/usr/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 1136, in forward\n'
    "    self.check_forward_args(input, hx, batch_sizes)\n"
    '  File "/usr/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 281, in check_hidden_size\n'
    "    raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))\n"
    "RuntimeError: Expected hidden size (2, 16, 128), got [1, 16, 128] while running the recurrent encoder\n"
)
PROGRESS = "Loading dataset shards: 100%|" + "#" * 40 + "| 64/64 [00:03<00:00, 20.1it/s]" + " " * 120 + "\n"


def test_a_wrap_under_a_longer_progress_line_is_undone() -> None:
    for width in (60, 74, 80):  # (widths at which the trace is cut inside a word three times at least)
        text = PROGRESS + hard_wrap(TRACE, width)
        assert max(map(len, text.split("\n"))) > 200  # (the longest line rules every width out)
        got = present(text.encode(), LITERALS)
        assert got is not None and f"wrap {width}" in got.undone, width
        d = diagnose(text, catalog=CATALOG)
        assert d.findings and d.findings[0].id == "pytorch/rnn-hidden-size-mismatch", width


def test_one_cut_that_splits_a_literal_of_the_knowledge_base_is_a_wrap() -> None:
    # a cuDNN status cut by the wrap (the status name is the knowledge base's literal), under a longer line
    line = "E tensorflow/stream_executor/cuda/cuda_dnn.cc:1521] CUDNN_STATUS_EXECUTION_FAILED in forward"
    cut = line.index("EXECUTION") + 4  # 'CUDNN_STATUS_EXEC' | 'UTION_FAILED in forward'
    lines = ["The training run printed this on the second epoch, after the first checkpoint was written.", line[:cut], line[cut:]]
    assert wrap_width(lines, LITERALS) == (cut, False, False)
    assert wrap_width(lines, ()) is None  # a single cut alone is no evidence


def test_lines_of_one_length_that_are_not_cut_inside_a_word_stay_apart() -> None:
    paths = [f"/usr/lib/python3.10/site-packages/torch/lib/libtorch_cuda_part{i}.so" for i in range(4)]
    rows = [f"Epoch {i}/10 - loss: 0.{i}345 - acc: 0.9{i}12 - val_loss: 0.{i}456" for i in range(1, 6)]
    longer = "z" * 230
    assert wrap_width([longer, *paths]) is None
    assert wrap_width([longer, *rows]) is None



def test_prose_wrapped_at_spaces_under_a_longer_line_is_not_glued() -> None:
    # (review30b) a paragraph an editor wrapped at spaces ends several lines at one width too, each ending and
    # beginning with a whole word; read as cut inside a word, 'not' + 'contiguous' was glued and the message lost
    import random
    import textwrap

    rng = random.Random(1)
    words = ["the", "model", "trains", "on", "four", "GPUs", "and", "after", "some", "epochs", "the", "loss", "stops", "with", "an", "error", "I", "could", "not", "explain"]
    message = "RuntimeError: rnn: hx is not contiguous"
    for trial in range(30):
        width = rng.choice((60, 66, 72, 76, 80))
        prose = " ".join(rng.choice(words) for _ in range(120)) + " " + message + " " + " ".join(rng.choice(words) for _ in range(60))
        text = PROGRESS + "\n".join(textwrap.wrap("With torch.nn.GRU " + prose, width)) + "\n"
        assert wrap_width(text.split("\n"), LITERALS) is None, (trial, width)
        d = diagnose(text, catalog=CATALOG)
        assert d.findings and d.findings[0].id == "pytorch/rnn-hx-not-contiguous", (trial, width)



def test_a_wrap_whose_pieces_end_in_punctuation_is_still_seen() -> None:
    # recall30's cheap look at a paste's first lines wanted a line ending inside a word (a letter or digit) for
    # any wrap; a traceback hard-wrapped at its own longest line ends its pieces wherever the width falls: on a
    # quote ('.../rnn.py"' | ', line 1136'), a dot, an underscore, a colon. With no longer line there the wrap is
    # seen as before (wrap60/80/120 of 19 examples of the base read nothing with that look)
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/opt/conda/envs/sq/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl\n'
        "    return forward_call(*args, **kwargs)\n"
        '  File "/opt/conda/envs/sq/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 1136, in forward\n'
        "    raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))\n"
        "RuntimeError: Expected hidden size (2, 16, 128), got [1, 16, 128]\n"
    )
    text = hard_wrap(trace, 80)
    assert [line[-1] for line in text.split("\n") if len(line) == 80] == [".", '"']
    assert not any(len(line) >= 40 and line[-1:].isalnum() for line in text.split("\n"))
    got = present(text.encode(), LITERALS)
    assert got is not None and "wrap 80" in got.undone
    d = diagnose(text, catalog=CATALOG)
    assert d.findings and d.findings[0].id == "pytorch/rnn-hidden-size-mismatch"
