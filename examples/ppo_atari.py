"""PPO on Atari in one file, CleanRL style (ppo_atari_envpool.py): Nature CNN, clipped surrogate
objective, GAE, value clipping, annealed learning rate. The same script trains on cule_py's vector
env or on ale-py's, so the two can be compared run for run:

    python examples/ppo_atari.py --backend cule_py --env-id ALE/Pong-v5     # cule_py consoles
    python examples/ppo_atari.py --backend ale_py  --env-id ALE/Pong-v5     # ale-py's AtariVectorEnv

The only line that differs between the backends is the one that makes the env (see make_envs).
With cule_py the env hands back torch tensors (array_type="torch"): on a GPU they are the env's
device memory through DLPack, so observations never visit the host; on the CPU they share the
env's numpy arrays (torch.from_numpy, no copy).

Episode returns are the game's unclipped score (the env runs with reward_clipping=False and the
learner clips with sign(), as the Atari baselines do); they go to a CSV (--csv) and, when
matplotlib is there, to a PNG curve (--plot). --summary-json writes what a smoke test checks.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions.categorical import Categorical


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env-id", default="ALE/Pong-v5")
    p.add_argument("--backend", choices=("cule_py", "ale_py"), default="cule_py")
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--num-steps", type=int, default=128, help="agent steps per env per rollout")
    p.add_argument("--total-timesteps", type=int, default=10_000_000, help="agent steps, all envs")
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--no-anneal-lr", dest="anneal_lr", action="store_false")
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.1)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", default=None,
                   help="torch device of the network (default: cuda when there is one, else cpu)")
    p.add_argument("--env-device", default=None,
                   help="cule_py env device (default: the GPU when there is one, else the CPU)")
    p.add_argument("--torch-threads", type=int, default=0,
                   help="torch CPU threads (0: torch's default; 1 is fastest for small CPU runs)")
    p.add_argument("--max-episode-frames", type=int, default=108_000,
                   help="emulated frames before an episode is truncated")
    p.add_argument("--episodic-life", action="store_true",
                   help="end (and reset) the episode at a life loss, as ale-py's vector env does")
    p.add_argument("--csv", default=None, help="episode log (default runs/<env>-<backend>.csv)")
    p.add_argument("--plot", default=None, help="PNG learning curve (needs matplotlib)")
    p.add_argument("--summary-json", default=None, help="losses, parameter change, episodes")
    p.add_argument("--max-seconds", type=float, default=0,
                   help="wall-clock budget: stop after the iteration that passes it (0: none); "
                        "the learning-rate schedule still spans --total-timesteps")
    args = p.parse_args(argv)
    args.batch_size = args.num_envs * args.num_steps
    args.minibatch_size = args.batch_size // args.num_minibatches
    args.num_iterations = max(1, args.total_timesteps // args.batch_size)
    return args


def make_envs(args, device: torch.device):
    """The vector env: 84x84 grayscale, 4 stacked frames, frameskip 4 with max-pooling, up to 30
    noops and FIRE at reset (ale-py's AtariVectorEnv preprocessing); same-step autoreset, so a
    finished episode's step already returns the next episode's first observation."""
    kwargs = dict(autoreset_mode="SameStep", reward_clipping=False,
                  max_num_frames_per_episode=args.max_episode_frames,
                  episodic_life=args.episodic_life)
    if args.backend == "cule_py":
        import cule_py
        return cule_py.make_vec(args.env_id, args.num_envs, device=args.env_device,
                                array_type="torch", **kwargs)
    import importlib
    import gymnasium
    importlib.import_module("ale_py")          # registers the ALE ids
    return gymnasium.make_vec(args.env_id, args.num_envs, vectorization_mode="vector_entry_point",
                              **kwargs)


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    """The Nature DQN torso with a policy and a value head."""

    def __init__(self, channels: int, actions: int):
        super().__init__()
        self.network = nn.Sequential(
            layer_init(nn.Conv2d(channels, 32, 8, stride=4)), nn.ReLU(),
            layer_init(nn.Conv2d(32, 64, 4, stride=2)), nn.ReLU(),
            layer_init(nn.Conv2d(64, 64, 3, stride=1)), nn.ReLU(),
            nn.Flatten(), layer_init(nn.Linear(64 * 7 * 7, 512)), nn.ReLU())
        self.actor = layer_init(nn.Linear(512, actions), std=0.01)
        self.critic = layer_init(nn.Linear(512, 1), std=1)

    def get_value(self, x):
        return self.critic(self.network(x / 255.0))

    def get_action_and_value(self, x, action=None):
        hidden = self.network(x / 255.0)
        probs = Categorical(logits=self.actor(hidden))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(hidden)


def main(argv=None) -> dict:
    args = parse_args(argv)
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    torch.manual_seed(args.seed)
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    np.random.seed(args.seed)
    envs = make_envs(args, device)
    single_obs = envs.single_observation_space.shape
    if len(single_obs) != 3:
        raise SystemExit(f"this example needs grayscale stacked frames, got shape {single_obs}")
    agent = Agent(single_obs[0], envs.single_action_space.n).to(device)
    initial = [p.detach().clone() for p in agent.parameters()]
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    def to_env(actions: torch.Tensor):
        # cule_py takes torch tensors (CUDA ones through DLPack); ale-py wants numpy int64.
        return actions if args.backend == "cule_py" else actions.cpu().numpy()

    def as_tensor(value, dtype=None):
        # cule_py's tensors are used where they are (no copy on their device); numpy is copied.
        return torch.as_tensor(value, device=device, dtype=dtype)

    n, steps = args.num_envs, args.num_steps
    obs = torch.zeros((steps, n, *single_obs), dtype=torch.uint8, device=device)
    actions = torch.zeros((steps, n), dtype=torch.long, device=device)
    logprobs = torch.zeros((steps, n), device=device)
    rewards = torch.zeros((steps, n), device=device)
    dones = torch.zeros((steps, n), device=device)
    values = torch.zeros((steps, n), device=device)
    episode_return = torch.zeros(n, device=device)
    episode_length = torch.zeros(n, dtype=torch.long, device=device)

    csv_path = args.csv or os.path.join(
        "runs", f"{args.env_id.replace('/', '_')}-{args.backend}.csv")
    os.makedirs(os.path.dirname(csv_path) or ".", exist_ok=True)
    log = open(csv_path, "w", newline="")
    writer = csv.writer(log)
    writer.writerow(["global_step", "env", "episode_return", "episode_length", "seconds"])
    episodes: list[tuple[int, float, float]] = []   # (global step, return, seconds)

    start = time.time()
    global_step = 0
    next_obs, _ = envs.reset(seed=args.seed)
    next_obs = as_tensor(next_obs)
    next_done = torch.zeros(n, device=device)
    losses = {}
    finite = True
    for iteration in range(1, args.num_iterations + 1):
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate
        for step in range(steps):
            global_step += n
            obs[step] = next_obs
            dones[step] = next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
            values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob
            next_obs, reward, terminated, truncated, _ = envs.step(to_env(action))
            next_obs = as_tensor(next_obs)
            reward = as_tensor(reward, torch.float32)
            done = as_tensor(terminated) | as_tensor(truncated)
            rewards[step] = torch.sign(reward)            # the learner's clipped reward
            next_done = done.float()
            episode_return += reward
            episode_length += 1
            if done.any():                                # only finished episodes reach the host
                ended = done.nonzero().flatten()
                for env_i, ret, length in zip(ended.tolist(), episode_return[ended].tolist(),
                                              episode_length[ended].tolist()):
                    seconds = round(time.time() - start, 2)
                    writer.writerow([global_step, env_i, ret, length, seconds])
                    episodes.append((global_step, ret, seconds))
                episode_return[ended] = 0
                episode_length[ended] = 0

        with torch.no_grad():                             # GAE
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(steps)):
                if t == steps - 1:
                    nextnonterminal, nextvalues = 1.0 - next_done, next_value
                else:
                    nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = (delta + args.gamma * args.gae_lambda
                                              * nextnonterminal * lastgaelam)
            returns = advantages + values

        b_obs = obs.reshape((-1, *single_obs))
        b_logprobs, b_actions = logprobs.reshape(-1), actions.reshape(-1)
        b_advantages, b_returns, b_values = (advantages.reshape(-1), returns.reshape(-1),
                                             values.reshape(-1))
        for _ in range(args.update_epochs):
            order = torch.randperm(args.batch_size, device=device)
            for begin in range(0, args.batch_size, args.minibatch_size):
                mb = order[begin:begin + args.minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_actions[mb])
                logratio = newlogprob - b_logprobs[mb]
                ratio = logratio.exp()
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(
                    ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
                newvalue = newvalue.view(-1)
                v_unclipped = (newvalue - b_returns[mb]) ** 2
                v_clipped = b_values[mb] + torch.clamp(newvalue - b_values[mb], -args.clip_coef,
                                                       args.clip_coef)
                v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b_returns[mb]) ** 2).mean()
                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        losses = {"policy": pg_loss.item(), "value": v_loss.item(),
                  "entropy": entropy_loss.item(), "approx_kl": ((ratio - 1) - logratio).mean().item()}
        finite = finite and all(np.isfinite(v) for v in losses.values())
        if not finite:
            raise SystemExit(f"non-finite loss at iteration {iteration}: {losses}")
        recent = [r for _, r, _ in episodes[-20:]]
        mean = f"{np.mean(recent):.2f}" if recent else "n/a"
        sps = int(global_step / (time.time() - start))
        print(f"iter {iteration}/{args.num_iterations} step {global_step} SPS {sps} episodes "
              f"{len(episodes)} mean return (last 20) {mean} losses "
              + " ".join(f"{k}={v:.4f}" for k, v in losses.items()), flush=True)
        if args.max_seconds and time.time() - start > args.max_seconds:
            print(f"wall-clock budget of {args.max_seconds:g} s reached after iteration "
                  f"{iteration}", flush=True)
            break

    log.close()
    envs.close()
    change = float(sum((p.detach() - q).pow(2).sum() for p, q in zip(agent.parameters(),
                                                                        initial)) ** 0.5)
    summary = {"backend": args.backend, "env_id": args.env_id, "global_step": global_step,
               "iterations": iteration, "episodes": len(episodes),
               "mean_return_last_100": (float(np.mean([r for _, r, _ in episodes[-100:]]))
                                        if episodes else None),
               "reached": {str(goal): first_reaching(episodes, goal) for goal in (18, 20)},
               "losses": losses, "losses_finite": finite, "param_change_l2": change,
               "seconds": time.time() - start, "csv": csv_path}
    if args.summary_json:
        with open(args.summary_json, "w") as f:
            json.dump(summary, f, indent=1)
    if args.plot:
        plot(episodes, args.plot, f"{args.env_id} ({args.backend})")
    return summary


def first_reaching(episodes, goal: float, window: int = 100) -> dict | None:
    """The first point where the mean return of the last `window` episodes is >= goal:
    {"global_step", "seconds"}, or None if it never was."""
    returns = np.array([r for _, r, _ in episodes], dtype=np.float64)
    if len(returns) < window:
        return None
    means = np.convolve(returns, np.ones(window) / window, mode="valid")
    hits = np.nonzero(means >= goal)[0]
    if hits.size == 0:
        return None
    step, _, seconds = episodes[int(hits[0]) + window - 1]
    return {"global_step": int(step), "seconds": float(seconds)}


def plot(episodes, path: str, title: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (the CSV has the same data)")
        return
    if not episodes:
        return
    steps, rets, seconds = np.array(episodes, dtype=np.float64).T
    window = max(1, min(100, len(rets) // 5))
    smooth = np.convolve(rets, np.ones(window) / window, mode="valid")
    figure, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, x, label in ((axes[0], steps, "agent steps (all envs)"),
                         (axes[1], seconds, "wall-clock seconds")):
        ax.plot(x, rets, ".", alpha=0.3, label="episode return")
        ax.plot(x[window - 1:], smooth, label=f"mean of last {window}")
        ax.set_xlabel(label)
    axes[0].set_ylabel("return")
    axes[0].legend()
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path)


if __name__ == "__main__":
    main()
