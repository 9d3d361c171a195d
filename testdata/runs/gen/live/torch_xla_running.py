"""A PyTorch/XLA training loop that recompiles after warm-up and keeps running (a batch of 24
from step 3 on, for a minute): run by recomp's live tests of `recomp run --fail-on-recompile`."""
import time

import torch
import torch_xla

device = torch_xla.device()
model = torch.nn.Linear(8, 4).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def train_step(x, y):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    torch_xla.sync()


for step in range(1200):
    batch = 32 if step < 3 else 24
    train_step(torch.ones(batch, 8, device=device), torch.zeros(batch, 4, device=device))
    print(f"step {step} batch {batch}", flush=True)
    time.sleep(0.05)
