"""junqi.pettingzoo: PettingZoo's own API test, and games played to the end."""

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import junqi
from junqi.pettingzoo import env as make_env
from junqi.pettingzoo import raw_env
from pettingzoo.test import api_test, seed_test

MODES = ["fanqi", "anqi", "mingqi"]
# api_test's remarks on any Dict observation (PettingZoo's chess and connect four get them too)
DICT_OBS_REMARKS = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
]


def dict_obs_remarks(f):
    for mark in DICT_OBS_REMARKS:
        f = mark(f)
    return f


@dict_obs_remarks
@pytest.mark.parametrize("mode", MODES)
def test_api_test(mode):
    api_test(make_env(mode=mode, seed=1), num_cycles=300, verbose_progress=False)


@dict_obs_remarks
def test_api_test_raw_env():
    api_test(raw_env(mode="fanqi", seed=2), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("mode", MODES)
def test_seed_test(mode):
    seed_test(lambda: make_env(mode=mode), num_cycles=200)


def _play(e, rng, seed):
    e.reset(seed=seed)
    steps = 0
    rewards = {a: 0.0 for a in e.possible_agents}
    last = {}
    for agent in e.agent_iter(max_iter=20000):
        obs, reward, termination, truncation, info = e.last()
        rewards[agent] += reward
        if termination or truncation:
            last[agent] = (termination, truncation, info)
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (3600,)
        assert obs["observation"].dtype == np.float32 and obs["observation"].shape == tuple(junqi.OBS_SHAPE)
        # the other agent sees an all-zero mask
        other = "player_1" if agent == "player_0" else "player_0"
        assert not e.observe(other)["action_mask"].any()
        legal = np.flatnonzero(mask)
        assert len(legal) > 0
        e.step(int(rng.choice(legal)))
        steps += 1
    assert not e.agents, "the game did not end"
    return steps, rewards, last


@pytest.mark.parametrize("mode", MODES)
def test_random_games_play_to_the_end(mode):
    e = make_env(mode=mode)
    rng = np.random.default_rng(0)
    for seed in range(3):
        steps, rewards, last = _play(e, rng, seed)
        game = e.unwrapped.game
        assert game.is_terminal() and game.ply == steps
        assert rewards == {"player_0": game.returns()[0], "player_1": game.returns()[1]}
        assert sum(rewards.values()) == 0
        for agent, (termination, truncation, info) in last.items():
            assert termination and not truncation
            assert info["termination"] == game.termination


def test_observations_are_the_games():
    e = raw_env(mode="anqi", seed=5)
    e.reset()
    rng = np.random.default_rng(1)
    for _ in range(30):
        agent = e.agent_selection
        seat = int(agent[-1])
        assert seat == e.game.current_player()
        for a, s in (("player_0", 0), ("player_1", 1)):
            obs = e.observe(a)
            assert np.array_equal(obs["observation"], e.game.observation(s))
            assert np.array_equal(obs["action_mask"], e.game.action_mask(s).astype(np.int8))
        e.step(int(rng.choice(e.game.legal_actions())))


def test_seeding_is_reproducible():
    def first_obs(seed):
        e = raw_env(mode="fanqi")
        e.reset(seed=seed)
        return e.game.to_jfen()

    assert first_obs(3) == first_obs(3)
    assert first_obs(3) != first_obs(4)
    e = raw_env(mode="fanqi", seed=9)
    e.reset()
    a = e.game.to_jfen()
    e.reset()
    assert e.game.to_jfen() != a  # later resets continue the stream


def test_illegal_action():
    e = make_env(mode="fanqi", seed=0)
    e.reset(seed=0)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(illegal)
    assert e.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert all(e.terminations.values())
    raw = raw_env(mode="fanqi")
    raw.reset(seed=0)
    # A legal move first, so there is state an illegal one could disturb.
    raw.step(raw.game.legal_actions()[0])
    before = (raw.game.to_jfen(), dict(raw._cumulative_rewards), dict(raw.rewards), raw.agent_selection)
    illegal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError):
        raw.step(illegal)
    assert (raw.game.to_jfen(), dict(raw._cumulative_rewards), dict(raw.rewards), raw.agent_selection) == before


def test_ply_limits_terminate_or_truncate():
    rules = {"no_progress_plies": 10, "max_plies": 40}
    for truncate in (False, True):
        e = raw_env(mode="mingqi", rules=rules, ply_limits_truncate=truncate)
        rng = np.random.default_rng(2)
        reasons = set()
        for seed in range(4):
            _, _, last = _play(e, rng, seed)
            reason = e.game.termination
            reasons.add(reason)
            limit = reason in ("quiet_plies", "max_plies")
            for termination, truncation, info in last.values():
                assert truncation == (truncate and limit)
                assert termination == (not (truncate and limit))
                assert info["termination"] == reason
        assert reasons & {"quiet_plies", "max_plies"}


def test_render_and_jfen_start():
    e = raw_env(mode="anqi", render_mode="ansi", seed=0)
    e.reset()
    text = e.render()
    assert text.count("\n") >= 14 and e.game.to_jfen() in text
    seen = raw_env(mode="anqi", render_mode="ansi", render_seat=1, seed=0)
    seen.reset()
    assert seen.game.view(1) in seen.render()
    start = e.game.to_jfen()
    f = raw_env(mode="anqi")
    f.reset(options={"jfen": start})
    assert f.game.to_jfen() == start
