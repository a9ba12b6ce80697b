#!/usr/bin/env python3
"""A minimal junqi engine: random legal moves over the engine protocol.

Standard library only. It shows how little an engine needs (docs/protocol.md):
it keeps no board of its own, plays a random move from the `legal` line the
host sends before each `go`, and deploys a random legal 暗棋/明棋 army.

    junqi arena --bots "engine:cmd=python3 scripts/random_engine.py,random" --out x

Options (`setoption name <key> value <value>`, or `option.<key>=<value>` in an
`engine:` spec):
  log         append every command received to this file
  misbehave   crash@N, hang@N, illegal@N or garbage@N: fail on the N-th `go`
              of the process; slow@N: take 0.2 s for every `go` from the
              N-th on (for the tests of forfeits)

`--protocol N` announces protocol version N (default 1). From version 2 the
host adds the seat's history (`last`, `seen`) to each position line; this
engine has no use for it, and stores the line whole either way. From
version 3 every `go` and `deploy` carries the host's `timeout` and a game
ends with a `result` line, which this engine reads and ignores.
"""

import random
import sys
import time

# The protocol version announced in the handshake (`--protocol N`).
PROTOCOL = int(sys.argv[sys.argv.index("--protocol") + 1]) if "--protocol" in sys.argv else 1

FILES = "abcde"
CAMPS = {"b3", "d3", "c4", "b5", "d5", "b8", "d8", "c9", "b10", "d10"}
HEADQUARTERS = {"red": {"b1", "d1"}, "black": {"b12", "d12"}}
BACK_RANKS = {"red": {1, 2}, "black": {11, 12}}
FRONT_RANK = {"red": 6, "black": 7}
HALF = {"red": range(1, 7), "black": range(7, 13)}
# Kind letters and counts of one army (docs/rules.md section 2).
ARMY = {"K": 1, "G": 1, "D": 2, "R": 2, "O": 2, "J": 2, "C": 3, "L": 3, "E": 3, "B": 2, "M": 3, "F": 1}
MODES = {"fanqi", "anqi", "mingqi"}


class Engine:
    def __init__(self):
        self.rng = random.Random(0)
        self.game = None  # {"mode", "seat", "first_player"}
        self.position = None
        self.legal = None
        self.gos = 0
        self.log = None
        self.misbehave = None  # (what, n)

    def say(self, line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def error(self, message):
        self.say("error " + message)

    def handle(self, line):
        if self.log:
            with open(self.log, "a", encoding="utf-8") as f:
                f.write(line + "\n")
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        if command == "junqi":
            self.say("id name random_engine.py")
            self.say("id author the junqi project")
            self.say(f"id protocol {PROTOCOL}")
            self.say("option name log type string")
            self.say("option name misbehave type string")
            self.say("junqiok")
        elif command == "isready":
            self.say("readyok")
        elif command == "setoption":
            self.setoption(args)
        elif command == "newgame":
            self.newgame(args)
        elif command == "position":
            if len(args) < 6 or args[1] not in MODES:
                self.error("position: expected a view JFEN of six fields")
            elif self.game is None:
                self.error("position before newgame")
            else:
                self.position = args
                self.legal = None
        elif command == "legal":
            self.legal = args
        elif command == "go":
            self.go(args)
        elif command == "deploy" and (args == [] or (len(args) == 2 and args[0] == "timeout" and args[1].isdigit())):
            self.deploy()
        elif command == "stop" or (command == "result" and PROTOCOL >= 3):
            pass
        elif command == "quit":
            return False
        else:
            self.error("unknown command `%s`" % command)
        return True

    def setoption(self, args):
        if len(args) < 4 or args[0] != "name" or args[2] != "value":
            self.error("usage: setoption name <key> value <value>")
            return
        key, value = args[1], " ".join(args[3:])
        if key == "log":
            self.log = value
        elif key == "misbehave":
            what, _, n = value.partition("@")
            if what not in ("crash", "hang", "illegal", "garbage", "slow") or not n.isdigit():
                self.error("misbehave: crash@N, hang@N, illegal@N, garbage@N or slow@N")
                return
            self.misbehave = (what, int(n))
        else:
            self.error("unknown option `%s`" % key)

    def newgame(self, args):
        mode, seat, seed, first = None, None, 0, "red"
        i = 0
        while i < len(args):
            word = args[i]
            if word in ("seat", "seed") and i + 1 < len(args):
                value = args[i + 1]
                if word == "seat" and value in ("1", "2"):
                    seat = int(value)
                elif word == "seed" and value.isdigit():
                    seed = int(value)
                else:
                    self.error("newgame: bad %s `%s`" % (word, value))
                    return
                i += 2
                continue
            if word in MODES and mode is None:
                mode = word
            elif word.startswith("first_player="):
                first = word.split("=", 1)[1]
            elif "=" not in word:
                self.error("newgame: `%s` is not a mode or an option=value" % word)
                return
            i += 1
        if mode is None or seat is None:
            self.error("usage: newgame <mode> seat <1|2> [seed <n>] [<option>=<value> ...]")
            return
        self.game = {"mode": mode, "seat": seat, "first_player": first}
        self.rng = random.Random(seed)
        self.position = None
        self.legal = None

    def go(self, args):
        limits = ("sims", "nodes", "movetime", "time", "inc", "timeout")
        pairs = list(zip(args[::2], args[1::2]))
        if len(args) % 2 or any(k not in limits or not v.isdigit() for k, v in pairs):
            self.error("go: limits are <key> <number> pairs with keys " + ", ".join(limits))
            return
        if self.game is None or self.position is None:
            self.error("go before newgame and position")
            return
        if not self.legal:
            self.error("go: this engine needs the `legal` line before `go`")
            return
        self.gos += 1
        if self.misbehave and self.gos >= self.misbehave[1]:
            what = self.misbehave[0]
            if what == "crash":
                sys.exit(3)
            if what == "hang":
                time.sleep(3600)
            if what == "illegal":
                self.say("bestmove a1a12")
                return
            if what == "garbage":
                self.say("bestmove tomorrow")
                return
            if what == "slow":
                time.sleep(0.2)
        self.say("info string %d legal moves" % len(self.legal))
        self.say("bestmove " + self.rng.choice(self.legal))

    def deploy(self):
        if self.game is None:
            self.error("deploy before newgame")
            return
        if self.game["mode"] == "fanqi":
            self.error("deploy: fanqi positions are dealt, not deployed")
            return
        first = self.game["first_player"]
        other = "black" if first == "red" else "red"
        colour = first if self.game["seat"] == 1 else other
        self.say("deployment " + " ".join(random_deployment(colour, self.rng)))


def random_deployment(colour, rng):
    """A random legal deployment: flag in a headquarters, mines on the last
    two ranks, bombs off the front rank, nothing in camps."""
    free = [f + str(r) for r in HALF[colour] for f in FILES if f + str(r) not in CAMPS]
    placed = []

    def take(allowed, n, kind):
        options = [sq for sq in free if allowed(sq)]
        for sq in rng.sample(options, n):
            placed.append(sq + kind)
            free.remove(sq)

    take(lambda sq: sq in HEADQUARTERS[colour], 1, "F")
    take(lambda sq: int(sq[1:]) in BACK_RANKS[colour], 3, "M")
    take(lambda sq: int(sq[1:]) != FRONT_RANK[colour], 2, "B")
    rest = [k for k, n in ARMY.items() if k not in "FMB" for _ in range(n)]
    rng.shuffle(rest)
    placed.extend(sq + kind for sq, kind in zip(free, rest))
    return placed


def main():
    read_commands(Engine())


def read_commands(engine):
    """Hand each line of stdin to `engine.handle` until it returns False;
    a line that is not UTF-8 gets `engine.error`."""
    for raw in sys.stdin.buffer:
        try:
            line = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            engine.error("command is not valid UTF-8")
            continue
        if not engine.handle(line):
            break


if __name__ == "__main__":
    main()
