"""A PyTorch/XLA training loop of N steps of one shape (argv[1]): recomp-bench -overhead runs it
plain and under `recomp run`."""
import sys

import torch
import torch_xla

steps = int(sys.argv[1])
device = torch_xla.device()
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.Tanh(), torch.nn.Linear(128, 8)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(32, 64).to(device), torch.randn(32, 8).to(device)
for step in range(steps):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    torch_xla.sync()
    if step % 500 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
print("done", flush=True)
