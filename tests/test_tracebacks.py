"""The user's frame above an error (tracebacks.py)."""

from __future__ import annotations

import textwrap

import cudnn_doctor
from cudnn_doctor.rank.tracebacks import frames, is_library, tf_node, user_frame


def lines(text: str) -> list[str]:
    return textwrap.dedent(text).splitlines()


PLAIN = lines(
    """\
    Traceback (most recent call last):
      File "/home/ana/project/train.py", line 88, in <module>
        main()
      File "/home/ana/project/train.py", line 80, in main
        loss = step(model, batch)
      File "/home/ana/project/model.py", line 42, in forward
        out, (h, c) = self.lstm(x, (h0, c0))
      File "/opt/conda/envs/t/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1518, in _wrapped_call_impl
        return self._call_impl(*args, **kwargs)
      File "/opt/conda/envs/t/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 879, in forward
        result = _VF.lstm(input, hx, self._flat_weights, self.bias, self.num_layers,
                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED
    """
)


def test_plain_traceback_innermost_user_frame() -> None:
    f = user_frame(PLAIN)
    assert f is not None
    assert (f.file, f.line, f.func) == ("/home/ana/project/model.py", 42, "forward")
    assert f.code == "out, (h, c) = self.lstm(x, (h0, c0))"
    assert f.to_record() == {
        "file": "/home/ana/project/model.py", "line": 42, "function": "forward",
        "code": "out, (h, c) = self.lstm(x, (h0, c0))", "node": None,
    }


CHAINED = lines(
    """\
    Traceback (most recent call last):
      File "/work/old_code.py", line 10, in first
        y = rnn(x)
      File "/usr/lib/python3/dist-packages/torch/nn/modules/rnn.py", line 500, in forward
        raise RuntimeError("cuDNN error: CUDNN_STATUS_BAD_PARAM")
    RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM

    During handling of the above exception, another exception occurred:

    Traceback (most recent call last):
      File "/work/run.py", line 30, in <module>
        retry()
      File "/work/run.py", line 22, in retry
        fallback(x)
      File "/usr/lib/python3.10/logging/__init__.py", line 1500, in error
        self._log(ERROR, msg, args, **kwargs)
    ValueError: fallback failed
    """
)

DIRECT_CAUSE = lines(
    """\
    Traceback (most recent call last):
      File "C:\\Users\\bo\\proj\\net.py", line 12, in forward
        return self.gru(x)
    RuntimeError: CUDNN_STATUS_NOT_SUPPORTED

    The above exception was the direct cause of the following exception:

    Traceback (most recent call last):
      File "C:\\Users\\bo\\proj\\main.py", line 7, in <module>
        run()
      File "C:\\Users\\bo\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\runpy.py", line 88, in _run_code
        exec(code, run_globals)
    RuntimeError: training failed
    """
)


def test_chained_traceback_uses_the_last_exception() -> None:
    f = user_frame(CHAINED)
    assert f is not None and (f.file, f.line, f.func, f.code) == ("/work/run.py", 22, "retry", "fallback(x)")
    assert all(fr.file != "/work/old_code.py" for fr in frames(CHAINED))


def test_direct_cause_chain_and_windows_paths() -> None:
    f = user_frame(DIRECT_CAUSE)
    assert f is not None and (f.file, f.line) == ("C:\\Users\\bo\\proj\\main.py", 7)
    # up to the first exception only: its own frame
    f = user_frame(DIRECT_CAUSE[:4])
    assert f is not None and f.file.endswith("net.py") and f.code == "return self.gru(x)"


def test_ipython8_frames() -> None:
    text = lines(
        """\
        ---------------------------------------------------------------------------
        RuntimeError                              Traceback (most recent call last)
        Cell In[3], line 5
              3 x = torch.randn(5, 3, 10).cuda()
              4 h0 = torch.randn(1, 3, 20).cuda()
        ----> 5 out, h = lstm(x, h0)

        File ~/.local/lib/python3.10/site-packages/torch/nn/modules/module.py:1518, in Module._wrapped_call_impl(self, *args, **kwargs)
           1516     return self._compiled_call_impl(*args, **kwargs)  # type: ignore[misc]
           1517 else:
        -> 1518     return self._call_impl(*args, **kwargs)

        RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM
        """
    )
    f = user_frame(text)
    assert f is not None and (f.file, f.line, f.code) == ("In[3]", 5, "out, h = lstm(x, h0)")
    text2 = lines(
        """\
        File ~/work/seq/model.py:260, in Seq2Seq.forward(self, src)
            258 def forward(self, src):
            259     emb = self.embed(src)
        --> 260     out, _ = self.encoder(emb)

        File /opt/conda/lib/python3.10/site-packages/torch/nn/modules/rnn.py:1100, in GRU.forward(self, input, hx)
        -> 1100 result = _VF.gru(input, hx, self._flat_weights)
        """
    )
    f = user_frame(text2)
    assert f is not None and (f.file, f.line) == ("~/work/seq/model.py", 260)
    assert f.func == "Seq2Seq.forward(self, src)" and f.code == "out, _ = self.encoder(emb)"


def test_ipython7_frames() -> None:
    text = lines(
        """\
        RuntimeError                              Traceback (most recent call last)
        <ipython-input-4-6b1f2c5d8e9a> in <module>
              1 lstm = nn.LSTM(10, 20).cuda()
        ----> 2 out, _ = lstm(x)

        ~/anaconda3/lib/python3.7/site-packages/torch/nn/modules/module.py in __call__(self, *input, **kwargs)
            491             result = self._slow_forward(*input, **kwargs)
        --> 493             result = self.forward(*input, **kwargs)

        RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED
        """
    )
    f = user_frame(text)
    assert f is not None and f.file == "<ipython-input-4-6b1f2c5d8e9a>" and f.line == 2 and f.code == "out, _ = lstm(x)"


def test_loguru_frames() -> None:
    text = lines(
        """\
        2024-01-05 10:00:00.000 | ERROR    | __main__:<module>:40 - An error has been caught in function '<module>'
        Traceback (most recent call last):

          File "/srv/app/train.py", line 40, in <module>
            train()
            └ <function train at 0x7f2a>

        > File "/srv/app/train.py", line 31, in train
            out, _ = lstm(x)
                     │    └ tensor([[...]])
                     └ LSTM(10, 20)

          File "/srv/venv/lib/python3.11/site-packages/torch/nn/modules/rnn.py", line 879, in forward
            result = _VF.lstm(input, hx, self._flat_weights)

        RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED
        """
    )
    f = user_frame(text)
    assert f is not None and (f.file, f.line, f.func, f.code) == ("/srv/app/train.py", 31, "train", "out, _ = lstm(x)")


def test_tensorflow_node_and_defined_at() -> None:
    text = lines(
        """\
        Traceback (most recent call last):
          File "/home/u/fit.py", line 50, in <module>
            model.fit(x, y, epochs=2)
          File "/usr/local/lib/python3.10/dist-packages/keras/src/utils/traceback_utils.py", line 70, in error_handler
            raise e.with_traceback(filtered_tb) from None
          File "/usr/local/lib/python3.10/dist-packages/tensorflow/python/eager/execute.py", line 53, in quick_execute
            tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
        tensorflow.python.framework.errors_impl.InternalError: Graph execution error:

        Detected at node 'model/lstm/CudnnRNNV3' defined at (most recent call last):
            File "/home/u/fit.py", line 50, in <module>
              model.fit(x, y, epochs=2)
            File "/home/u/net.py", line 18, in call
              h = self.lstm(inputs, mask=mask)
            File "/usr/local/lib/python3.10/dist-packages/keras/src/layers/rnn/lstm.py", line 616, in call
              runtime) = lstm_with_backend_selection(**normal_lstm_kwargs)
        Node: 'model/lstm/CudnnRNNV3'
        Failed to call ThenRnnForward with model config: [rnn_mode, rnn_input_mode, rnn_direction_mode]: 2, 0, 0
        \t [[{{node model/lstm/CudnnRNNV3}}]] [Op:__inference_train_function_5138]
        """
    )
    f = user_frame(text)
    assert f is not None and (f.file, f.line, f.func) == ("/home/u/net.py", 18, "call")
    assert f.code == "h = self.lstm(inputs, mask=mask)"
    assert f.node == "model/lstm/CudnnRNNV3"
    assert f.to_record()["node"] == "model/lstm/CudnnRNNV3"
    assert tf_node(text) == "model/lstm/CudnnRNNV3"


def test_tensorflow_old_node_forms() -> None:
    assert tf_node(["\t [[{{node CudnnRNN}}]]", "\t [[sequential/lstm/PartitionedCall]]"]) == "CudnnRNN"
    assert tf_node(["\t [[Node: lstm_1/CudnnRNN = CudnnRNN[T=DT_FLOAT, direction=\"unidirectional\"](...)]]"]) == "lstm_1/CudnnRNN"
    text = ["  [[node sequential/lstm/CudnnRNN (defined at /home/u/train.py:25) ]] [Op:__inference_train_function_3402]"]
    f = user_frame(text)
    assert f is not None and (f.file, f.line, f.node) == ("/home/u/train.py", 25, "sequential/lstm/CudnnRNN")
    tf1 = lines(
        """\
        Caused by op 'lstm/CudnnRNN', defined at:
          File "train_v1.py", line 30, in <module>
            outputs = tf.keras.layers.CuDNNLSTM(64)(inputs)
          File "/usr/lib/python3.6/site-packages/tensorflow/python/keras/engine/base_layer.py", line 554, in __call__
            outputs = self.call(inputs, *args, **kwargs)
        """
    )
    f = user_frame(tf1)
    assert f is not None and (f.file, f.line, f.node) == ("train_v1.py", 30, "lstm/CudnnRNN")


def test_julia_frames_new_and_old() -> None:
    new = lines(
        """\
        ERROR: LoadError: CUDNNError: CUDNN_STATUS_BAD_PARAM (code 3)
        Stacktrace:
          [1] throw_api_error(res::cuDNN.cudnnStatus_t)
            @ cuDNN ~/.julia/packages/cuDNN/YkZhm/src/libcudnn.jl:11
          [2] macro expansion
            @ ~/.julia/packages/cuDNN/YkZhm/src/libcudnn.jl:24 [inlined]
          [3] (::Flux.Recur)(x::CuArray{Float32, 2})
            @ Flux ~/.julia/packages/Flux/n3cOc/src/layers/recurrent.jl:134
          [4] train!(m::Chain, data::Vector)
            @ Main ~/proj/train.jl:42
          [5] top-level scope
            @ ~/proj/train.jl:60
          [6] include(mod::Module, _path::String)
            @ Base ./Base.jl:495
        """
    )
    f = user_frame(new)
    assert f is not None and (f.file, f.line, f.func) == ("~/proj/train.jl", 42, "train!(m::Chain, data::Vector)")
    old = lines(
        """\
        ERROR: CUDNNError(code 3, CUDNN_STATUS_BAD_PARAM)
        Stacktrace:
         [1] macro expansion at /home/u/.julia/packages/CuArrays/7z7MV/src/dnn/error.jl:19 [inlined]
         [2] cudnnRNNForwardTraining(...) at /home/u/.julia/packages/CuArrays/7z7MV/src/dnn/rnn.jl:102
         [3] forward(m::Flux.LSTMCell) at /home/u/work/model.jl:174
         [4] top-level scope at none:0
        """
    )
    f = user_frame(old)
    assert f is not None and (f.file, f.line) == ("/home/u/work/model.jl", 174)


def test_pytest_and_rich_frames() -> None:
    text = lines(
        """\
        tests/test_model.py:33: in test_forward
            out = model(batch)
        /usr/lib/python3.12/site-packages/torch/nn/modules/module.py:1553: in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
        E   RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED
        """
    )
    f = user_frame(text)
    assert f is not None and (f.file, f.line, f.code) == ("tests/test_model.py", 33, "out = model(batch)")
    rich = [
        "╭──────────────────── Traceback (most recent call last) ────────────────────╮",
        "│ /home/u/cli.py:42 in main                                                 │",
        "│                                                                           │",
        "│   41 │   x = load()                                                       │",
        "│ ❱ 42 │   out, h = lstm(x, h0)                                             │",
        "│                                                                           │",
        "│ /usr/lib/python3.11/site-packages/torch/nn/modules/rnn.py:879 in forward  │",
        "╰───────────────────────────────────────────────────────────────────────────╯",
        "RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM",
    ]
    f = user_frame(rich)
    assert f is not None and (f.file, f.line, f.func, f.code) == ("/home/u/cli.py", 42, "main", "out, h = lstm(x, h0)")


def test_library_paths() -> None:
    for path in [
        "/usr/lib/python3.10/runpy.py",
        "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/rnn.py",
        "<frozen runpy>",
        "/home/u/miniconda3/lib/python3.11/threading.py",
        "/home/u/miniconda3/envs/t/lib/python3.9/site-packages/keras/engine/training.py",
        "/home/u/.pyenv/versions/3.11.7/lib/python3.11/asyncio/base_events.py",
        "C:\\Python310\\lib\\runpy.py",
        "/pytorch/torch/csrc/autograd/python_variable.cpp",
        "/src/tensorflow/python/eager/execute.py",
        "/home/u/.julia/packages/Flux/abc/src/layers/recurrent.jl",
        "./client.jl",
    ]:
        assert is_library(path), path
    for path in ["/home/u/project/train.py", "/home/u/project/lib/utils.py", "train.py", "<stdin>", "In[3]",
                 "~/proj/train.jl", "C:\\Users\\bo\\proj\\main.py", "/tmp/ipykernel_123/456.py"]:
        assert not is_library(path), path


def test_only_library_frames_gives_none() -> None:
    assert user_frame(PLAIN[:1] + PLAIN[7:]) is None
    assert user_frame([]) is None


def test_user_frame_in_the_diagnosis() -> None:
    text = "\n".join(PLAIN) + "\n"
    d = cudnn_doctor.diagnose(text)
    assert d.findings, "a built-in signature should match cuDNN EXECUTION_FAILED"
    frame = d.findings[0].user_frame
    assert frame is not None and frame["file"] == "/home/ana/project/model.py" and frame["line"] == 42
