"""Train ``junqi.torch.Net`` in PyTorch on a self-play run's samples, streamed
by ``junqi.data.iter_sample_batches``, and save a net file that ``junqi``
plays. The losses are those of ``junqi train`` (docs/training.md): the
policy's cross-entropy to the stored distribution over the legal actions,
and the win/draw/loss head's to the game's outcome.

    junqi selfplay --games 200 --bots heuristic --samples-per-game all --out runs/h200
    python3 python/examples/train_torch_net.py runs/h200 --steps 300 --out mine.safetensors
    junqi arena --bots net:path=mine.safetensors,random --games-per-pair 20 --out runs/mine-vs-random

Needs torch and pyarrow (``pip install './python[data,torch]'``).
"""

import argparse
import itertools

import torch
import torch.nn.functional as F

from junqi import data
from junqi.torch import Net


def batches(run_dir, batch_size):
    """Sample batches as tensors, over the run again and again."""
    for _ in itertools.count():
        for b in data.iter_sample_batches(run_dir, batch_size=batch_size):
            yield {k: torch.from_numpy(b[k]) for k in ("obs", "mask", "policy", "outcome")}


def losses(net, b):
    """(policy loss, value loss) of one batch."""
    policy_logits, wdl_logits, _ = net(b["obs"])
    legal = b["mask"].bool()
    log_p = F.log_softmax(policy_logits.masked_fill(~legal, -1e9), dim=1)
    policy = -(b["policy"] * log_p.masked_fill(~legal, 0.0)).sum(1).mean()
    wdl_class = (1 - b["outcome"]).long()  # +1 win → 0, 0 draw → 1, −1 loss → 2
    return policy, F.cross_entropy(wdl_logits, wdl_class)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir", help="a `junqi selfplay --out` directory")
    p.add_argument("--out", required=True, help="the net file to write")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--blocks", type=int, default=2)
    p.add_argument("--channels", type=int, default=32)
    args = p.parse_args(argv)

    torch.manual_seed(0)
    net = Net({"blocks": args.blocks, "channels": args.channels})
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    net.train()
    first = last = None
    for step, b in zip(range(1, args.steps + 1), batches(args.run_dir, args.batch_size)):
        policy, value = losses(net, b)
        loss = policy + value
        opt.zero_grad()
        loss.backward()
        opt.step()
        last = (policy.item(), value.item())
        first = first or last
        if step == 1 or step % 50 == 0 or step == args.steps:
            print(f"step {step}: policy loss {last[0]:.3f}, value loss {last[1]:.3f}", flush=True)
    net.save_safetensors(args.out, step=args.steps)
    print(f"wrote {args.out}: junqi arena --bots net:path={args.out},random --out DIR")
    return first, last


if __name__ == "__main__":
    main()
