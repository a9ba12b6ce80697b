"""Junqi as a PettingZoo ``AECEnv`` for two agents, like PettingZoo's classic board games
(and 四国军棋 for four agents: :func:`siguo_env`, at the end of this module).

    from junqi.pettingzoo import env
    e = env(mode="fanqi", seed=0)
    e.reset(seed=42)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        if termination or truncation:
            action = None
        else:
            action = e.action_space(agent).sample(obs["action_mask"])   # a random legal action
        e.step(action)

* **Agents**: ``"player_0"`` is seat 0 (seat 1 of the docs, which moves
  first), ``"player_1"`` seat 1.
* **Observation**: ``{"observation": float32 OBS_SHAPE, "action_mask": int8 (3600,)}``:
  the agent's own information set in its own frame (``Game.observation``,
  docs/observation.md: never the hidden truth) and its legal actions
  (all zeros for the agent not to move, as in PettingZoo's chess).
* **Actions**: ``Discrete(3600)``, ``from * 60 + to`` in the acting agent's
  frame (a flip has ``from == to``). With :func:`env`, an illegal action
  ends the game with -1 for the offender and 0 for the other agent
  (PettingZoo's ``TerminateIllegalWrapper``, as in chess and connect four);
  :class:`raw_env` raises ``ValueError`` instead.
* **Rewards** only at the end: +1 win, -1 loss, 0 draw (``Game.returns()``).
* **Terminations and truncations**: every end the rules define is a
  *termination*, the draws by ``no_progress_plies`` (``quiet_plies``) and
  ``max_plies`` included: they are rules of the game with a defined result
  (docs/rules.md §5, §8), and the observation carries both counters
  (planes 78 ``quiet_fraction`` and 79 ``ply_fraction``), so the ending is
  part of the Markov state; PettingZoo's chess likewise reports its rule
  draws as terminations. ``truncations`` stay False unless
  ``ply_limits_truncate=True``, which reports those two draws as truncations
  instead (for learners that bootstrap across them). ``infos[agent]["termination"]``
  names the reason once the game is over.
* **render()**: ``render_mode="ansi"`` returns a text board of the whole truth
  (``Game.to_jfen()``) or, with ``render_seat=0|1``, of what that seat knows
  (``Game.view(seat)``); ``"human"`` prints it.
* **Seeding**: ``reset(seed=s)`` draws the deal (翻棋) or deployments
  (暗棋/明棋) from ``s``; later ``reset()`` calls continue that random
  stream. ``reset(options={"jfen": ...})`` starts from a position.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import junqi
from junqi._render import diagram, emit

__all__ = ["env", "raw_env", "siguo_env", "siguo_raw_env", "PLY_LIMIT_TERMINATIONS"]

#: Terminations that ``ply_limits_truncate=True`` reports as truncations.
PLY_LIMIT_TERMINATIONS = ("quiet_plies", "max_plies")

_SEED_BOUND = 2**63


def env(**kwargs) -> AECEnv:
    """The wrapped environment (illegal actions lose; assertions on actions; call order enforced)."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """The unwrapped environment; see the module's documentation."""

    metadata = {
        "render_modes": ["ansi", "human"],
        "name": "junqi_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        mode: str = "fanqi",
        rules: dict | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        render_seat: int | None = None,
        ply_limits_truncate: bool = False,
    ):
        EzPickle.__init__(self, mode, rules, seed, render_mode, render_seat, ply_limits_truncate)
        super().__init__()
        if mode not in junqi.MODES:
            raise ValueError(f"mode must be one of {', '.join(junqi.MODES)}, not {mode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, not {render_mode!r}")
        if render_seat not in (None, 0, 1):
            raise ValueError(f"render_seat must be None, 0 or 1, not {render_seat!r}")
        self.mode = mode
        self.rules = dict(rules) if rules else None
        self.render_mode = render_mode
        self.render_seat = render_seat
        self.ply_limits_truncate = bool(ply_limits_truncate)
        # Checks the rules now rather than at the first reset.
        self.game = junqi.Game(mode, rules=self.rules, seed=0)
        self._rng = np.random.default_rng(seed)

        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        n_actions = int(junqi.ACTIONS)
        obs_shape = tuple(int(d) for d in junqi.OBS_SHAPE)
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=0.0, high=1.0, shape=obs_shape, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(n_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._clear_episode()

    # -- spaces --------------------------------------------------------------

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # -- API -----------------------------------------------------------------

    @staticmethod
    def _agent(seat: int) -> str:
        return f"player_{seat}"

    @staticmethod
    def _seat(agent: str) -> int:
        return int(agent.rsplit("_", 1)[1])

    def _clear_episode(self) -> None:
        """Both agents in play, no rewards, flags or infos yet; the seat to move selected."""
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self._agent(self.game.current_player())

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        jfen = (options or {}).get("jfen")
        game_seed = int(self._rng.integers(0, _SEED_BOUND))
        self.game = junqi.Game(self.mode, rules=self.rules, seed=game_seed, jfen=jfen)
        self._clear_episode()
        if self.game.is_terminal():  # a finished position given as `jfen`
            self._finish()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat(agent)
        return {
            "observation": np.array(self.game.observation(seat), dtype=np.float32, copy=True),
            "action_mask": np.asarray(self.game.action_mask(seat)).astype(np.int8),
        }

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat(agent)
        if seat != self.game.current_player():  # cannot happen: agent_selection follows the game
            raise RuntimeError(f"{agent} selected but seat {self.game.current_player()} is to move")
        # First, so an illegal action (ValueError; env() turns it into a loss
        # first) leaves the environment as it was.
        self.game.apply(int(action))
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self.game.is_terminal():
            self._finish()
        self.agent_selection = self._agent(self.game.current_player())
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        reason = self.game.termination
        returns = self.game.returns()
        truncated = self.ply_limits_truncate and reason in PLY_LIMIT_TERMINATIONS
        for a in self.agents:
            self.rewards[a] = float(returns[self._seat(a)])
            self.terminations[a] = not truncated
            self.truncations[a] = truncated
            self.infos[a] = {"termination": reason}

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_seat is None:
            text = diagram(self.game.to_jfen(), f"ply {self.game.ply}, {self.agent_selection} to move")
        else:
            text = diagram(
                self.game.view(self.render_seat),
                f"ply {self.game.ply}, {self.agent_selection} to move; what player_{self.render_seat} knows",
            )
        if self.game.is_terminal():
            text += f"game over: {self.game.termination}, returns {list(self.game.returns())}\n"
        return emit(self.render_mode, text)

    def close(self) -> None:
        pass



# --- 四国军棋: the four-player game, four agents in two teams ---------------


def siguo_env(**kwargs) -> AECEnv:
    """The wrapped four-player environment (illegal actions lose; assertions on actions; call order enforced)."""
    e = siguo_raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class siguo_raw_env(AECEnv, EzPickle):
    """四国军棋 (docs/rules.md §10) as a PettingZoo ``AECEnv`` for four agents.

        from junqi.pettingzoo import siguo_env
        e = siguo_env(mode="anqi", seed=0)
        e.reset(seed=42)
        for agent in e.agent_iter():
            obs, reward, termination, truncation, info = e.last()
            action = None if termination or truncation else e.action_space(agent).sample(obs["action_mask"])
            e.step(action)

    * **Agents**: ``"army_0"`` … ``"army_3"`` are seats (armies) 0–3 of
      ``junqi.SiguoGame``; army 0 moves first, turns go counterclockwise
      (0 → 1 → 2 → 3) unless the rules say ``turn_order = "clockwise"``.
      Armies 0 and 2 are one team, 1 and 3 the other.
    * **Observation**: ``{"observation": float32 [74, 17, 17], "action_mask":
      int8 (16641,)}``: the agent's own information set, its army at the
      bottom (``SiguoGame.observation``; never a kind it could not know) and
      its legal actions (all zeros for agents not to move).
    * **Actions**: ``Discrete(16641)``, ``from * 129 + to`` in seat-relative
      nodes. With :func:`siguo_env`, an illegal action ends the game with −1
      for the offender and 0 for the others (``TerminateIllegalWrapper``);
      this class raises ``ValueError`` instead.
    * **An army's end** (flag captured, or no legal move when its turn came,
      §10.8): its pieces leave the board and the rules skip its turns, so
      the agent is *terminated* at once (``infos[agent]["ended"]`` says why,
      reward 0), is selected next for its one ``step(None)`` (PettingZoo's
      dead step) and leaves ``agents``; then the game goes on with the army
      to move. A team's result is given when the game ends, to the agents
      still in play: +1 to each agent of the winning team, −1 to the losing
      team's, 0 to all for a draw (``SiguoGame.returns()``). An army that
      ended earlier has left the episode and gets no share of it (its ally,
      still playing, does); ``infos[agent]["team"]`` names each agent's team.
    * **Terminations and truncations**: as in :class:`raw_env`: every end of
      the rules is a termination (the draws by ``no_progress_plies`` and
      ``max_plies`` included), unless ``ply_limits_truncate=True`` reports
      those two as truncations. ``infos[agent]["termination"]`` names the
      reason once the game is over.
    * **render()**: ``render_mode="ansi"`` returns the position in §10.4
      notation (the whole truth) or, with ``render_seat=0..3``, that seat's
      view (``SiguoGame.view``); ``"human"`` prints it.
    * **Seeding**: ``reset(seed=s)`` draws the deployments from ``s``; later
      ``reset()`` calls continue that stream. ``reset(options={"position":
      ...})`` starts from a §10.4 position.
    """

    metadata = {
        "render_modes": ["ansi", "human"],
        "name": "junqi_siguo_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        mode: str = "anqi",
        rules: dict | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        render_seat: int | None = None,
        ply_limits_truncate: bool = False,
    ):
        EzPickle.__init__(self, mode, rules, seed, render_mode, render_seat, ply_limits_truncate)
        super().__init__()
        if mode not in junqi.SIGUO_MODES:
            raise ValueError(f"mode must be one of {', '.join(junqi.SIGUO_MODES)}, not {mode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, not {render_mode!r}")
        if render_seat not in (None, 0, 1, 2, 3):
            raise ValueError(f"render_seat must be None or 0-3, not {render_seat!r}")
        self.mode = mode
        self.rules = dict(rules) if rules else None
        self.render_mode = render_mode
        self.render_seat = render_seat
        self.ply_limits_truncate = bool(ply_limits_truncate)
        self.game = junqi.SiguoGame(mode, rules=self.rules, seed=0)  # checks the rules now
        self._rng = np.random.default_rng(seed)

        self.possible_agents = [f"army_{s}" for s in range(4)]
        self.agents = self.possible_agents[:]
        n_actions = int(junqi.SIGUO_ACTIONS)
        obs_shape = tuple(int(d) for d in junqi.SIGUO_OBS_SHAPE)
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=0.0, high=1.0, shape=obs_shape, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(n_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._clear_episode()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @staticmethod
    def _agent(seat: int) -> str:
        return f"army_{seat}"

    @staticmethod
    def _seat(agent: str) -> int:
        return int(agent.rsplit("_", 1)[1])

    def _clear_episode(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"team": self._seat(a) % 2} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self._agent(self.game.current_player())

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        position = (options or {}).get("position")
        game_seed = int(self._rng.integers(0, _SEED_BOUND))
        self.game = junqi.SiguoGame(self.mode, rules=self.rules, seed=game_seed, position=position)
        self._clear_episode()
        self._after_move()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat(agent)
        return {
            "observation": np.array(self.game.observation(seat), dtype=np.float32, copy=True),
            "action_mask": np.asarray(self.game.action_mask(seat)).astype(np.int8),
        }

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat(agent)
        if seat != self.game.current_player():  # cannot happen: agent_selection follows the game
            raise RuntimeError(f"{agent} selected but seat {self.game.current_player()} is to move")
        self.game.apply(int(action))  # first: an illegal action changes nothing
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._after_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _after_move(self) -> None:
        """Terminate the armies that ended, finish the game if it is over,
        and select the next agent (an ended one first, for its dead step)."""
        for a in self.agents:
            cause = self.game.ended(self._seat(a))
            if cause is not None and not self.terminations[a]:
                self.terminations[a] = True
                self.infos[a] = {**self.infos[a], "ended": cause}
        if self.game.is_terminal():
            reason = self.game.termination
            returns = self.game.returns()
            truncated = self.ply_limits_truncate and reason in PLY_LIMIT_TERMINATIONS
            for a in self.agents:
                self.rewards[a] = float(returns[self._seat(a)])
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
                self.infos[a] = {**self.infos[a], "termination": reason}
        mover = self._agent(self.game.current_player())
        if self.game.is_terminal():
            # every agent left is terminated: the mover first, if it is still in play
            self.agent_selection = mover if mover in self.agents else self.agents[0]
        else:
            self.agent_selection = mover
            self._deads_step_first()

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        head = f"ply {self.game.ply}, {self.agent_selection} to move"
        if self.render_seat is None:
            text = f"{head}\n{self.game.to_notation()}\n"
        else:
            view = self.game.view(self.render_seat)
            pieces = " ".join(f"{node}:{army}{kinds if len(kinds) == 1 else '?'}" for node, army, kinds in view)
            text = f"{head}; what army_{self.render_seat} knows\n{pieces}\n"
        if self.game.is_terminal():
            text += f"game over: {self.game.termination}, returns {list(self.game.returns())}\n"
        return emit(self.render_mode, text)

    def close(self) -> None:
        pass
