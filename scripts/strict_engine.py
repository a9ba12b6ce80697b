#!/usr/bin/env python3
"""A deliberately strict junqi engine: it accepts only the grammar of
docs/protocol.md ("Commands from the host"), word for word, and answers
anything else with `error`. Run against the host (`junqi arena`, `junqi
engine-check`), it fails the moment the host sends a line the doc does not
describe, so the doc and the host cannot drift apart unnoticed. It plays
random moves from the `legal` line, and deploys like scripts/random_engine.py.

    junqi engine-check -- python3 scripts/strict_engine.py

Flags:
  --protocol N     announce version N (default 3) and require exactly the
                   lines of that version (no `last`/`seen` below 2, a
                   `timeout` on every `go` and `deploy` from 3)
  --plays LINE     declare `plays LINE` in the handshake (repeatable), words
                   separated by spaces or `/` (an `engine:cmd=` splits at
                   spaces), e.g. --plays fanqi/bomb_flies=false
  --misread WHAT   misread on purpose, as a badly written engine would:
                   `seed` reads seeds as signed 64-bit numbers; `order`
                   expects `newgame <mode> seat <n> seed <n> <options>`;
                   four-player: `seat` takes seats 1-4 (as two-player
                   seats count from 1), `line` keeps lines of 4096 bytes
                   at most (a long position line is refused)
  --siguo          a four-player engine (docs/protocol.md, "Four players"):
                   it announces `plays siguo anqi`, `… shuangming` and
                   `… quanming` (unless --plays names others) and accepts
                   only the four-player lines
"""

import argparse
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from random_engine import random_deployment, read_commands  # noqa: E402

MODE = r"(fanqi|anqi|mingqi)"
OPTIONS = r"((?: [a-z_]+=[a-z0-9_]+)*)"
NUMBER = r"(0|[1-9][0-9]*)"
SQUARE = r"[a-e](?:[1-9]|1[0-2])"
MOVE = SQUARE + SQUARE
KINDS = r"(?:[KGDROJCLEBMF]+|-)"

NEWGAME = re.compile(rf"newgame {MODE}{OPTIONS} seat ([12])(?: seed {NUMBER})?")
# The old doc's order, which `--misread order` expects.
NEWGAME_MISREAD = re.compile(rf"newgame {MODE} seat ([12]) seed {NUMBER}{OPTIONS}")
VIEW = rf"\S+ (?P<mode>fanqi|anqi|mingqi) [12] (?:-|-?[rb]) {NUMBER} {NUMBER}"
HISTORY = rf"(?: last(?: {MOVE}){{1,4}})?(?: seen [1-9][0-9]*)?"
POSITION = re.compile(
    rf"position {VIEW}(?: pool [KGDROJCLEBMFkgdrojclebmf]+)?(?: kinds(?: {SQUARE}={KINDS})+)?"
    rf"(?: removed(?: {KINDS})+)?(?P<history>{HISTORY})"
)
LEGAL = re.compile(rf"legal((?: {MOVE})*)")
GO = re.compile(rf"go(?: sims {NUMBER})?(?: nodes {NUMBER})?(?: movetime {NUMBER})?(?: time {NUMBER} inc {NUMBER})?( timeout {NUMBER})?")
DEPLOY = re.compile(rf"deploy( timeout {NUMBER})?")
RESULT = re.compile(r"result (win|loss|draw) [a-z_]+")
SETOPTION = re.compile(r"setoption name (\S+) value (\S.*)")

U64_MAX = 2**64 - 1
I64_MAX = 2**63 - 1


class Strict:
    def __init__(self, args):
        self.protocol = args.protocol
        self.plays = args.plays
        self.misread = args.misread
        self.game = None  # (mode, seat)
        self.positioned = False
        self.legal = []
        self.rng = random.Random(0)

    def say(self, line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def refuse(self, line, why):
        self.error(why)

    def error(self, message):
        self.say("error " + message)

    def handshake_plays(self):
        for plays in self.plays:
            self.say("plays " + plays.replace("/", " "))

    def handle(self, line):
        if line == "":
            return True
        if line == "quit":
            return False
        if line == "junqi":
            self.say("id name strict_engine.py")
            self.say("id author the junqi project")
            self.say("id protocol %d" % self.protocol)
            self.handshake_plays()
            self.say("junqiok")
        elif line in ("isready", "stop"):
            if line == "isready":
                self.say("readyok")
        elif line.startswith("setoption"):
            if not SETOPTION.fullmatch(line):
                self.refuse(line, "not the documented setoption")
            else:
                self.refuse(line, "this engine has no options")
        elif line.startswith("newgame"):
            self.newgame(line)
        elif line.startswith("position"):
            self.position(line)
        elif line.startswith("legal"):
            m = LEGAL.fullmatch(line)
            if not m:
                self.refuse(line, "not the documented legal line")
            else:
                self.legal = m.group(1).split()
        elif line.startswith("go"):
            self.go(line)
        elif line.startswith("deploy"):
            self.deploy(line)
        elif line.startswith("result") and self.protocol >= 3:
            if not RESULT.fullmatch(line):
                self.refuse(line, "not the documented result line")
            self.game = None
        else:
            self.refuse(line, "unknown command")
        return True

    def newgame(self, line):
        pattern = NEWGAME_MISREAD if self.misread == "order" else NEWGAME
        m = pattern.fullmatch(line)
        if not m:
            self.refuse(line, "not the documented newgame")
            return
        if self.misread == "order":
            mode, seat, seed, options = m.group(1), m.group(2), m.group(3), m.group(4)
        else:
            mode, options, seat, seed = m.groups()
        seed = int(seed or 0)
        if seed > (I64_MAX if self.misread == "seed" else U64_MAX):
            self.refuse(line, "seed out of range")
            return
        first = dict(o.split("=") for o in options.split()).get("first_player", "red")
        self.game = (mode, int(seat), first)
        self.rng = random.Random(seed)
        self.positioned = False

    def position(self, line):
        m = POSITION.fullmatch(line)
        if not m:
            self.refuse(line, "not the documented position line")
        elif m.group("history") and self.protocol < 2:
            self.refuse(line, "last/seen sent to a version 1 engine")
        elif self.game is None or m.group("mode") != self.game[0]:
            self.refuse(line, "position outside a game of its mode")
        else:
            self.positioned = True
            self.legal = []

    def timeout_ok(self, line, timeout):
        if bool(timeout) != (self.protocol >= 3):
            self.refuse(line, "a timeout is sent from version 3 on, and always")
            return False
        return True

    def go(self, line):
        m = GO.fullmatch(line)
        if not m:
            self.refuse(line, "not the documented go")
        elif not self.timeout_ok(line, m.group(6)):
            pass
        elif not self.positioned or not self.legal:
            self.refuse(line, "go before position and legal")
        else:
            self.say("bestmove " + self.rng.choice(self.legal))

    def deploy(self, line):
        m = DEPLOY.fullmatch(line)
        if not m:
            self.refuse(line, "not the documented deploy")
        elif not self.timeout_ok(line, m.group(1)):
            pass
        elif self.game is None or self.game[0] == "fanqi":
            self.refuse(line, "deploy outside a 暗棋/明棋 game")
        else:
            first = self.game[2]
            colour = first if self.game[1] == 1 else {"red": "black", "black": "red"}[first]
            self.say("deployment " + " ".join(random_deployment(colour, self.rng)))


# The four-player lines (docs/protocol.md, "Four players").
SIGUO_MODE = r"(anqi|shuangming|quanming)"
NODE = r"(?:[senw][a-e][1-6]|m(?:se|en|nw|ws|[senw])?)"
SIGUO_MOVE = rf"{NODE}-{NODE}"
SIGUO_VIEW = rf"[0-9A-Za-z?,]+(?:/[0-9A-Za-z?,]+){{4}} {SIGUO_MODE} ([senw]) (?:-|(?:[senw][fx])+) {NUMBER} {NUMBER}"
EVENT = rf"{SIGUO_MOVE}(?::(?:a|d|b|fb|f|s))?(?:\^{NODE})*(?:~[senw][fx])*"
SIGUO_NEWGAME = re.compile(rf"newgame siguo {SIGUO_MODE}{OPTIONS} seat ([0-9]+)(?: seed {NUMBER})?")
SIGUO_POSITION = re.compile(rf"position {SIGUO_VIEW}(?: start {SIGUO_VIEW} moves(?: {EVENT})+)?")
SIGUO_LEGAL = re.compile(rf"legal((?: {SIGUO_MOVE})*)")
SIGUO_TERMINATION = r"(team_eliminated|no_legal_move_anywhere|quiet_plies|max_plies|forfeit)"
SIGUO_RESULT = re.compile(rf"result (win|loss|draw) {SIGUO_TERMINATION}")
SIGUO_MODES = ("anqi", "shuangming", "quanming")
ARMIES = "senw"
# What `--misread line` keeps of a line (a fixed buffer, as a careless engine has).
SHORT_LINE = 4096


class StrictSiguo(Strict):
    """The four-player engine: the same strictness over the four-player grammar."""

    def __init__(self, args):
        super().__init__(args)
        self.plays = args.plays or ["siguo " + mode for mode in SIGUO_MODES]
        self.turn = None

    def handle(self, line):
        if self.misread == "line" and len(line.encode()) > SHORT_LINE:
            self.error("line too long")
            return True
        word = line.split(" ", 1)[0]
        if word in ("newgame", "position", "legal", "deploy", "result"):
            getattr(self, "siguo_" + word)(line)
            return True
        return super().handle(line)

    def siguo_newgame(self, line):
        m = SIGUO_NEWGAME.fullmatch(line)
        if not m:
            self.refuse(line, "not the documented four-player newgame")
            return
        mode, _options, seat, seed = m.groups()
        seats = range(1, 5) if self.misread == "seat" else range(0, 4)
        if int(seat) not in seats or len(seat) != 1:
            self.refuse(line, "seat out of range")
            return
        seed = int(seed or 0)
        if seed > U64_MAX:
            self.refuse(line, "seed out of range")
            return
        self.game = (mode, int(seat))
        self.rng = random.Random(seed)
        self.positioned = False

    def siguo_position(self, line):
        m = SIGUO_POSITION.fullmatch(line)
        if not m:
            self.refuse(line, "not the documented four-player position line")
        elif self.game is None or m.group(1) != self.game[0] or (m.group(5) and m.group(5) != self.game[0]):
            self.refuse(line, "position outside a four-player game of its mode")
        else:
            self.positioned = True
            self.turn = m.group(2)
            self.legal = []

    def siguo_legal(self, line):
        m = SIGUO_LEGAL.fullmatch(line)
        if not m:
            self.refuse(line, "not the documented four-player legal line")
        else:
            self.legal = m.group(1).split()

    def go(self, line):
        if self.positioned and self.turn != ARMIES[self.game[1] % 4]:
            self.refuse(line, "go in a position where another army is to move")
        else:
            super().go(line)

    def siguo_deploy(self, line):
        self.refuse(line, "deploy: four-player armies are dealt")

    def siguo_result(self, line):
        if not SIGUO_RESULT.fullmatch(line):
            self.refuse(line, "not the documented four-player result line")
        self.game = None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocol", type=int, default=3)
    parser.add_argument("--plays", action="append", default=[])
    parser.add_argument("--misread", choices=["seed", "order", "seat", "line"])
    parser.add_argument("--siguo", action="store_true")
    args = parser.parse_args()
    engine = (StrictSiguo if args.siguo else Strict)(args)
    # What an engine prints on stderr is kept in the run directory (docs/protocol.md, "Logs").
    sys.stderr.write("strict_engine.py: protocol %d\n" % engine.protocol)
    sys.stderr.flush()
    read_commands(engine)


if __name__ == "__main__":
    main()
