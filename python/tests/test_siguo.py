"""junqi.SiguoGame and junqi.SiguoVecEnv: the four-player game (四国军棋) from Python."""

import copy
import random
import re

import numpy as np
import pytest

import junqi

SIGUO_MODES = ["anqi", "shuangming", "quanming"]
N_ACTIONS = 129 * 129


def test_constants():
    assert junqi.SIGUO_ACTIONS == N_ACTIONS
    assert tuple(junqi.SIGUO_OBS_SHAPE) == (74, 17, 17)
    assert tuple(junqi.SIGUO_MODES) == tuple(SIGUO_MODES)
    assert "turn_order" in junqi.siguo_rule_options()


def test_new_game_defaults_and_errors():
    g = junqi.SiguoGame(seed=5)
    assert g.mode == "anqi"
    assert g.current_player() == 0 and g.ply == 0 and g.quiet == 0
    assert not g.is_terminal() and g.termination is None and g.winner is None and g.result == "*"
    assert g.returns() == [0.0] * 4 and g.team_returns() == [0.0, 0.0]
    assert g.live_seats() == [0, 1, 2, 3]
    assert [junqi.SiguoGame.team_of(s) for s in range(4)] == [0, 1, 0, 1]
    with pytest.raises(ValueError, match="four-player mode"):
        junqi.SiguoGame("fanqi")
    with pytest.raises(ValueError, match="rule option"):
        junqi.SiguoGame(rules={"no_such_option": True})
    with pytest.raises(ValueError, match="seat"):
        g.observation(4)
    with pytest.raises(ValueError):
        g.apply(0)  # not legal
    with pytest.raises(ValueError, match="out of range"):
        g.apply(N_ACTIONS)


def test_rules_overrides_turn_order():
    ccw = junqi.SiguoGame(seed=1)
    cw = junqi.SiguoGame(seed=1, rules={"turn_order": "clockwise", "bomb_flies": True, "max_plies": 300})
    assert "turn_order=clockwise" in cw.rules() and "max_plies=300" in cw.rules()
    ccw.apply(ccw.legal_actions()[0])
    cw.apply(cw.legal_actions()[0])
    assert ccw.current_player() == 1 and cw.current_player() == 3


def test_same_seed_same_game_and_notation_round_trip():
    a, b = junqi.SiguoGame(seed=9), junqi.SiguoGame(seed=9)
    assert a.to_notation() == b.to_notation()
    assert a.to_notation() != junqi.SiguoGame(seed=10).to_notation()
    rng = random.Random(1)
    for _ in range(30):
        action = rng.choice(a.legal_actions())
        a.apply(action)
        b.apply(action)
    assert a.to_notation() == b.to_notation() and a.moves == b.moves
    again = junqi.SiguoGame(position=a.to_notation())
    assert again.to_notation() == a.to_notation()
    assert again.current_player() == a.current_player()
    assert again.legal_actions() == a.legal_actions()


@pytest.mark.parametrize("mode", SIGUO_MODES)
def test_actions_moves_and_masks_agree(mode):
    g = junqi.SiguoGame(mode, seed=2)
    rng = random.Random(2)
    for _ in range(40):
        if g.is_terminal():
            break
        seat = g.current_player()
        ids, texts = g.legal_actions(), g.legal_moves()
        assert ids == sorted(ids) and len(ids) == len(texts) > 0
        assert [g.action_to_move(a) for a in ids] == texts
        assert [g.move_to_action(t) for t in texts] == ids
        for s in range(4):
            mask = g.action_mask(s)
            assert mask.dtype == np.uint8 and mask.shape == (N_ACTIONS,)
            if s == seat:
                assert np.flatnonzero(mask).tolist() == ids
            else:
                assert not mask.any()
        k = rng.randrange(len(ids))
        if k % 2:
            g.apply(texts[k])  # text works as well as ids
        else:
            g.apply(ids[k])


@pytest.mark.parametrize("mode", SIGUO_MODES)
def test_random_games_end_with_a_team_result(mode):
    rng = random.Random(3)
    for seed in range(3):
        g = junqi.SiguoGame(mode, seed=seed, rules={"max_plies": 1500})
        while not g.is_terminal():
            before = g.current_player()
            g.apply(rng.choice(g.legal_actions()))
            # an ended army is skipped: the seat to move is always a live army
            if not g.is_terminal():
                assert g.ended(g.current_player()) is None and g.current_player() != before
        assert g.ply == len(g.moves) and g.legal_actions() == []
        assert g.termination in {"team_eliminated", "quiet_plies", "max_plies", "no_legal_move_anywhere"}
        r = g.returns()
        if g.winner is None:
            assert r == [0.0] * 4 and g.result == "1/2-1/2"
        else:
            w = g.winner
            assert g.termination == "team_eliminated"
            assert g.team_returns() == ([1.0, -1.0] if w == 0 else [-1.0, 1.0])
            assert r == [g.team_returns()[s % 2] for s in range(4)]
            assert g.result == ("1-0" if w == 0 else "0-1")
            # both armies of the losing team ended, and their pieces left the board
            for s in (1 - w, 3 - w):
                assert g.ended(s) in {"flag_captured", "no_legal_move"}
                assert all(army != s for _, army, _ in g.view(w))
        for s in range(4):
            assert not g.action_mask(s).any()
        with pytest.raises(ValueError, match="over"):
            g.apply(0)


def test_observation_planes():
    g = junqi.SiguoGame(seed=4)
    for s in range(4):
        obs = g.observation(s)
        assert obs.shape == (74, 17, 17) and obs.dtype == np.float32
        assert obs[0].sum() == 129  # the real nodes
        assert obs[4:8].sum(axis=(1, 2)).tolist() == [25.0] * 4  # each army's pieces
        assert obs[56 + (0 - s) % 4].min() == 1.0  # army 0 to move, relative to s
        # own pieces: one kind each; the others' pieces: several kinds possible (暗棋)
        own = obs[8:20].sum(axis=0)
        assert own[obs[4] == 1].tolist() == [1.0] * 25
        for r in (1, 2, 3):
            kinds = obs[8 + 12 * r: 20 + 12 * r].sum(axis=0)
            assert (kinds[obs[4 + r] == 1] > 1).all()
    # each seat sees its own army at the bottom: the four views differ
    assert not np.array_equal(g.observation(0), g.observation(1))


def _swap_hidden_pieces(notation, army_letter, seed):
    """The same position with two pieces of one army (middle ranks, officers or
    engineers) swapped: a pair that differs only in that army's hidden kinds."""
    board, rest = notation.split(" ", 1)
    zones = board.split("/")
    index = "senw".index(army_letter)
    ranks = zones[index].split(",")
    cells = []  # (rank group, position in group) of each node, expanded
    expanded = []
    for i, rank in enumerate(ranks):
        row = re.findall(r"[A-Z][senw]|\d", rank)
        flat = []
        for tok in row:
            flat.extend([None] * int(tok) if tok.isdigit() else [tok])
        expanded.append(flat)
        for j, tok in enumerate(flat):
            if tok and 1 <= i <= 3 and tok[0] in "GDROJCLE":
                cells.append((i, j))
    rng = random.Random(seed)
    while True:
        (i1, j1), (i2, j2) = rng.sample(cells, 2)
        if expanded[i1][j1][0] != expanded[i2][j2][0]:
            break
    expanded[i1][j1], expanded[i2][j2] = expanded[i2][j2], expanded[i1][j1]

    def pack(flat):
        out, empty = "", 0
        for tok in flat:
            if tok is None:
                empty += 1
            else:
                out += (str(empty) if empty else "") + tok
                empty = 0
        return out + (str(empty) if empty else "")

    zones[index] = ",".join(pack(f) for f in expanded)
    return "/".join(zones) + " " + rest


@pytest.mark.parametrize("mode,blind", [("anqi", [0, 2, 3]), ("shuangming", [0, 2])])
def test_observation_never_shows_others_hidden_kinds(mode, blind):
    """Two games that differ only in army 1's hidden kinds: every seat that may
    not see army 1 gets identical observations, while army 1 itself (and its
    ally in 双明) sees the difference."""
    for seed in range(3):
        base = junqi.SiguoGame(mode, seed=seed)
        text = base.to_notation()
        swapped = _swap_hidden_pieces(text, "e", seed)
        assert swapped != text
        a = junqi.SiguoGame(mode, position=text)
        b = junqi.SiguoGame(mode, position=swapped)
        rng = random.Random(seed)
        for _ in range(12):
            for s in blind:
                assert np.array_equal(a.observation(s), b.observation(s))
                assert a.view(s) == b.view(s)
                assert np.array_equal(a.action_mask(s), b.action_mask(s))
            seeing = [1] if mode == "anqi" else [1, 3]
            for s in seeing:
                assert not np.array_equal(a.observation(s), b.observation(s))
            # play on with moves onto empty nodes (no combat: nothing revealed)
            occupied = {node for node, _, _ in a.view(a.current_player())}
            quiet = [m for m in a.legal_moves() if m.split("-")[1] not in occupied]
            if not quiet:
                break
            move = rng.choice(quiet)
            a.apply(move)
            b.apply(move)


def test_view_agrees_with_the_observation():
    g = junqi.SiguoGame("shuangming", seed=6)
    rng = random.Random(6)
    for _ in range(60):
        g.apply(rng.choice(g.legal_actions()))
    letters = "KGDROJCLEBMF"
    for s in range(4):
        obs = g.observation(s)
        pieces = g.view(s)
        assert sum(obs[4:8].sum(axis=(1, 2))) == len(pieces)
        kind_planes = obs[8:56].reshape(4, 12, 17, 17)
        total = sum(len(kinds) for _, _, kinds in pieces)
        assert kind_planes.sum() == total
        for node, army, kinds in pieces:
            if army in (s, (s + 2) % 4):  # 双明: own and ally's kinds are known
                assert len(kinds) == 1 and kinds in letters


def test_clone_is_independent():
    g = junqi.SiguoGame(seed=7)
    for h in (g.clone(), copy.copy(g), copy.deepcopy(g)):
        h.apply(h.legal_actions()[0])
        assert g.ply == 0 and h.ply == 1
    assert repr(g).startswith("junqi.SiguoGame(")


# --- junqi.SiguoVecEnv ---


def test_vecenv_shapes_and_reset():
    env = junqi.SiguoVecEnv(3, seed=11)
    assert len(env) == 3
    with pytest.raises(ValueError, match="reset"):
        env.step(np.zeros(3, dtype=np.int64))
    obs, mask = env.reset()
    assert obs.shape == (3, 74, 17, 17) and obs.dtype == np.float32
    assert mask.shape == (3, N_ACTIONS) and mask.dtype == np.uint8
    assert env.reward.shape == (3,) and env.returns.shape == (3, 4)
    assert env.done.shape == (3,) and env.seat.tolist() == [0, 0, 0]
    assert not obs.flags.writeable and not mask.flags.writeable
    for i in range(3):
        g = junqi.SiguoGame(seed=11 + i)
        assert env.game(i).to_notation() == g.to_notation()
        assert np.array_equal(obs[i], g.observation(0))
        assert np.array_equal(mask[i], g.action_mask(0))
    with pytest.raises(ValueError, match="n must be"):
        junqi.SiguoVecEnv(0)
    with pytest.raises(ValueError, match="four-player mode"):
        junqi.SiguoVecEnv(1, mode="fanqi")


def test_vecenv_steps_like_games_and_auto_resets():
    n = 4
    env = junqi.SiguoVecEnv(n, mode="shuangming", rules={"max_plies": 120}, seed=20)
    obs, mask = env.reset()
    games = [env.game(i) for i in range(n)]
    episodes = 0
    for _ in range(300):
        actions = env.sample_actions()
        for i in range(n):
            assert mask[i, actions[i]] == 1
        movers = env.seat.copy()
        obs, mask, reward, done = env.step(actions)
        for i in range(n):
            games[i].apply(int(actions[i]))
            if done[i]:
                episodes += 1
                finished = env.finished_game(i)
                assert finished.to_notation() == games[i].to_notation() and games[i].is_terminal()
                assert env.terminations()[i] == games[i].termination
                assert env.returns[i].tolist() == games[i].returns()
                assert reward[i] == games[i].returns()[movers[i]]
                games[i] = env.game(i)
                assert games[i].ply == 0
            else:
                assert env.finished_game(i) is None and env.terminations()[i] is None
                assert reward[i] == 0 and not env.returns[i].any()
            seat = games[i].current_player()
            assert env.seat[i] == seat
            assert np.array_equal(obs[i], games[i].observation(seat))
            assert np.array_equal(mask[i], games[i].action_mask(seat))
    assert episodes >= n  # max_plies = 120 ends every game


def test_vecenv_illegal_action_plays_nothing_and_seeds_repeat():
    env = junqi.SiguoVecEnv(2, seed=3)
    env.reset()
    before = [env.game(i).to_notation() for i in range(2)]
    actions = env.sample_actions()
    with pytest.raises(ValueError, match="slot 1"):
        env.step(np.array([actions[0], 0]))
    assert [env.game(i).to_notation() for i in range(2)] == before
    a, b = junqi.SiguoVecEnv(2, seed=5), junqi.SiguoVecEnv(2, seed=5)
    a.reset()
    b.reset()
    for _ in range(20):
        a.step(a.sample_actions())
        b.step(b.sample_actions())
    assert np.array_equal(a.obs, b.obs) and a.game(1).moves == b.game(1).moves
    a.reset(seed=7)
    assert a.game(0).to_notation() == junqi.SiguoGame(seed=7).to_notation()


# --- junqi.SiguoBot ---


@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic"])
def test_bots_play_legal_games(spec):
    bot = junqi.SiguoBot(spec, seed=1)
    assert bot.spec == spec and repr(bot) == f'junqi.SiguoBot("{spec}")'
    g = junqi.SiguoGame("anqi", seed=8, rules={"max_plies": 400})
    while not g.is_terminal():
        action = bot.act(g)
        assert action in g.legal_actions()
        g.apply(action)
    with pytest.raises(ValueError, match="over"):
        bot.act(g)


def test_learned_deployments_replace_the_deal(repo_root):
    # The shipped net:siguo carries a deployment model: its armies deploy by
    # it, the same for the same seed, the other armies keep the deal's.
    net = junqi.SiguoBot(f"net:path={repo_root / 'data/nets/siguo/net.safetensors'}")
    dealt = junqi.SiguoGame("quanming", seed=11)
    ours = junqi.SiguoGame("quanming", seed=11, deploy=[net, None, net, None])
    again = junqi.SiguoGame("quanming", seed=11, deploy=[net, None, net, None])
    assert ours.to_notation() == again.to_notation() != dealt.to_notation()
    # The board field: the armies' zones s/e/n/w (0–3), then the centre.
    board = lambda g: g.to_notation().split(" ")[0].split("/")
    for army in (1, 3):
        assert board(ours)[army] == board(dealt)[army], f"army {army} keeps the deal's"
    for army in (0, 2):
        assert board(ours)[army] != board(dealt)[army], f"army {army} deploys by the model"
    # A bot without a model changes nothing; bad lists are refused.
    plain = junqi.SiguoGame("quanming", seed=11, deploy=[junqi.SiguoBot("heuristic")] * 4)
    assert plain.to_notation() == dealt.to_notation()
    with pytest.raises(ValueError, match="four in all"):
        junqi.SiguoGame(seed=1, deploy=[net])
    with pytest.raises(ValueError, match="not both"):
        junqi.SiguoGame(seed=1, position=dealt.to_notation(), deploy=[None] * 4)
    g = ours
    while not g.is_terminal() and g.ply < 40:
        g.apply(net.act(g))


def test_bot_seeding_and_search():
    def moves(seed):
        bot, g = junqi.SiguoBot("greedy", seed=seed), junqi.SiguoGame(seed=2)
        for _ in range(30):
            g.apply(bot.act(g))
        return g.moves

    assert moves(4) == moves(4)
    bot = junqi.SiguoBot("mcts:16")
    g = junqi.SiguoGame("shuangming", seed=3)
    assert bot.act(g) in g.legal_actions()
    with pytest.raises(ValueError, match="four-player bot"):
        junqi.SiguoBot("no-such-bot")
