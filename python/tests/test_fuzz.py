"""Fuzz and fault cases for the Python package (issue 41): absurd sizes,
wrong dtypes and shapes, bad JFEN. Every input gives a value or a Python
exception of an ordinary kind (ValueError, TypeError, OverflowError,
MemoryError); pyo3's PanicException (a Rust panic, which derives from
BaseException, so `pytest.raises(Exception)` would not catch it) fails the
case.

The cases are fixed (seeded); JUNQI_FUZZ_CASES=N runs N of each kind
instead of the CI counts, JUNQI_FUZZ_SEED=S other ones.
"""

import os
import random

import numpy as np
import pytest

import junqi

ORDINARY = (ValueError, TypeError, OverflowError, MemoryError, IndexError)
MODES = ["fanqi", "anqi", "mingqi"]


def cases(default):
    return int(os.environ.get("JUNQI_FUZZ_CASES", "").strip() or default)


def rng(salt):
    return random.Random(int(os.environ.get("JUNQI_FUZZ_SEED", "").strip() or 41) * 1000 + salt)


def outcome(f, *args, **kwargs):
    """`f(...)`'s value, or the ordinary exception it raised; anything else
    (a panic above all) fails the test, naming the call."""
    try:
        return f(*args, **kwargs)
    except ORDINARY as e:
        return e
    except BaseException as e:  # noqa: BLE001 - a panic is what this looks for
        pytest.fail(f"{f.__name__}{args}{kwargs}: {type(e).__name__}: {e}")


def test_vecenv_sizes_have_a_documented_cap():
    assert junqi.VecEnv.MAX_N == 16384
    for n in [0, -1, 2**31, 2**31 - 1, 2**32 + 1, 2**63, 2**64, 2**200, junqi.VecEnv.MAX_N + 1]:
        err = outcome(junqi.VecEnv, n)
        assert isinstance(err, (ValueError, OverflowError)), f"VecEnv({n}): {err!r}"
        if isinstance(err, ValueError):
            assert "16384" in str(err), str(err)
    for bad in [2.5, "3", None, [1], np.float32(2.0)]:
        assert isinstance(outcome(junqi.VecEnv, bad), ORDINARY), f"VecEnv({bad!r})"
    assert junqi.VecEnv(np.int64(2)).obs.shape[0] == 2
    assert junqi.VecEnv(1, "anqi").mask.shape == (1, 3600)


def test_vecenv_steps_refuse_wrong_actions_and_play_nothing():
    r = rng(1)
    env = junqi.VecEnv(3, "fanqi", seed=1)
    env.reset(7)
    before = [env.game(i).to_jfen() for i in range(3)]
    kinds = [
        lambda: np.array([r.uniform(-1e9, 1e9) for _ in range(3)]),
        lambda: np.array([r.choice([np.nan, np.inf, -np.inf, 0.5]) for _ in range(3)]),
        lambda: np.array(["a", "b", "c"]),
        lambda: np.array([object(), None, 1], dtype=object),
        lambda: np.zeros((3, 2), dtype=np.int64),
        lambda: np.zeros(r.choice([0, 1, 2, 4, 1000]), dtype=np.int64),
        lambda: np.array([r.choice([-1, 3600, 2**40, -(2**62)]) for _ in range(3)], dtype=np.int64),
        lambda: np.array([2**64 - 1] * 3, dtype=np.uint64),
        lambda: [r.choice([None, "x", 1.5, [], {}]) for _ in range(3)],
        lambda: r.choice([None, 5, "abc", b"\x00\x01", {"a": 1}]),
        lambda: np.zeros(3, dtype=r.choice([np.int8, np.int16, np.uint8, np.float16, np.bool_, np.complex64])),
    ]
    for k in range(cases(300)):
        actions = kinds[k % len(kinds)]()
        result = outcome(env.step, actions)
        if not isinstance(result, Exception):
            # Accepted only when every action was a legal one: then the games moved.
            env.reset(7)
        assert [env.game(i).to_jfen() for i in range(3)] == before
    for i in [-1, 3, 2**63, 2**64]:
        assert isinstance(outcome(env.game, i), ORDINARY), i
        assert isinstance(outcome(env.finished_game, i), ORDINARY), i
    for seed in [-1, 2**64, 1.5, "x"]:
        assert isinstance(outcome(env.reset, seed), ORDINARY), seed


def mutate(text, r):
    chars = list(text)
    for _ in range(r.randint(1, 6)):
        op = r.randrange(6)
        at = r.randrange(len(chars) + 1)
        if op == 0 and chars:
            del chars[min(at, len(chars) - 1)]
        elif op == 1:
            chars.insert(at, r.choice("/ 0123456789rRbBgGkKaAfFxX?#-wWqQ\n\t\x00中"))
        elif op == 2 and chars:
            chars[min(at, len(chars) - 1)] = r.choice("123456789/ ?#abcdefghijklmnopqrstuvwxyz")
        elif op == 3:
            chars.insert(at, r.choice(["99999999999999999999", "-1", "12/" * 20, " ", "  "]))
        elif op == 4 and chars:
            chars = chars[: r.randrange(len(chars) + 1)]
        else:
            chars = chars + chars[: r.randrange(len(chars) + 1)]
    return "".join(chars)


@pytest.mark.parametrize("mode", MODES)
def test_bad_jfen_is_refused_or_gives_a_playable_game(mode):
    r = rng(2 + MODES.index(mode))
    seeds = [junqi.Game(mode, seed=s).to_jfen() for s in range(4)]
    accepted = 0
    for _ in range(cases(400)):
        text = mutate(r.choice(seeds), r)
        game = outcome(junqi.Game, r.choice(MODES), jfen=text)
        if isinstance(game, Exception):
            assert isinstance(game, ValueError), f"{text!r}: {game!r}"
            continue
        accepted += 1
        # An accepted position is a whole game: it reads back, moves and observes.
        assert junqi.Game(game.mode, jfen=game.to_jfen()).to_jfen() == game.to_jfen()
        actions = game.legal_actions()
        game.observation(game.current_player())
        game.action_mask(1 - game.current_player())
        if actions and not game.is_terminal():
            game.apply(actions[r.randrange(len(actions))])
    for text in ["", " ", "\x00", "/" * 100_000, "1" * 1_000_000, "中文", 5, b"bytes"]:
        err = outcome(junqi.Game, mode, jfen=text)
        assert isinstance(err, ORDINARY), f"{text!r:.40}: {err!r}"


def test_decode_codes_refuses_wrong_shapes_and_dtypes():
    r = rng(9)
    good = np.frombuffer(junqi.Game("anqi", seed=1).obs_code(0), dtype=np.uint8).reshape(1, -1)
    assert junqi.decode_codes(good).shape[0] == 1
    for k in range(cases(200)):
        choice = k % 7
        if choice == 0:
            codes = np.zeros((r.randrange(3), r.choice([0, 1, 179, 181, 188, 190, 194, 196, 360])), dtype=np.uint8)
        elif choice == 1:
            codes = good.astype(r.choice([np.float32, np.int64, np.int8, np.bool_]))
        elif choice == 2:
            width = r.choice([180, 189, 195])  # obs-code-v1, v2 and v3
            codes = np.frombuffer(bytes(r.randrange(256) for _ in range(width)), dtype=np.uint8).reshape(1, width)
        elif choice == 3:
            codes = r.choice([None, "x", 3, [[1, 2]], np.zeros((2, 3, 180), dtype=np.uint8)])
        elif choice == 4:
            bad = good.copy()
            bad[0, r.randrange(bad.shape[1])] = r.randrange(256)
            codes = bad
        elif choice == 5:
            codes = np.full((1, 180), 255, dtype=np.uint8)
        else:
            codes = np.array([[-1] * 180])
        result = outcome(junqi.decode_codes, codes)
        if not isinstance(result, Exception):
            assert result.ndim == 4 and np.isfinite(result).all()


def test_games_refuse_absurd_arguments():
    game = junqi.Game("fanqi", seed=3)
    for seat in [-1, 2, 2**63, 2**64, "0", None, 0.5]:
        for f in [game.view, game.observation, game.action_mask, game.obs_code]:
            assert isinstance(outcome(f, seat), ORDINARY), (f.__name__, seat)
    for action in [-1, 3600, 2**63, 2**64, "a1a2", None, 1.5, np.float64(3.0)]:
        g = game.clone()
        result = outcome(g.apply, action)
        if not isinstance(result, Exception):
            assert g.ply == 1
    for seed in [-1, 2**64, "x"]:
        assert isinstance(outcome(junqi.Game, "fanqi", seed=seed), ORDINARY)
    for mode in ["", "chess", None, "FANQI "]:
        outcome(junqi.Game, mode)
    for rules in [{"max_plies": -1}, {"max_plies": 2**70}, {"nope": 1}, {"mode": "anqi"}, {"max_plies": "x"}]:
        assert isinstance(outcome(junqi.Game, "fanqi", rules=rules), ORDINARY), rules
