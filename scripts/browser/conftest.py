"""Fixtures of the browser tests: a few small datasets made by the real
`junqi` binary, `junqi serve` on 127.0.0.1 over them (stopped whatever
happens), and Debian's Chromium driven by Playwright."""

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# No network beyond 127.0.0.1 here: the flags keep Chromium from trying.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def junqi_bin():
    path = os.environ.get("JUNQI_BIN")
    if not path or not Path(path).is_file():
        pytest.fail("set JUNQI_BIN to the junqi binary (scripts/test.sh does)")
    return path


@pytest.fixture(scope="session")
def runs(junqi_bin):
    root = Path(tempfile.mkdtemp(prefix="junqi-browser-"))
    common = ["--games", "4", "--bots", "greedy,random", "--samples-per-game", "all", "--shard-games", "2", "--seed", "5"]
    for mode in ("fanqi", "anqi"):
        subprocess.run([junqi_bin, "selfplay", "--rules", mode, *common, "--out", str(root / mode)], check=True,
                       capture_output=True)
    subprocess.run([junqi_bin, "arena", "--bots", "random,greedy", "--games-per-pair", "4", "--seed", "1", "--out",
                    str(root / "arena")], check=True, capture_output=True)
    # A one-generation loop of a tiny net (a few seconds).
    tiny = ['rules_set=["max_plies=80"]', "bootstrap.bot=greedy", "bootstrap.games=8", "steps_per_generation=4",
            "evaluate.games=4", "evaluate.sims=2", "evaluate.anchor=random", "evaluate.anchor_games=4",
            "train.model.blocks=1", "train.model.channels=8", "train.optim.batch_size=16",
            "train.data.shuffle_buffer=500"]
    sets = [x for kv in tiny for x in ("--set", kv)]
    subprocess.run([junqi_bin, "loop", "--out", str(root / "loop"), "--generations", "1", "--threads", "2",
                    "--device", "cpu", *sets], check=True, capture_output=True)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def serving(junqi_bin, *args):
    """`junqi serve` on a free port with `args`: its address while it runs,
    the process stopped afterwards whatever happens."""
    proc = subprocess.Popen([junqi_bin, "serve", "--addr", "127.0.0.1:0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on http://"), line + proc.stderr.read()
        yield line.strip().removeprefix("listening on ")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def server(junqi_bin, runs):
    with serving(junqi_bin, "--runs", str(runs)) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/setup_browser.sh")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


def page_on(browser, server):
    """The page of `server` in a fresh browser context (a generator for a
    fixture's `yield from`): closed afterwards, failing on any JavaScript
    error it raised."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(server + "/")
    pg.wait_for_selector("#replay-board line", state="attached")
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def page(browser, server):
    yield from page_on(browser, server)


@pytest.fixture(scope="session")
def screenshots():
    """Where to save screenshots (JUNQI_SCREENSHOTS), or None."""
    d = os.environ.get("JUNQI_SCREENSHOTS")
    if d:
        Path(d).mkdir(parents=True, exist_ok=True)
    return Path(d) if d else None
