"""normalize_line: what CI systems, launchers and terminals add to a line is removed; line count is kept."""

from __future__ import annotations

import pytest

from cudnn_doctor.read.normalize import clean_text, normalize_line


@pytest.mark.parametrize(
    ("raw", "clean", "stream"),
    [
        ("2024-05-14T09:12:33.1234567Z RuntimeError: x", "RuntimeError: x", ""),
        ("\ufeff2024-05-14T09:12:33Z hello", "hello", ""),
        ("##[group]Run python train.py", "Run python train.py", ""),
        ("2024-05-14T09:12:33.1234567Z ##[error]Process completed", "Process completed", ""),
        ("section_start:1715677921:train_step[collapsed=true]\r\x1b[0KTraining", "Training", ""),
        ("section_end:1715677999:train_step\r\x1b[0K", "", ""),
        ("[Pipeline] sh", "", ""),
        ("[Pipeline] { (Build)", "", ""),
        ("\x1b[31mRuntimeError\x1b[0m: boom", "RuntimeError: boom", ""),
        ("\x1b]8;;https://x.org\x07link\x1b]8;;\x07", "link", ""),
        ("line with CRLF\r", "line with CRLF", ""),
        (" 10%|█         | 1/10\r 20%|██        | 2/10\r100%|██████████| 10/10", "100%|██████████| 10/10", ""),
        ("progress 1\rprogress 2\r\r", "progress 2", ""),
        ("[rank0]: Traceback (most recent call last):", "Traceback (most recent call last):", "rank0"),
        ("[rank12]:RuntimeError: x", "RuntimeError: x", "rank12"),
        ("[default3]:RuntimeError: x", "RuntimeError: x", "default3"),
        ("[1,0]<stderr>:RuntimeError: x", "RuntimeError: x", "1,0"),
        ("[1,0]<stderr>:  File \"rnn.py\", line 9", '  File "rnn.py", line 9', "1,0"),
        ("(pid=4242) RuntimeError: x", "RuntimeError: x", "pid=4242"),
        ("(RayTrainWorker pid=77, ip=10.0.0.2) ValueError: y", "ValueError: y", "RayTrainWorker pid=77, ip=10.0.0.2"),
        ("2024-05-14T09:12:33.1234567Z [rank1]: \x1b[1mKeyError\x1b[0m", "KeyError", "rank1"),
        ("bell\x07 and nul\x00 gone, tab\tkept", "bell and nul gone, tab\tkept", ""),
        ("[12] not a rank prefix", "[12] not a rank prefix", ""),
        # container runtimes and log viewers (issue 27: a log as the user carries it)
        ("2024-05-14T09:00:00.123456789Z stderr F RuntimeError: x", "RuntimeError: x", ""),
        ("2024-05-14T09:00:00.123456789Z stdout P [rank0]: x", "x", "rank0"),
        ("2024-05-22T12:43:46.962646Z 01E+ RuntimeError: x", "RuntimeError: x", ""),
        ("trainer-1  | RuntimeError: x", "RuntimeError: x", ""),
        ("proj_trainer_12 | 2024-05-14T09:00:00Z [rank3]: x", "x", "rank3"),
        ("Dec  4 16:00:00 gpu-node-3 python[1234]: RuntimeError: x", "RuntimeError: x", ""),
        ("Dec 04 16:00:00 gpu-node-3 kernel: NVRM: Xid 79", "NVRM: Xid 79", ""),
        ("6.5s\t12\tRuntimeError: x", "RuntimeError: x", ""),
        ("Epoch 1 | loss 0.5", "Epoch 1 | loss 0.5", ""),
        ("trainer | not a compose prefix", "trainer | not a compose prefix", ""),
        ("Dec 2024 was when it broke: x", "Dec 2024 was when it broke: x", ""),
        ("6.5s per step\tx", "6.5s per step\tx", ""),
        ("2024-05-14 09:12:01.1: E tf.cc:1] keeps TF's own timestamp", "2024-05-14 09:12:01.1: E tf.cc:1] keeps TF's own timestamp", ""),
        # branch present20: kubectl's pod prefix, a log viewer's date and time, a cloud export's UTC offset
        ("[pod/trainer-7d9f-0/trainer] RuntimeError: x", "RuntimeError: x", "pod/trainer-7d9f-0/trainer"),
        ("2024-05-14 09:00:01\tRuntimeError: x", "RuntimeError: x", ""),
        ("2024-03-11 10:12:01.552 INFO  train.py:88] a record's own", "2024-03-11 10:12:01.552 INFO  train.py:88] a record's own", ""),
        ("2024-05-14 09:00:01.123\t  File \"a.py\", line 3", '  File "a.py", line 3', ""),
        ("2024-05-14T09:00:01.123+00:00 RuntimeError: x", "RuntimeError: x", ""),
        ("2024-05-14 09:00:01,123 - ERROR - a logging record's own", "2024-05-14 09:00:01,123 - ERROR - a logging record's own", ""),
        ("[pod] not a kubectl prefix", "[pod] not a kubectl prefix", ""),
        ("2019-07-28 18:25:57.8248668 [E:onnxruntime:test, x] y", "2019-07-28 18:25:57.8248668 [E:onnxruntime:test, x] y", ""),
    ],
)
def test_normalize_line(raw: str, clean: str, stream: str) -> None:
    assert normalize_line(raw) == (clean, stream)


def test_clean_text_keeps_the_line_count() -> None:
    raw = "a\r\n##[group]g\n[Pipeline] sh\nsection_end:1:x\r\x1b[0K\nb\rc\n"
    out = clean_text(raw)
    assert out.split("\n") == ["a\r".rstrip("\r"), "g", "", "", "c", ""]
    assert out.count("\n") == raw.count("\n")
