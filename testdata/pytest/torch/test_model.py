"""A small torch.compile suite for recomp's pytest plugin: python/suites_test.go runs it with the
wheel installed and holds what each test must give under pytest --recomp (with and without
-n 2). backend="eager" keeps it quick: dynamo traces, guards and compiles again as with
Inductor, with no code generated; dynamic=False makes each new size a compilation (dynamo's
automatic dynamic shapes would otherwise serve every size after the second from one graph)."""
import os

os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")  # no pool of compile workers

import pytest  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
torch._dynamo.config.recompile_limit = 64  # the suite's sizes, all compiled


def _predict(w, x):
    return torch.tanh(x @ w).sum(dim=-1)


def _init(x):
    return torch.ones(x.shape[-1], 4) * 0.1


predict = torch.compile(_predict, backend="eager", dynamic=False)
init = torch.compile(_init, backend="eager", dynamic=False)


@pytest.fixture(scope="module")
def weights():
    return init(torch.ones(1, 16))


def test_compile_once(weights):
    for _ in range(3):
        predict(weights, torch.ones(8, 16))


def test_growing_prefixes(weights):
    xs = torch.ones(12, 16)
    for n in range(2, 6):
        predict(weights, xs[:n])


@pytest.mark.parametrize("batch", [20, 24, 28])
def test_batch(weights, batch):
    predict(weights, torch.ones(batch, 16))


@pytest.mark.skip(reason="skipped on purpose")
def test_skipped():
    predict(torch.ones(16, 4), torch.ones(1, 16))


def test_fails_on_its_own(weights):
    predict(weights, torch.ones(8, 16))
    assert 1 + 1 == 3, "fails on its own"


@pytest.fixture
def predicts_at_teardown(weights):
    yield
    for n in (41, 43):  # a new size each: compiled again as the test's own fixture tears down
        predict(weights, torch.ones(n, 16))


def test_recompiles_at_teardown(predicts_at_teardown):
    pass


class _Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 4)
        self.drop = torch.nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(self.lin(x)).sum()


def test_train_then_eval():
    # one compilation in train() mode and one in eval(): one per mode, no recompilation. Under
    # -n 2 the other worker's dynamo records (its frame [0/0] too) interleave with this one's in
    # run.log: each line's process tag keeps them apart.
    net = torch.compile(_Net(), backend="eager", dynamic=False)
    x = torch.ones(2, 16)
    net.train()
    net(x)
    net.eval()
    net(x)
