"""The pytest plugin, run through pytest's own ``pytester`` (the entry point loads it as in a user's project)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

pytest_plugins = ["pytester"]


# What the plugin writes: its section and summary headers, a report's first line, the pointer to `show`. A bare
# "cudnn-doctor" is not enough: the checkout's or the virtual environment's path may contain it (tracebacks of
# a subprocess print sys.executable).
_REPORT = re.compile(r"[-=] cudnn-doctor [-=]|^\s*cudnn-doctor: |cudnn-doctor show ", re.M)


def _reported(text: str) -> bool:
    return bool(_REPORT.search(text))

TESTS = '''
import pytest


def forward(x, hx):  # stands in for torch/nn/modules/rnn.py
    raise RuntimeError("Expected hidden[0] size (2, 4, 64), got [1, 4, 64]")

def test_passes():
    pass

def test_lstm_state():
    forward(None, None)

def test_training_script_output():
    print("2024-01-01 12:00:00.123: W tensorflow/core/framework/op_kernel.cc:1745] OP_REQUIRES failed at "
          "cudnn_rnn_ops.cc:1563 : Unknown: Fail to find the dnn implementation.")
    assert False, "the training script failed"

def test_training_script_in_a_subprocess():
    import subprocess, sys
    script = "import sys; sys.stderr.write('RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear "\\
             "if you passed in a non-contiguous input.\\n'); sys.exit(1)"
    subprocess.run([sys.executable, "-c", script], capture_output=True, check=True)

@pytest.fixture
def model():
    raise RuntimeError("cuDNN error: CUDNN_STATUS_EXECUTION_FAILED (cudnnRNNForwardTraining)")

def test_setup_error(model):
    pass

def test_unrelated():
    assert 1 + 1 == 3
'''


@pytest.fixture(autouse=True, scope="module")
def _warm() -> None:
    """Import everything a diagnosis imports before pytester's inline runs: each run drops from sys.modules what
    it imported, and a second copy of yaml (or of the catalog) next to the first one breaks the later tests."""
    from cudnn_doctor.integrations.hook import diagnose_record

    diagnose_record("RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n")


@pytest.fixture
def result(pytester: pytest.Pytester) -> pytest.RunResult:
    pytester.makepyfile(test_model=TESTS)
    return pytester.runpytest("-p", "no:cacheprovider", "--junitxml=report.xml")


def _section(result: pytest.RunResult, test: str) -> str:
    """The text of one test's failure report (from its header to the next one)."""
    out = result.stdout.str()
    start = out.index(f" {test} ")
    end = min((i for i in (out.find("\n___", start + 1), out.find("\n===", start + 1)) if i > 0), default=len(out))
    return out[start:end]


def test_failure_report_gets_a_cudnn_doctor_section(result: pytest.RunResult) -> None:
    result.assert_outcomes(passed=1, failed=4, errors=1)
    text = _section(result, "test_lstm_state")
    assert "- cudnn-doctor -" in text
    assert "cudnn-doctor: Initial hidden/cell state has the wrong shape for this RNN" in text  # title
    assert "Root cause: torch.nn.RNN/LSTM/GRU.forward checks the initial state" in text  # root cause
    assert "Try first: Build the initial state from the module" in text  # top workaround
    assert "Dead end: Disable cuDNN" in text
    assert "cudnn-doctor show" in text and "pytorch/rnn-hidden-size-mismatch" in text
    assert "expects 2" in text  # what this error's values say, not a generic note
    assert "in forward" in text  # the user's frame in the test file


def test_captured_output_and_setup_errors_are_diagnosed(result: pytest.RunResult) -> None:
    assert "tensorflow/fail-to-find-dnn-implementation" in _section(result, "test_training_script_output")
    # the script's output is only in the CalledProcessError (capture_output=True, check=True)
    assert "CUDNN_STATUS_NOT_SUPPORTED" in _section(result, "test_training_script_in_a_subprocess").split("- cudnn-doctor -")[1]
    setup = _section(result, "ERROR at setup of test_setup_error")
    assert "- cudnn-doctor -" in setup and "CUDNN_STATUS_EXECUTION_FAILED" in setup


def test_an_unrelated_failure_gets_nothing(result: pytest.RunResult) -> None:
    assert not _reported(_section(result, "test_unrelated"))


def test_terminal_summary_lists_the_diagnoses(result: pytest.RunResult) -> None:
    out = result.stdout.str()
    summary = out[out.index("= cudnn-doctor ="):out.index("short test summary")]
    assert "test_model.py::test_lstm_state: pytorch/rnn-hidden-size-mismatch - Initial hidden/cell state" in summary
    assert "test_model.py::test_training_script_output: tensorflow/fail-to-find-dnn-implementation" in summary
    assert "test_model.py::test_setup_error: " in summary
    assert "test_unrelated" not in summary and "test_passes" not in summary


def test_junit_xml_gets_the_id_as_a_property(result: pytest.RunResult, pytester: pytest.Pytester) -> None:
    root = ET.parse(pytester.path / "report.xml").getroot()
    props = {
        case.get("name"): [(p.get("name"), p.get("value")) for p in case.iter("property")] for case in root.iter("testcase")
    }
    assert props["test_lstm_state"] == [("cudnn-doctor", "pytorch/rnn-hidden-size-mismatch")]
    assert props["test_training_script_output"] == [("cudnn-doctor", "tensorflow/fail-to-find-dnn-implementation")]
    assert props["test_setup_error"] and props["test_setup_error"][0][0] == "cudnn-doctor"
    assert props["test_unrelated"] == [] and props["test_passes"] == []


def test_p_no_cudnn_doctor_turns_it_off(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_model=TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:cudnn_doctor")
    result.assert_outcomes(passed=1, failed=4, errors=1)
    assert not _reported(result.stdout.str())


def test_the_diagnosis_survives_tb_no_in_the_summary(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_model=TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tb=no")
    assert "test_model.py::test_lstm_state: pytorch/rnn-hidden-size-mismatch" in result.stdout.str()


def test_passing_tests_import_nothing_of_the_knowledge_base(pytester: pytest.Pytester) -> None:
    """Costs nothing on passing tests: in a real subprocess, the catalog and the matcher are never imported."""
    pytester.makeconftest('''
import json, sys
def pytest_sessionfinish(session):
    loaded = sorted(m for m in sys.modules if m.startswith("cudnn_doctor"))
    with open("loaded.json", "w") as fh:
        json.dump(loaded, fh)
''')
    pytester.makepyfile(test_ok="def test_a():\n    pass\n\ndef test_b():\n    assert True\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    loaded = json.loads((pytester.path / "loaded.json").read_text())
    assert "cudnn_doctor.integrations.pytest_plugin" in loaded  # it is active...
    assert not {"cudnn_doctor.kb.load", "cudnn_doctor.scan", "cudnn_doctor.match", "cudnn_doctor.integrations.hook"} & set(loaded)


def test_a_module_that_cannot_be_imported_is_diagnosed(pytester: pytest.Pytester) -> None:
    """`import torch` failing at collection on a missing libcudnn: an error before any test runs."""
    pytester.makepyfile(test_imports='raise ImportError("libcudnn.so.8: cannot open shared object file: No such file '
                                     'or directory")\n\ndef test_x():\n    pass\n')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    section = out[out.index("ERROR collecting test_imports.py"):out.index("= cudnn-doctor =")]
    assert "- cudnn-doctor -" in section and "cudnn/library-not-found" in section
    assert "test_imports.py: cudnn/library-not-found - " in out
