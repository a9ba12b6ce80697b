"""junqi.pettingzoo.siguo_env: the four-agent 四国军棋 AEC env, PettingZoo's API test and games to the end."""

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import junqi
from junqi.pettingzoo import siguo_env as make_env
from junqi.pettingzoo import siguo_raw_env
from pettingzoo.test import api_test, seed_test

AGENTS = ["army_0", "army_1", "army_2", "army_3"]
DICT_OBS_REMARKS = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
]


def dict_obs_remarks(f):
    for mark in DICT_OBS_REMARKS:
        f = mark(f)
    return f


@dict_obs_remarks
@pytest.mark.parametrize("mode", ["anqi", "shuangming", "quanming"])
def test_api_test(mode):
    api_test(make_env(mode=mode, seed=1), num_cycles=200, verbose_progress=False)


@dict_obs_remarks
def test_api_test_raw_env_with_army_ends():
    # short games (max_plies) so that api_test's cycles cross game ends
    api_test(siguo_raw_env(seed=2, rules={"max_plies": 60}), num_cycles=300, verbose_progress=False)


def test_seed_test():
    seed_test(lambda: make_env(mode="anqi"), num_cycles=100)


def _play(e, rng, seed):
    """A random game to the end: per agent the rewards summed, how it left, and the order agents were selected."""
    e.reset(seed=seed)
    rewards = dict.fromkeys(AGENTS, 0.0)
    left = {}
    steps = 0
    for agent in e.agent_iter(max_iter=50000):
        obs, reward, termination, truncation, info = e.last()
        rewards[agent] += reward
        if termination or truncation:
            left[agent] = (termination, truncation, dict(info), e.unwrapped.game.is_terminal())
            e.step(None)
            continue
        game = e.unwrapped.game
        assert int(agent[-1]) == game.current_player() and game.ended(int(agent[-1])) is None
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (129 * 129,)
        assert obs["observation"].shape == (74, 17, 17)
        for other in e.agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        e.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert not e.agents, "the game did not end"
    return steps, rewards, left


@pytest.mark.parametrize("mode", ["anqi", "shuangming"])
def test_random_games_team_rewards_and_ended_armies(mode):
    e = make_env(mode=mode, rules={"max_plies": 2000})
    rng = np.random.default_rng(0)
    ended_mid_game = 0
    decided = 0
    for seed in range(6):
        steps, rewards, left = _play(e, rng, seed)
        game = e.unwrapped.game
        assert game.is_terminal() and game.ply == steps
        assert set(left) == set(AGENTS)
        returns = game.returns()
        decided += game.winner is not None
        for agent, (termination, truncation, info, over) in left.items():
            seat = int(agent[-1])
            assert termination and not truncation and info["team"] == seat % 2
            if over:  # in play at the end: its team's result
                assert info["termination"] == game.termination
                assert rewards[agent] == returns[seat]
            else:  # its army ended before the game did
                ended_mid_game += 1
                assert info["ended"] == game.ended(seat) is not None
                assert rewards[agent] == 0.0
    assert decided > 0 and ended_mid_game > 0


def test_observations_are_the_games():
    e = siguo_raw_env(mode="anqi", seed=5)
    e.reset()
    rng = np.random.default_rng(1)
    for _ in range(40):
        agent = e.agent_selection
        assert int(agent[-1]) == e.game.current_player()
        for s, a in enumerate(AGENTS):
            obs = e.observe(a)
            assert np.array_equal(obs["observation"], e.game.observation(s))
            assert np.array_equal(obs["action_mask"], e.game.action_mask(s).astype(np.int8))
        e.step(int(rng.choice(e.game.legal_actions())))


def test_illegal_action_and_render():
    e = make_env(seed=0)
    e.reset(seed=0)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(illegal)
    assert e.rewards == {"army_0": -1.0, "army_1": 0.0, "army_2": 0.0, "army_3": 0.0}
    assert all(e.terminations.values())
    raw = siguo_raw_env(render_mode="ansi", seed=0)
    raw.reset(seed=0)
    raw.step(raw.game.legal_actions()[0])
    before = (raw.game.to_notation(), raw.agent_selection)
    with pytest.raises(ValueError):
        raw.step(int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0]))
    assert (raw.game.to_notation(), raw.agent_selection) == before
    assert raw.game.to_notation() in raw.render()
    seen = siguo_raw_env(render_mode="ansi", render_seat=2, seed=0)
    seen.reset()
    assert "army_2 knows" in seen.render()
    start = raw.game.to_notation()
    f = siguo_raw_env()
    f.reset(options={"position": start})
    assert f.game.to_notation() == start and f.agent_selection == "army_1"
    with pytest.raises(ValueError, match="mode"):
        siguo_raw_env(mode="fanqi")


def test_ply_limits_truncate():
    for truncate in (False, True):
        e = siguo_raw_env(rules={"max_plies": 30}, ply_limits_truncate=truncate)
        _, rewards, left = _play(e, np.random.default_rng(3), 1)
        assert e.game.termination == "max_plies" and set(rewards.values()) == {0.0}
        for termination, truncation, info, over in left.values():
            if over:
                assert (termination, truncation) == (not truncate, truncate)
