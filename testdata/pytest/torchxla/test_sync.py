"""A PyTorch/XLA suite (on the CPU) whose one test passes on its own while compiling a graph again
at each step: PyTorch/XLA's compile log lines are written by C++ code to the standard error,
which pytest takes, so the run folder's log holds no compilation while its dump holds the
graphs. pytest --recomp cannot judge the session and says so: exit status 1
(python/suites_test.go)."""
import os

os.environ.setdefault("PJRT_DEVICE", "CPU")

import torch  # noqa: E402
import torch_xla  # noqa: E402


def test_growing_batches():
    dev = torch_xla.device()
    w = torch.ones(16, 4, device=dev)
    for n in (2, 3, 4, 5):
        x = torch.ones(n, 16, device=dev)
        torch.tanh(x @ w).sum()
        torch_xla.sync()
