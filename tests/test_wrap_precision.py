"""Lines of one length are not a hard wrap unless a cut tells it (read/present.py ``wrap_width``): recall30 read a
wrap's width from lines cut inside a word under a longer line (``_cut_width``), and review31b found it glued what
no terminal had wrapped: the rows of a ``conda list`` (each ends in 'conda-forge', the next begins with a letter),
which lost the environment's versions and put a cause first that they rule out; and prose an editor wrapped at
spaces, whose 'cuDNN' | 'error:' glued into CuPy's 'cuDNNError:'. That width rule is gone; these keep it so."""

from __future__ import annotations

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from cudnn_doctor.match import Matcher
from cudnn_doctor.read.present import present, wrap_width

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


CONDA_ROWS = [("_libgcc_mutex", "0.1", "conda_forge"), ("bzip2", "1.0.8", "hd590300_5"), ("cudatoolkit", "11.8.0", "h4ba93d1_13"),
              ("cudnn", "8.9.7.29", "hbc23b4c_3"), ("gcc_linux-64", "11.4.0", "h2f14bf0_3"), ("libstdcxx-ng", "13.2.0", "h7e041cc_3"),
              ("ninja", "1.11.1", "h924138e_0"), ("python", "3.10.13", "hd12c33a_0_cpython"), ("zlib", "1.2.13", "hd590300_5")]


def _conda_paste(compiler_line: str) -> str:
    rows = "".join(f"{n:<26}{v:<20}{b:<30}conda-forge\n" for n, v, b in CONDA_ROWS)
    return (
        "(env) $ conda list\n# packages in environment at /opt/conda/envs/env:\n#\n"
        + f"{'# Name':<26}{'Version':<20}{'Build':<30}Channel\n" + rows
        + "(env) $ python setup.py build_ext --inplace\n" + compiler_line
        + 'csrc/lstm_ext.cu(88): error: identifier "cudnnGetRNNWorkspaceSize" is undefined\n'
        + '1 error detected in the compilation of "csrc/lstm_ext.cu".\n'
    )


def test_a_conda_list_under_a_longer_compiler_line_is_not_read_as_a_wrap() -> None:
    # (review31b M1) the rows end in 'conda-forge' and the next begins with a letter: cut inside a word at one
    # width, under the compiler's longer line, they were glued, the versions lost, and the cuDNN 9 removal the
    # list's cuDNN 8.9 rules out came first (0.94). (Without the longer line the rows were read as a wrap of
    # their own width too: test_a_conda_list_as_the_longest_lines_is_not_a_wrap_and_its_versions_are_read.)
    text = _conda_paste("/opt/conda/envs/env/bin/nvcc -I/opt/conda/envs/env/include -c csrc/lstm_ext.cu -o build/temp.linux-x86_64-cpython-310/csrc/lstm_ext.o -O3 -std=c++17\n")
    got = present(text.encode(), LITERALS)
    assert got is None or not any(step.startswith("wrap") for step in got.undone)
    d = diagnose(text, catalog=CATALOG)
    assert "cudnn" in d.environment
    assert not d.findings or d.findings[0].id != "cudnn/cause-legacy-rnn-api-removed-in-cudnn9"


def test_prose_wrapped_at_spaces_gets_no_other_frameworks_finding() -> None:
    import textwrap

    prose = (
        "My speech model (a conv front end and then a two-layer LSTM, hidden size 512) trains fine on the CPU, but "
        "on the GPU the first backward pass stops with a cuDNN error: CUDNN_STATUS_EXECUTION_FAILED and nothing else "
        "useful is printed (I set CUDA_LAUNCH_BLOCKING=1 as suggested in other threads, and the traceback below is what I got)."
    )
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/asr/train.py", line 131, in <module>\n'
        "    loss.backward()\n"
        '  File "/home/u/.venv/lib/python3.11/site-packages/torch/autograd/__init__.py", line 266, in backward\n'
        "    Variable._execution_engine.run_backward(\n"
        "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n"
    )
    for width in (56, 72, 80, 82):
        d = diagnose("\n".join(textwrap.wrap(prose, width)) + "\n" + trace, catalog=CATALOG)
        ids = [f.id for f in d.findings]
        assert ids and ids[0] == "pytorch/cudnn-rnn-execution-failed", (width, ids)
        assert not any(i.startswith("cupy/") for i in ids), (width, ids)


# Column-aligned records are no wrap (cols32): a paste's longest lines can be the rows of a layout, each as long
# as the next because the layout pads them; one ends in a word and the next begins with one, which read as a
# cut at the rows' width glued them. Rows line up: their padded columns (a field after two spaces or more) fall
# at the same places, where a wrap's pieces hold text cut anywhere.


def _not_wrapped(text: str) -> None:
    assert wrap_width(text.split("\n"), LITERALS) is None
    got = present(text.encode(), LITERALS)
    assert got is None or not any(step.startswith("wrap") for step in got.undone), got.undone


def test_a_conda_list_as_the_longest_lines_is_not_a_wrap_and_its_versions_are_read() -> None:
    # nothing longer than the rows: read as wrapped at the rows' width, the rows were glued, cuDNN 8.9.7 was lost
    # and the cuDNN 9 removal of the legacy RNN API (which cuDNN 8.9 rules out) came first at 0.94
    text = _conda_paste("")
    _not_wrapped(text)
    d = diagnose(text, catalog=CATALOG)
    assert d.environment["cudnn"]["version"] == "8.9.7.29"
    assert not d.findings or d.findings[0].id != "cudnn/cause-legacy-rnn-api-removed-in-cudnn9"


def test_a_sha256sum_listing_is_not_a_wrap() -> None:
    digests = ["9e1f" * 16, "04bd" * 16, "c7a2" * 16, "5f60" * 16]
    names = ["gru_speech_ckpt_e07.pt", "gru_speech_ckpt_e08.pt", "tokens.txt", "gru_speech_ckpt_e09.pt"]
    _not_wrapped("$ sha256sum weights/*\n" + "".join(f"{h}  weights/{n}\n" for h, n in zip(digests, names, strict=True)))


def test_a_pip_list_table_is_not_a_wrap() -> None:
    # pip list -v: every row padded to the same columns, one location, one installer: all rows one length
    pkgs = [("Package", "Version"), ("-------------------", "----------"), ("absl-py", "2.1.0"), ("keras", "2.15.0"),
            ("nvidia-cudnn-cu12", "8.9.4.25"), ("protobuf", "4.25.3"), ("tensorflow", "2.15.1"), ("wrapt", "1.14.1")]
    site = "/srv/asr/venv/lib/python3.11/site-packages"
    table = "".join(f"{p:<19} {v:<10} {site if v[0] != '-' else '-' * len(site)} pip\n" for p, v in pkgs)
    _not_wrapped("$ pip list -v\n" + table)


def test_pytest_verbose_rows_are_not_a_wrap() -> None:
    ids = ["rnn/test_gru.py::test_forward_on_gpu", "io/test_batches.py::test_pad_and_pack", "rnn/test_lstm.py::test_bidirectional", "ops/test_dropout.py::test_seeded_mask"]
    rows = "".join(f"{t} PASSED".ljust(74) + f"[{(i + 1) * 25:>3}%]\n" for i, t in enumerate(ids))
    _not_wrapped("============================= test session starts ==============================\n" + rows)


def test_a_hard_wrapped_traceback_with_aligned_spaces_in_its_pieces_is_still_unwrapped() -> None:
    # a stats line printed in fixed-width cells (one every 16 columns) cut by an 80-column terminal: its pieces'
    # padded columns line up as a table's rows do (no evidence either way); the traceback's cut lines still tell
    # the wrap, and it is undone, the stats line too
    stats = "hidden stats: " + "".join(f"{f'h{i:02d}={(i * 37 % 200 - 100) / 101:+.4f}':<14}  " for i in range(14)).rstrip()
    long = stats + "\n" + TRACE
    text = "".join(line[k : k + 80] + "\n" for line in long.split("\n") if line for k in range(0, len(line), 80))
    assert wrap_width(text.split("\n"), LITERALS) is not None
    got = present(text.encode(), LITERALS)
    assert got is not None and "wrap 80" in got.undone
    assert stats in got.data.decode()
    d = diagnose(text, catalog=CATALOG)
    assert d.findings and d.findings[0].id == "pytorch/rnn-hidden-size-mismatch"


def test_log_records_with_a_padded_level_are_still_unwrapped() -> None:
    # review32a: Python logging's '%(levelname)-8s' (and loguru's '| ERROR    |') pads every record's header to one
    # column; a long record cut by the terminal and a short record before it share that column, and were read as rows
    # of a layout, so no cut was left to tell the wrap and the message stayed split ('... must be equal' | 'to
    # input_size...'). A row ends in its last column's field; a record's text runs on in words to the cut.
    def record(second: int, level: str, text: str) -> str:
        return f"2024-05-01 12:00:{second:02d},{second * 37:03d} {level:<8} trainer: {text}"

    records = [
        record(1, "INFO", "epoch 1 started"),
        record(2, "WARNING", "lr scheduler stepped before optimizer; this is harmless for the first step of training"),
        record(3, "INFO", "batch 0 loaded"),
        record(4, "ERROR", "step 0 failed: RuntimeError: input.size(-1) must be equal to input_size. Expected 128, got 64"),
        record(5, "INFO", "shutting down"),
    ]
    for width in (80, 100, 120):
        text = "".join(r[k : k + width] + "\n" for r in records for k in range(0, len(r), width))
        assert wrap_width(text.split("\n"), LITERALS) is not None, width
        d = diagnose(text, catalog=CATALOG)
        assert d.findings and d.findings[0].id == "pytorch/rnn-input-size-mismatch", (width, [f.id for f in d.findings])
    # loguru's '{time} | {level: <8} | {name}:{function}:{line} - {message}', cut at 120 inside the message
    loguru = [
        "2024-05-01 12:00:01.053 | INFO     | __main__:main:31 - fold 1 of 5",
        "2024-05-01 12:00:02.106 | DEBUG    | data.loader:collate:88 - batch padded to 211 steps, lengths kept on cuda:0 as int64",
        "2024-05-01 12:00:03.159 | INFO     | __main__:main:35 - forward pass",
        "2024-05-01 12:00:04.212 | ERROR    | __main__:train_step:57 - RuntimeError: 'lengths' argument should be a 1D CPU int64"
        " tensor, but got 1D cuda:0 Long tensor",
        "2024-05-01 12:00:05.265 | INFO     | __main__:main:40 - aborting",
    ]
    text = "".join(r[k : k + 120] + "\n" for r in loguru for k in range(0, len(r), 120))
    assert wrap_width(text.split("\n"), LITERALS) is not None
    d = diagnose(text, catalog=CATALOG)
    assert d.findings and d.findings[0].id == "pytorch/pack-padded-lengths-on-cuda", [f.id for f in d.findings]
