"""A PyTorch/XLA training step whose last batch is partial: run by recomp's live test of
`recomp run`, which switches the evidence on."""
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


for step, batch in enumerate((32, 32, 32, 24)):
    train_step(torch.ones(batch, 8, device=device), torch.zeros(batch, 4, device=device))
    print(f"step {step} batch {batch}", flush=True)
