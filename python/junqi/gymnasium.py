"""Junqi as a single-agent Gymnasium environment: one seat against a bot.

    import numpy as np
    from junqi.gymnasium import JunqiEnv
    env = JunqiEnv(mode="fanqi", opponent="heuristic", seat=0)
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        action = int(np.flatnonzero(obs["action_mask"])[0])      # any legal action
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated

* **The agent** plays ``seat`` (0 moves first, 1 second; ``seat="random"``
  draws it at each reset); the opponent ``junqi.Bot(opponent)`` (any bot
  spec: ``random``, ``heuristic``, ``mcts:800``, ``net:PATH``…) plays the
  other seat and sees only its own information set. ``opponent`` may also
  be a ready ``junqi.Bot`` (used as is, not reseeded) or a callable
  ``f(game) -> action id``. A spec is built again at every reset with a seed
  drawn from the reset's seed, so ``reset(seed=s)`` replays the same episode
  for the same actions.
* **Observation**: ``{"observation": float32 OBS_SHAPE, "action_mask": int8 (3600,)}``,
  the agent's information set in its own frame (docs/observation.md); the
  mask is also in ``info["action_mask"]`` (all zeros once the episode is over).
* **Actions**: ``Discrete(3600)``, ``from * 60 + to`` in the agent's frame.
  An illegal action ends the episode: ``terminated=True``, reward -1,
  ``info["illegal_action"] = True`` (``illegal_action="lose"``, the default;
  this is also what lets ``gymnasium.utils.env_checker.check_env`` run, as it
  steps with unmasked samples) or raises ``ValueError``
  (``illegal_action="raise"``).
* **Reward**: at the end, +1 win, -1 loss, 0 draw, from the agent's seat; 0 before.
* **terminated / truncated**: as in :mod:`junqi.pettingzoo`: every ending of
  the rules is ``terminated`` (the ``quiet_plies`` and ``max_plies`` draws
  included, their counters are in the observation), unless
  ``ply_limits_truncate=True`` reports those two as ``truncated``.
  ``info["termination"]`` gives the reason.
* **render()**: ``"ansi"`` returns a text board (the whole truth, or the
  agent's view with ``render_view=True``), ``"human"`` prints it.
"""

from __future__ import annotations

from typing import Any, Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import junqi
from junqi._render import diagram, emit
from junqi.pettingzoo import PLY_LIMIT_TERMINATIONS

__all__ = ["ENV_ID", "JunqiEnv"]

_SEED_BOUND = 2**63


class JunqiEnv(gym.Env):
    """One seat of a Junqi game against a bot; see the module's documentation."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 2}

    def __init__(
        self,
        mode: str = "fanqi",
        rules: dict | None = None,
        opponent: "str | junqi.Bot | Callable[[junqi.Game], int]" = "random",
        seat: "int | str" = 0,
        render_mode: str | None = None,
        render_view: bool = False,
        illegal_action: str = "lose",
        ply_limits_truncate: bool = False,
    ):
        super().__init__()
        if mode not in junqi.MODES:
            raise ValueError(f"mode must be one of {', '.join(junqi.MODES)}, not {mode!r}")
        if seat not in (0, 1, "random"):
            raise ValueError(f"seat must be 0, 1 or 'random', not {seat!r}")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', not {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, not {render_mode!r}")
        self.mode = mode
        self.rules = dict(rules) if rules else None
        self.seat_choice = seat
        self.render_mode = render_mode
        self.render_view = bool(render_view)
        self.illegal_action = illegal_action
        self.ply_limits_truncate = bool(ply_limits_truncate)
        self.opponent_spec = opponent if isinstance(opponent, str) else None
        self._opponent_fixed = None if isinstance(opponent, str) else opponent
        if self.opponent_spec is not None:
            self.opponent = junqi.Bot(self.opponent_spec, seed=0)  # checks the spec now
        else:
            self.opponent = self._opponent_fixed
        self.game = junqi.Game(mode, rules=self.rules, seed=0)  # checks the rules now
        self.seat = 0 if seat == "random" else int(seat)
        self._over = False
        self._illegal = False

        n_actions = int(junqi.ACTIONS)
        obs_shape = tuple(int(d) for d in junqi.OBS_SHAPE)
        self.action_space = spaces.Discrete(n_actions)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low=0.0, high=1.0, shape=obs_shape, dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(n_actions,), dtype=np.int8),
            }
        )

    # -- helpers ---------------------------------------------------------------

    def _mask(self) -> np.ndarray:
        if self._over:
            return np.zeros(int(junqi.ACTIONS), np.int8)
        return np.asarray(self.game.action_mask(self.seat)).astype(np.int8)

    def _obs(self) -> dict[str, np.ndarray]:
        return {
            "observation": np.array(self.game.observation(self.seat), dtype=np.float32, copy=True),
            "action_mask": self._mask(),
        }

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask(), "seat": self.seat, "ply": int(self.game.ply)}
        if self._over:
            info["termination"] = "illegal_action" if self._illegal else self.game.termination
        if self._illegal:
            info["illegal_action"] = True
        return info

    def _opponent_act(self) -> int:
        bot = self.opponent
        action = bot.act(self.game) if hasattr(bot, "act") else bot(self.game)
        return int(action)

    def _play_opponent(self) -> None:
        while not self.game.is_terminal() and self.game.current_player() != self.seat:
            self.game.apply(self._opponent_act())

    def _result(self) -> tuple[float, bool, bool]:
        """(reward, terminated, truncated) after the opponent's replies."""
        if not self.game.is_terminal():
            return 0.0, False, False
        self._over = True
        reward = float(self.game.returns()[self.seat])
        if self.ply_limits_truncate and self.game.termination in PLY_LIMIT_TERMINATIONS:
            return reward, False, True
        return reward, True, False

    # -- API -------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        game_seed = int(rng.integers(0, _SEED_BOUND))
        bot_seed = int(rng.integers(0, _SEED_BOUND))
        if self.seat_choice == "random":
            self.seat = int(rng.integers(0, 2))
        if self.opponent_spec is not None:
            self.opponent = junqi.Bot(self.opponent_spec, seed=bot_seed)
        jfen = (options or {}).get("jfen")
        self.game = junqi.Game(self.mode, rules=self.rules, seed=game_seed, jfen=jfen)
        self._over = False
        self._illegal = False
        self._play_opponent()
        if self.game.is_terminal():
            # Only a finished position given as `jfen`, or an opponent that ends the game
            # before the agent's first move; the next step() raises.
            self._over = True
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def step(self, action):
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        action = int(action)
        mask = self.game.action_mask(self.seat)
        if not (0 <= action < len(mask)) or not mask[action]:
            if self.illegal_action == "raise":
                raise ValueError(
                    f"illegal action {action} for seat {self.seat} at ply {self.game.ply} "
                    f"(legal: {len(self.game.legal_actions())} actions, see info['action_mask'])"
                )
            self._over = True
            self._illegal = True
            return self._obs(), -1.0, True, False, self._info()
        self.game.apply(action)
        self._play_opponent()
        reward, terminated, truncated = self._result()
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, terminated, truncated, self._info()

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("You are calling render method without specifying any render mode.")
            return None
        jfen = self.game.view(self.seat) if self.render_view else self.game.to_jfen()
        who = "agent" if self.game.current_player() == self.seat else "opponent"
        text = diagram(jfen, f"ply {self.game.ply}, agent plays seat {self.seat}, {who} to move")
        if self.game.is_terminal() or self._illegal:
            text += f"episode over: {self._info().get('termination')}\n"
        return emit(self.render_mode, text)

    def close(self) -> None:
        pass


#: ``gymnasium.make(ENV_ID, mode=..., opponent=..., seat=...)`` builds a :class:`JunqiEnv`
#: (registered when this module is imported).
ENV_ID = "junqi/Junqi-v0"

if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="junqi.gymnasium:JunqiEnv")
