"""The compiled core from Python: Game, VecEnv, Bot, Net and decode_codes
against the Rust side (the `junqi` binary and the Rust encoders)."""

import subprocess
from pathlib import Path

import numpy as np
import pytest

import junqi

MODES = ("fanqi", "anqi", "mingqi")


def random_positions(mode, games, seed):
    """JFENs of positions reached by random legal play, with their Game objects."""
    rng = np.random.default_rng(seed)
    out = []
    for g in range(games):
        game = junqi.Game(mode, seed=seed * 1000 + g)
        stop = int(rng.integers(0, 250))
        while not game.is_terminal() and game.ply < stop:
            legal = game.legal_actions()
            game.apply(legal[int(rng.integers(len(legal)))])
            if rng.random() < 0.1:
                out.append(game.clone())
        out.append(game.clone())
    return out


@pytest.mark.parametrize("mode", MODES)
def test_legal_actions_equal_junqi_moves(mode, junqi_bin):
    games = [g for g in random_positions(mode, 40, seed=MODES.index(mode) + 1) if not g.is_terminal()]
    assert len(games) > 100
    stdin = "".join(g.to_jfen() + "\n" for g in games)
    proc = subprocess.run([str(junqi_bin), "moves"], input=stdin, capture_output=True, text=True, check=True)
    lines = proc.stdout.splitlines()
    assert len(lines) == len(games)
    for game, line in zip(games, lines):
        assert sorted(game.legal_moves()) == sorted(line.split()), game.to_jfen()
        # ids and texts agree, ids ascending
        ids = game.legal_actions()
        assert ids == sorted(ids)
        assert [game.action_to_move(a) for a in ids] == game.legal_moves()
        assert [game.move_to_action(m) for m in game.legal_moves()] == ids


@pytest.mark.parametrize("mode", MODES)
def test_jfen_round_trip(mode):
    for game in random_positions(mode, 5, seed=11):
        again = junqi.Game(mode, jfen=game.to_jfen())
        assert again.to_jfen() == game.to_jfen()
        assert again.legal_moves() == game.legal_moves()
    with pytest.raises(ValueError):
        junqi.Game(mode, jfen="not a position")


def board_fields(jfen):
    """The board field of a JFEN split into its 12 ranks."""
    return jfen.split()[0].split("/")


def test_views_hide_what_a_seat_cannot_know():
    # 暗棋: each seat sees its own pieces and only `?` for the enemy's.
    game = junqi.Game("anqi", seed=1)
    truth = "".join(board_fields(game.to_jfen()))
    assert "?" not in truth
    for seat in (0, 1):
        view = game.view(seat)
        own = [c for c in "".join(board_fields(view)) if c.isalpha()]
        assert len(own) == 25  # its whole army, identified
        assert "".join(board_fields(view)).count("?") == 25  # the enemy's, unidentified
        other = game.view(1 - seat)
        assert view != other
    # 明棋: nothing is hidden.
    open_game = junqi.Game("mingqi", seed=1)
    assert "?" not in open_game.view(0) and "?" not in open_game.view(1)
    # 翻棋: face-down pieces are unknown to both until flipped.
    fanqi = junqi.Game("fanqi", seed=1)
    assert fanqi.view(0).count("?") == 50 and fanqi.view(1).count("?") == 50
    assert "?" not in fanqi.to_jfen()
    with pytest.raises(ValueError):
        fanqi.view(2)


def test_observation_and_mask_follow_the_mover():
    game = junqi.Game("fanqi", seed=4)
    obs = game.observation(0)
    assert obs.shape == junqi.OBS_SHAPE and obs.dtype == np.float32
    mask = game.action_mask(0)
    assert mask.shape == (junqi.ACTIONS,)
    assert sorted(np.flatnonzero(mask).tolist()) == game.legal_actions()
    assert game.action_mask(1).sum() == 0  # not seat 1's turn
    code = np.frombuffer(game.obs_code(0), dtype=np.uint8)[None]
    assert np.array_equal(junqi.decode_codes(code)[0], obs)


def test_apply_refuses_illegal_and_finished():
    game = junqi.Game("mingqi", seed=2)
    illegal = next(a for a in range(junqi.ACTIONS) if a not in set(game.legal_actions()))
    before = game.to_jfen()
    with pytest.raises(ValueError, match="not legal"):
        game.apply(illegal)
    with pytest.raises(ValueError):
        game.apply("z9z9")
    with pytest.raises(ValueError, match="out of range"):
        game.apply(99999)
    assert game.to_jfen() == before
    bot = junqi.Bot("greedy", seed=1)
    while not game.is_terminal():
        game.apply(bot.act(game))
    with pytest.raises(ValueError, match="over"):
        game.apply(0)
    assert sorted(game.returns()) in ([-1.0, 1.0], [0.0, 0.0])
    assert game.termination is not None


def test_rules_overrides_and_errors():
    game = junqi.Game("anqi", rules={"max_plies": 10}, seed=3)
    rng = np.random.default_rng(0)
    while not game.is_terminal():
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    assert game.ply <= 10
    with pytest.raises(ValueError, match="no_such_option"):
        junqi.Game("anqi", rules={"no_such_option": 1})
    with pytest.raises(ValueError):
        junqi.Game("chess")
    assert junqi.rules_dict("anqi", {"mine_rule": "trade"})["mine_rule"] == "trade"
    assert "rail_turns" in junqi.rule_options()


@pytest.mark.parametrize("mode", MODES)
def test_vecenv_writes_what_the_games_see(mode):
    n = 8
    env = junqi.VecEnv(n, mode, seed=5)
    obs, mask = env.reset()
    assert obs.shape == (n, *junqi.OBS_SHAPE) and mask.shape == (n, junqi.ACTIONS)
    # Slot i plays the game of seed 5 + i, and the arrays hold what its mover sees.
    for i in range(n):
        game = junqi.Game(mode, seed=5 + i)
        assert env.game(i).to_jfen() == game.to_jfen()
        assert np.array_equal(obs[i], game.observation(0)) and np.array_equal(mask[i], game.action_mask(0))
        assert env.seat[i] == 0
    finished = 0
    for _ in range(400):
        actions = env.sample_actions()
        # The same actions, applied to copies of the games, give what the env wrote.
        expected = []
        for i in range(n):
            game = env.game(i)
            game.apply(int(actions[i]))
            expected.append(game)
        obs2, mask2, reward, done = env.step(actions)
        assert obs2 is obs or np.shares_memory(obs2, obs)  # rewritten in place, not copied
        for i in range(n):
            game = expected[i]
            if done[i]:
                finished += 1
                assert game.is_terminal()
                assert env.finished_game(i).to_jfen() == game.to_jfen()
                mover = (game.ply - 1) % 2  # the seat that made the last move (seat 0 moves first)
                assert reward[i] == game.returns()[mover]
                assert env.terminations()[i] == game.termination
                game = env.game(i)  # the slot's next episode
            else:
                assert reward[i] == 0 and not game.is_terminal()
            seat = game.current_player()
            assert env.seat[i] == seat
            assert np.array_equal(env.obs[i], game.observation(seat))
            assert np.array_equal(env.mask[i], game.action_mask(seat))
    assert finished > 0


def test_vecenv_arrays_are_read_only_views_and_sampling_replays():
    env = junqi.VecEnv(4, "fanqi", seed=2)
    obs, mask = env.reset()
    for array in (obs, mask, env.reward, env.done, env.seat):
        assert not array.flags.writeable
    with pytest.raises(ValueError):
        obs[0, 0, 0, 0] = 1.0
    with pytest.raises(ValueError):
        mask.resize((1,), refcheck=False)
    # A list of ids works as well as an int64 array.
    env.step([int(a) for a in env.sample_actions()])
    # reset(seed) restarts the games and the sampling stream alike.
    runs = []
    for _ in range(2):
        env.reset(seed=9)
        runs.append([env.sample_actions().tolist() for _ in range(1)])
        for _ in range(50):
            env.step(env.sample_actions())
        runs[-1].append([env.game(i).to_jfen() for i in range(4)])
    assert runs[0] == runs[1]


def test_vecenv_refuses_bad_actions_and_plays_nothing():
    env = junqi.VecEnv(3, "fanqi", seed=1)
    with pytest.raises(ValueError, match="reset"):
        env.step(np.zeros(3, dtype=np.int64))
    env.reset()
    before = [env.game(i).to_jfen() for i in range(3)]
    actions = env.sample_actions()
    actions[1] = np.flatnonzero(env.mask[1] == 0)[0]  # an action not legal in slot 1
    with pytest.raises(ValueError, match="game 1"):
        env.step(actions)
    with pytest.raises(ValueError, match="expected 3"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="negative"):
        env.step(np.full(3, -1, dtype=np.int64))
    assert [env.game(i).to_jfen() for i in range(3)] == before


@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic", "mcts:sims=32", "net:default"])
def test_a_bot_plays_a_full_game(spec):
    bot = junqi.Bot(spec, seed=7)
    game = junqi.Game("fanqi", seed=9)
    while not game.is_terminal():
        action = bot.act(game)
        assert action in game.legal_actions()
        game.apply(action)
    assert game.termination is not None


@pytest.mark.parametrize("mode", ["anqi", "mingqi"])
def test_bots_deploy(mode):
    heuristic, net = junqi.Bot("heuristic", seed=1), junqi.Bot("net:anqi", seed=1)
    game = junqi.Game(mode, seed=4, deploy=(heuristic, net))
    again = junqi.Game(mode, seed=4, deploy=(junqi.Bot("heuristic", seed=1), junqi.Bot("net:anqi", seed=1)))
    assert game.to_jfen() == again.to_jfen()  # deployments come from the seed
    assert game.to_jfen() != junqi.Game(mode, seed=4).to_jfen()  # not the random deployments
    other = junqi.Game(mode, seed=5, deploy=(heuristic, net))
    assert other.to_jfen() != game.to_jfen()
    # A legal start: the game plays out.
    while not game.is_terminal():
        game.apply(heuristic.act(game))
    with pytest.raises(ValueError, match="dealt"):
        junqi.Game("fanqi", deploy=(heuristic, net))
    with pytest.raises(ValueError, match="not both"):
        junqi.Game(mode, jfen=again.to_jfen(), deploy=(heuristic, net))


def test_engine_bots_play_from_python(repo_root):
    engine = f"engine:cmd=python3 {repo_root / 'scripts' / 'random_engine.py'}"
    bot = junqi.Bot(engine, seed=1)
    game = junqi.Game("anqi", seed=2, deploy=(bot, junqi.Bot("random")))
    for _ in range(20):
        action = bot.act(game)
        assert action in game.legal_actions()
        game.apply(action)
        if game.is_terminal():
            break
        game.apply(game.legal_actions()[0])
        if game.is_terminal():
            break
    # An engine that crashes forfeits: an error, not a move.
    crashing = junqi.Bot(engine + ",option.misbehave=crash@1", seed=1)
    with pytest.raises(RuntimeError, match="forfeits"):
        crashing.act(junqi.Game("anqi", seed=2))


def test_bot_decisions_and_refusals():
    game = junqi.Game("anqi", seed=1)
    decision = junqi.Bot("mcts:sims=16", seed=2).decide_full(game)
    assert decision["action"] in game.legal_actions()
    assert game.action_to_move(decision["action"]) == decision["move"]
    assert abs(sum(decision["policy"].values()) - 1) < 1e-4
    with pytest.raises(ValueError, match="cheat"):
        junqi.Bot("cheat-mcts:32")
    assert junqi.Bot("cheat-mcts:32", allow_cheating=True).cheats
    with pytest.raises(ValueError):
        junqi.Bot("no-such-bot")


def test_net_evaluates_like_the_bots_see_it():
    net = junqi.Net("default")
    game = junqi.Game("fanqi", seed=3)
    priors, wdl, belief = net.evaluate(game.obs_code(0), game.legal_actions())
    assert priors.shape == (len(game.legal_actions()),)
    assert abs(priors.sum() - 1) < 1e-5 and abs(wdl.sum() - 1) < 1e-5
    assert belief is None  # the 翻棋 net has no belief head
    # The shipped net reads the history planes but was made before the
    # rule-state planes (it reads the first 110 of today's 132); the net it
    # replaced (net:fanqi-policy) was made before the history and reads 100.
    assert (net.config["in_channels"], junqi.OBS_SHAPE[0]) == (110, 132)
    older = Path(__file__).resolve().parents[2] / "data/nets/fanqi-policy/net.safetensors"
    assert junqi.Net(str(older)).config["in_channels"] == 100
    with pytest.raises(ValueError):
        junqi.Net("/no/such/net.safetensors")
    with pytest.raises(ValueError):
        net.evaluate(b"short", [0])
    for bad in ([-1], [3600], [70000]):
        with pytest.raises(ValueError, match="out of range"):
            net.evaluate(game.obs_code(0), bad)
    # A uint8 row works as well as bytes.
    row = np.frombuffer(game.obs_code(0), dtype=np.uint8)
    assert np.array_equal(net.evaluate(row, game.legal_actions())[0], priors)
