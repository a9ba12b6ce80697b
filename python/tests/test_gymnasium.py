"""junqi.gymnasium: Gymnasium's env checker, and episodes against bots."""

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import junqi
from gymnasium.utils.env_checker import check_env
from junqi.gymnasium import JunqiEnv


@pytest.mark.filterwarnings("ignore:.*Not able to test alternative render modes:UserWarning")
@pytest.mark.parametrize("mode", ["fanqi", "anqi", "mingqi"])
def test_check_env(mode):
    import gymnasium

    from junqi.gymnasium import ENV_ID

    check_env(JunqiEnv(mode=mode, opponent="random", seat=1))
    # made through the registry the env has a spec, so every render mode is tried too
    check_env(gymnasium.make(ENV_ID, mode=mode, opponent="random", seat=1, render_mode="ansi").unwrapped)


def _episode(env, seed, rng):
    obs, info = env.reset(seed=seed)
    assert env.observation_space.contains(obs)
    assert np.array_equal(obs["action_mask"], info["action_mask"])
    steps, total = 0, 0.0
    while True:
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += reward
        steps += 1
        if terminated or truncated:
            return steps, total, terminated, truncated, info
        assert reward == 0.0
        assert env.game.current_player() == env.seat  # the opponent has replied


@pytest.mark.parametrize("opponent", ["random", "heuristic"])
@pytest.mark.parametrize("seat", [0, 1])
def test_episodes_against_bots(opponent, seat):
    env = JunqiEnv(mode="fanqi", opponent=opponent, seat=seat)
    rng = np.random.default_rng(seat)
    for seed in range(2):
        steps, total, terminated, truncated, info = _episode(env, seed, rng)
        game = env.game
        assert game.is_terminal() and terminated and not truncated
        assert total == game.returns()[seat]
        assert info["termination"] == game.termination
        assert not info["action_mask"].any()
        with pytest.raises(RuntimeError):
            env.step(0)


@pytest.mark.parametrize("mode", ["anqi", "mingqi"])
def test_episodes_other_modes(mode):
    env = JunqiEnv(mode=mode, opponent="heuristic", seat="random")
    rng = np.random.default_rng(7)
    seats = set()
    for seed in range(8):
        _, total, *_ = _episode(env, seed, rng)
        seats.add(env.seat)
        assert total in (-1.0, 0.0, 1.0)
    assert seats == {0, 1}


def test_same_seed_same_episode():
    def trajectory(seed):
        env = JunqiEnv(mode="fanqi", opponent="random", seat=0)
        rng = np.random.default_rng(11)
        env.reset(seed=seed)
        obs = env._obs()
        for _ in range(40):
            if env._over:
                break
            obs, *_ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return env.game.moves

    assert trajectory(5) == trajectory(5)
    assert trajectory(5) != trajectory(6)


def test_illegal_actions():
    env = JunqiEnv(mode="fanqi")
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] and info["termination"] == "illegal_action"
    strict = JunqiEnv(mode="fanqi", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError):
        strict.step(illegal)
    with pytest.raises(ValueError):
        strict.step(3600)


def test_opponent_objects_and_callables():
    env = JunqiEnv(mode="mingqi", opponent=junqi.Bot("heuristic", seed=1), seat=1)
    rng = np.random.default_rng(3)
    _episode(env, 0, rng)
    calls = []

    def first_legal(game):
        calls.append(game.ply)
        return game.legal_actions()[0]

    env = JunqiEnv(mode="fanqi", opponent=first_legal, seat=0)
    _episode(env, 0, rng)
    assert calls


def test_ply_limits_truncate():
    env = JunqiEnv(mode="mingqi", rules={"no_progress_plies": 10, "max_plies": 40}, ply_limits_truncate=True)
    rng = np.random.default_rng(0)
    outcomes = set()
    for seed in range(4):
        _, _, terminated, truncated, info = _episode(env, seed, rng)
        limit = info["termination"] in ("quiet_plies", "max_plies")
        assert truncated == limit and terminated == (not limit)
        outcomes.add(limit)
    assert True in outcomes


def test_render():
    env = JunqiEnv(mode="anqi", render_mode="ansi", render_view=True, seat=1)
    env.reset(seed=0)
    text = env.render()
    assert env.game.view(1) in text


def test_registered_with_gymnasium():
    import gymnasium

    from junqi.gymnasium import ENV_ID

    env = gymnasium.make(ENV_ID, mode="anqi", opponent="heuristic", seat=0)
    obs, info = env.reset(seed=1)
    assert obs["observation"].shape == tuple(junqi.OBS_SHAPE)
    env.close()


@pytest.mark.parametrize(
    "code",
    [
        # import junqi, then gymnasium: registered when gymnasium loads
        "import junqi, gymnasium; env = gymnasium.make('junqi/Junqi-v0')",
        # gymnasium first: registered by import junqi
        "import gymnasium, junqi; gymnasium.register_envs(junqi); env = gymnasium.make('junqi/Junqi-v0')",
        # no import of junqi: gymnasium's module:id form imports it
        "import gymnasium; env = gymnasium.make('junqi.gymnasium:junqi/Junqi-v0')",
    ],
)
def test_gymnasium_make_finds_the_env_in_a_fresh_interpreter(code):
    import subprocess
    import sys

    check = "; import sys; obs, info = env.reset(seed=1); assert env.spec.id == 'junqi/Junqi-v0'"
    check += "; assert obs['action_mask'].any(); assert 'junqi.gymnasium' in sys.modules; print('ok')"
    out = subprocess.run([sys.executable, "-c", code + check], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_import_junqi_does_not_import_gymnasium():
    import subprocess
    import sys

    code = "import sys, junqi; print('gymnasium' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr
