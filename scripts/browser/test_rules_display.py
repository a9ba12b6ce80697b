"""The newer two-player rules and the clocks on `junqi serve`'s page, in
Chromium: a flag picked up, carried, put down and brought home by clicks
(扛军旗), a piece into a mountain and out again by clicks (山界), both
replayed on the Replay board, and both sides' clocks ticking, then a loss
on time."""

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import page_on, serving

# Red's 工兵 on b3 beside Black's flag on b2 (no black mine left); b1 is Red's headquarters.
CARRY = "4l/5/5/5/5/5/5/5/5/1E3/1f3/3F1 fanqi 1 r 0 0"
# Red's 旅长 on b6, beside the left mountain.
MOUNTAIN = "1f2l/5/5/5/5/5/1R3/5/5/5/5/1F3 mingqi 1 r 0 0"


@pytest.fixture(scope="module")
def rules_server(junqi_bin):
    """`junqi serve --tc 20+1` over one 翻棋 dataset with the flag carried and the mountains open."""
    root = Path(tempfile.mkdtemp(prefix="junqi-rules-"))
    subprocess.run([junqi_bin, "selfplay", "--rules", "fanqi", "--set", "mountains=open", "--set", "flag_carry=true",
                    "--games", "2", "--bots", "random,random", "--seed", "5", "--out", str(root / "newer")],
                   check=True, capture_output=True)
    try:
        with serving(junqi_bin, "--runs", str(root), "--tc", "20+1") as url:
            yield url
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def rpage(browser, rules_server):
    yield from page_on(browser, rules_server)


def open_game(page, body):
    """A game made through the API, opened on the Play tab by its link."""
    st = page.evaluate("b => post('/api/play', b)", body)
    assert "id" in st, st
    page.evaluate(f"location.hash = '#play?id={st['id']}'")
    page.wait_for_function(f"play.state && play.state.id === {st['id']}")
    return st["id"]


def click_move(page, first, second):
    """Click `first`, then the target `second` (a node, or a mountain m0/m1); wait for the bot's reply."""
    ply = page.evaluate("play.state.ply")
    page.click(f"#play-board g.piece[data-square={first}]")
    page.click(f"#play-board circle.target[data-square={second}]")
    page.wait_for_function(f"play.state.ply > {ply} && !play.state.bot_to_move || play.state.phase !== 'play'")


def test_a_flag_carried_and_put_down_and_brought_home_by_clicks(rpage, screenshots):
    page = rpage
    game = {"mode": "fanqi", "variant": "fanqi-flag_carry-true", "seat": 1, "bot": "random", "seed": 1,
            "position": CARRY}
    open_game(page, game)
    click_move(page, "b3", "b2")
    assert page.locator("#play-board g.piece[data-square=b2][data-carries=black] .flag-mark.carried").count() == 1
    assert "picks the flag up" in page.text_content("#play-log")
    # Carried on: the node it was picked up from shows the flag gone.
    click_move(page, "b2", "c2")
    assert page.locator("#play-board g.piece[data-square=c2][data-carries=black]").count() == 1
    assert page.locator("#play-board g.flag-gone").count() == 1
    # Put down: the carrier clicked, then clicked again.
    click_move(page, "c2", "c2")
    assert page.locator("#play-board g.piece[data-square=c2][data-flag-under=black]").count() == 1
    assert "puts the flag down" in page.text_content("#play-log")
    if screenshots:
        page.screenshot(path=str(screenshots / "serve-flag-carry.png"), full_page=True)
    # Another game: picked up and carried into b1, Red's headquarters.
    open_game(page, game)
    click_move(page, "b3", "b2")
    page.click("#play-board g.piece[data-square=b2]")
    assert page.locator("#play-board circle.target[data-square=b2]").count() == 1, "putting it down is offered"
    page.click("#play-board circle.target[data-square=b1]")
    page.wait_for_function("play.state.phase === 'over'")
    status = page.text_content("#play-status")
    assert "by flag_captured (the flag carried home)" in status, status
    assert "brings the flag home and wins" in page.text_content("#play-log")


def test_a_piece_into_a_mountain_and_out_by_clicks(rpage):
    page = rpage
    # From the form: the variant sets the mode; the start position is typed in.
    page.click("#tab-play")
    page.select_option("#variant", "mingqi-mountains-open")
    assert page.eval_on_selector("#new-game select[name=mode]", "e => e.value") == "mingqi"
    page.fill("#new-game input[name=bot]", "random")
    page.fill("#new-game input[name=seed]", "2")
    page.fill("#new-game input[name=position]", MOUNTAIN)
    page.click("#start")
    page.wait_for_function("play.state && play.state.your_turn")
    assert page.evaluate("play.state.variant") == "mingqi mountains=open"
    assert page.locator("#play-board path.mountain").count() == 2
    # The piece clicked twice is not a move: only the mountain is its target.
    page.click("#play-board g.piece[data-square=b6]")
    assert page.locator("#play-board circle.target[data-square=m0]").count() == 1
    assert page.locator("#play-board circle.target[data-square=b6]").count() == 0
    page.click("#play-board g.piece[data-square=b6]")
    assert page.evaluate("play.state.ply") == 0
    click_move(page, "b6", "m0")
    assert page.locator("#play-board g.piece[data-square=m0][data-token=rR]").count() == 1
    assert page.locator("#play-board g.piece[data-square=b6]").count() == 0
    assert "goes into the mountain" in page.text_content("#play-log")
    # Out again: the mountain's piece, then an empty node beside it.
    page.click("#play-board g.piece[data-square=m0]")
    targets = set(page.eval_on_selector_all("#play-board circle.target", "els => els.map(e => e.dataset.square)"))
    assert "a7" in targets and targets <= {"a6", "b6", "a7", "b7"}, targets
    click_move(page, "m0", "a7")
    assert page.locator("#play-board g.piece[data-square=a7][data-token=rR]").count() == 1
    assert page.locator("#play-board g.piece[data-square=m0]").count() == 0


def test_the_replay_board_draws_the_mountains_pieces(rpage):
    page = rpage
    page.select_option("#dataset", "0/newer")
    page.wait_for_selector("#games tbody[data-dataset='0/newer'] tr")
    for game_id in (0, 1):
        game = page.evaluate(f"fetch('/api/game?d=0/newer&id={game_id}').then(r => r.json())")
        ply = next((k for k, f in enumerate(game["frames"]) if any(f.get("mountains") or [])), None)
        if ply is not None:
            break
    assert ply is not None, "no piece went into a mountain in the two games"
    page.evaluate(f"location.hash = '#replay?d=0%2Fnewer&id={game_id}&ply={ply}&view=all'")
    page.wait_for_function(f"replay.id === {game_id} && replay.ply === {ply}")
    frame = game["frames"][ply]
    assert page.locator("#replay-board path.mountain").count() == 2
    for m, token in enumerate(frame["mountains"]):
        drawn = page.locator(f"#replay-board g.piece[data-square=m{m}]")
        assert drawn.count() == (1 if token else 0)
        if token:
            assert drawn.get_attribute("data-token") == token
    # The first frame with a piece in a mountain is the move that put it there.
    assert "goes into the mountain" in frame["event"], frame
    assert "goes into the mountain" in page.text_content("#replay-event")


def test_both_clocks_tick_and_the_person_loses_on_time(rpage):
    page = rpage
    page.click("#tab-play")
    page.select_option("#new-game select[name=mode]", "fanqi")
    page.fill("#new-game input[name=bot]", "mcts:sims=8")
    page.fill("#new-game input[name=seed]", "3")
    page.click("#start")
    page.wait_for_function("play.state && play.state.your_turn")
    assert page.is_visible("#play-clocks")
    assert "20+1" in page.text_content("#clock-inc")
    assert page.get_attribute("#clock-you", "class") == "clock running"
    first = int(page.get_attribute("#clock-you", "data-ms"))
    page.wait_for_timeout(600)
    second = int(page.get_attribute("#clock-you", "data-ms"))
    assert 300 < first - second < 2000, (first, second)
    assert page.get_attribute("#clock-bot", "data-ms") == "20000"
    # A flip: the bot replies, its clock charged and the increment added.
    square = page.evaluate("play.state.legal[0].slice(0, 2)")
    page.click(f"#play-board g.piece[data-square={square}]")
    page.wait_for_function("play.state.ply >= 2 && play.state.your_turn")
    assert page.evaluate("play.state.clocks.you_ms") > 20000 - 5000
    bot = page.evaluate("play.state.clocks.bot_ms")
    assert 15000 < bot <= 21000 and bot != 20000, bot
    # A clock of 1.5 s (the bot's own tc): nobody moves, the person loses on time.
    page.fill("#new-game input[name=bot]", "mcts:sims=8,tc=1.5+0")
    page.click("#start")
    page.wait_for_function("play.state && play.state.phase === 'over'", timeout=10000)
    status = page.text_content("#play-status")
    assert "by timeouts (you lost on time)" in status, status
    assert page.get_attribute("#clock-you", "data-ms") == "0"
    assert "you ran out of time" in page.text_content("#play-log")
