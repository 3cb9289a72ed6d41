"""Versions a person wrote free-form anywhere in a log or an issue (issue 9), and numbers that are not versions."""

from __future__ import annotations

import pytest

from cudnn_doctor.env.detect import detect


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("torch 2.2.0+cu121, cuDNN 8902", {"torch": "2.2.0+cu121", "cudnn": "8.9.2", "cuda": "12.1"}),
        ("torch==2.2.0", {"torch": "2.2.0"}),
        ("tensorflow-gpu 1.15.2", {"tensorflow": "1.15.2"}),
        ("cudnn 8.9.2", {"cudnn": "8.9.2"}),
        ("PyTorch version: 1.13.1", {"torch": "1.13.1"}),
        ("I am on pytorch 1.4 with cudnn 7.6.5 and CUDA 10.1", {"torch": "1.4", "cudnn": "7.6.5", "cuda": "10.1"}),
        ("Env: tf 2.4.1, keras 2.4.3", {"tensorflow": "2.4.1", "keras": "2.4.3"}),
        ("TensorFlow 2.3.0 on a GTX 1080", {"tensorflow": "2.3.0"}),
        ("mxnet-cu101 1.5.0", {"mxnet": "1.5.0"}),
        ("paddlepaddle-gpu 2.4.2", {"paddle": "2.4.2"}),
        ("pip install torch-1.13.1", {"torch": "1.13.1"}),
        ("conda install pytorch=1.5.0 cudatoolkit=10.1", {"torch": "1.5.0"}),
        ("Using TensorFlow backend.", {"keras_backend": "tensorflow", "keras": "<2.4"}),
    ],
)
def test_free_form_versions_are_read(text: str, want: dict[str, str]) -> None:
    got = detect("some noise\n" + text + "\nmore noise\n").versions
    assert {k: got.get(k) for k in want} == want


@pytest.mark.parametrize(
    "text",
    [
        "Epoch 3/10 - loss: 2.345 - val_loss: 1.2",  # a loss value
        "x = torch.randn(2, 3); print(torch.Size([2, 3]))",  # a shape
        "2021-03-02 torch 2021.03.02 nightly",  # a date after the word
        "Downloading torch 1.5 GB",  # a size
        "tf 2.5s per step",  # a time
        "device='cuda:0' 1.5",  # a device string
        "tensorflow 25.1",  # a major TensorFlow never had
    ],
)
def test_numbers_that_are_not_versions_are_not_read(text: str) -> None:
    got = detect(text + "\n").versions
    assert not ({"torch", "tensorflow", "keras", "cuda"} & set(got)), got


def test_nvidia_smi_cuda_is_not_read_as_the_toolkit() -> None:
    env = detect("| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n")
    assert env.ranks["cuda"] == 30  # only the weak nvidia-smi hint, not a free-form toolkit version


def test_a_free_form_version_does_not_beat_a_better_source() -> None:
    env = detect("torch 1.13\ntorch==2.2.0\n")
    assert env.versions["torch"] == "2.2.0"  # a pip row (70) over what someone wrote (60)
