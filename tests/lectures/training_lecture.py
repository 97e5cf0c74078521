"""Fixture for export's handouts: a ~100-line training lecture, as a new lecturer writes one."""

import torch

from tracer import text


def data():
    text("## Data")
    text("We fit a line with noise: $y = 3x + 2 + \\epsilon$. Sixty-four points, one feature.")
    torch.manual_seed(0)
    x = torch.linspace(-1, 1, 64).unsqueeze(1)  # @inspect x
    noise = 0.1 * torch.randn(64, 1)  # @inspect noise
    y = 3 * x + 2 + noise  # @inspect y
    text("Split into training and validation halves.")
    order = torch.randperm(64)  # @inspect order
    train = order[:48]  # @inspect train
    valid = order[48:]  # @inspect valid
    return x[train], y[train], x[valid], y[valid]


def model():
    text("## Model")
    text("A two-layer perceptron: 1 → 16 → 1, with a ReLU between.")
    net = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    weights = net[0].weight  # @inspect weights
    bias = net[0].bias  # @inspect bias
    count = sum(p.numel() for p in net.parameters())  # @inspect count
    text("Each parameter is a float32: 4 bytes.")
    nbytes = 4 * count  # @inspect nbytes
    return net


def loss_function():
    text("## Loss")
    text("Mean squared error: the average of $(\\hat y - y)^2$.")
    pred = torch.tensor([1.0, 2.0, 3.0])  # @inspect pred
    target = torch.tensor([1.5, 2.0, 2.0])  # @inspect target
    mse = ((pred - target) ** 2).mean()  # @inspect mse
    same = torch.nn.functional.mse_loss(pred, target)  # @inspect same
    return torch.nn.functional.mse_loss


def optimizer(net):
    text("## Optimizer")
    text("Stochastic gradient descent with momentum.")
    lr = 0.1  # @inspect lr
    momentum = 0.9  # @inspect momentum
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=momentum)
    groups = len(opt.param_groups)  # @inspect groups
    return opt


def training(net, opt, loss_fn, x, y):
    text("## Training loop")
    text("Each epoch: forward, loss, backward, step. The loss should fall quickly.")
    history = []  # @inspect history
    for epoch in range(12):
        opt.zero_grad()
        pred = net(x)  # @inspect pred
        loss = loss_fn(pred, y)  # @inspect loss
        loss.backward()
        grad_norm = net[0].weight.grad.norm()  # @inspect grad_norm
        opt.step()
        history.append(round(loss.item(), 4))  # @inspect history
    text("The loss history, epoch by epoch:")
    first = history[0]  # @inspect first
    last = history[-1]  # @inspect last
    return history


def evaluation(net, loss_fn, x, y):
    text("## Evaluation")
    text("On the held-out half, without gradients.")
    with torch.no_grad():
        pred = net(x)  # @inspect pred
        valid_loss = loss_fn(pred, y)  # @inspect valid_loss
    text("Try a few inputs by hand.")
    probe = torch.tensor([[-1.0], [0.0], [1.0]])  # @inspect probe
    with torch.no_grad():
        answer = net(probe)  # @inspect answer
    expected = 3 * probe + 2  # @inspect expected
    return valid_loss


def main():
    text("# Training a tiny network")
    text("From data to a trained model in six steps: data, model, loss, optimizer, training, evaluation.")
    x_train, y_train, x_valid, y_valid = data()
    net = model()
    loss_fn = loss_function()
    opt = optimizer(net)
    history = training(net, opt, loss_fn, x_train, y_train)
    valid_loss = evaluation(net, loss_fn, x_valid, y_valid)
    text("## Summary")
    text("Training loss fell from the first epoch to the last; validation loss is close to it.")
    final = history[-1]  # @inspect final
