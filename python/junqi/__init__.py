"""Junqi (Chinese army chess) from Python: the rules engine, a vectorised
environment, the bots and the network of the `junqi` Rust harness.

* ``junqi.Game``: one game with its referee; legal actions, observations and
  masks of either seat, JFEN in and out.
* ``junqi.VecEnv``: many games stepped together into NumPy arrays, in place.
* ``junqi.SiguoGame`` / ``junqi.SiguoVecEnv``: the same for the four-player
  game (四国军棋, 2 against 2; seats 0-3, armies 0 and 2 one team), and
  ``junqi.pettingzoo.siguo_env`` its four-agent PettingZoo environment;
  ``junqi.SiguoBot`` its bots (``random``, ``greedy``, ``heuristic``, ``mcts:N``).
* ``junqi.Bot``: any bot spec of the command line (``heuristic``,
  ``mcts:800``, ``net:default``, ...).
* ``junqi.Net``: a net file in the Rust CPU engine (the reference outputs);
  ``junqi.SiguoNet`` a four-player one.
* ``junqi.data``: the self-play datasets (Parquet) as NumPy arrays.
* ``junqi.pettingzoo`` / ``junqi.gymnasium``: standard environment APIs.
* ``junqi.torch``: the nets as PyTorch modules (needs ``torch``).

Seats are 0 and 1 (seat 0 moves first). An action id is ``from * 60 + to``
in the frame of the seat it belongs to (a flip has ``from == to``).
"""

from ._core import (
    ACTIONS,
    CODE_BYTES,
    MODES,
    OBS_SHAPE,
    SIGUO_ACTIONS,
    SIGUO_MODES,
    SIGUO_OBS_SHAPE,
    Bot,
    Game,
    Net,
    SiguoBot,
    SiguoGame,
    SiguoNet,
    SiguoVecEnv,
    VecEnv,
    __version__,
    decode_codes,
    rule_options,
    rules_dict,
    siguo_rule_options,
)

from ._gym_hook import install as _install_gym_hook

_install_gym_hook()  # `gymnasium.make("junqi/Junqi-v0")` after `import junqi`

__all__ = [
    "ACTIONS",
    "CODE_BYTES",
    "MODES",
    "OBS_SHAPE",
    "SIGUO_ACTIONS",
    "SIGUO_MODES",
    "SIGUO_OBS_SHAPE",
    "Bot",
    "Game",
    "Net",
    "SiguoBot",
    "SiguoGame",
    "SiguoNet",
    "SiguoVecEnv",
    "VecEnv",
    "__version__",
    "decode_codes",
    "rule_options",
    "rules_dict",
    "siguo_rule_options",
]
