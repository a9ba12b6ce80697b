"""四国 (the four-player game) in the page: the board is drawn with the
person's army at the bottom, a few moves are played by clicks against three
bots, and every /api/play response is captured: in 四国暗棋 none may hold a
kind of another army while the game is on (the exact comparison of each
response with the seat's information set is the Rust test
crates/junqi-serve/tests/siguo_api.rs; this one checks the page's real
traffic)."""

import json
import subprocess

import pytest

SEED = 7


@pytest.fixture(scope="module")
def siguo_server(junqi_bin):
    # No --runs: the sample games; nothing else is needed here.
    proc = subprocess.Popen([junqi_bin, "serve", "--addr", "127.0.0.1:0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
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


@pytest.fixture
def siguo_page(browser, siguo_server):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(siguo_server + "/")
    pg.wait_for_selector("#replay-board line", state="attached")
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def hidden_kind_leaks(state):
    """Tokens of `state`'s board that name a kind of another army, other
    than a flag shown after its army's 司令 fell (§10.8)."""
    seat = str(state["seat"])
    return [(i, t) for i, t in enumerate(state["board"])
            if t != "." and t[0] != seat and t[1:] not in ("?", "F")]


def wait_for_person(page, bodies, n):
    """Wait until a response after the first `n` gives the person the move
    (or ends the game), and the page shows it."""
    for _ in range(600):
        if len(bodies) > n:
            st = json.loads(bodies[-1][2])
            if st["your_turn"] or st["phase"] != "play":
                break
        page.wait_for_timeout(50)
    else:
        raise AssertionError("the bots did not hand the move back")
    page.wait_for_function(
        "() => { const s = document.querySelector('#siguo-status').textContent;"
        " return s.includes('Your move') || s.includes('Game over'); }")


@pytest.mark.parametrize("seat", [0, 3])
def test_a_siguo_anqi_game_by_clicks_never_receives_a_hidden_kind(siguo_page, seat, screenshots):
    page = siguo_page
    bodies = []
    page.on("response", lambda r: bodies.append((r.url, r.status, r.text())) if "/api/play" in r.url else None)
    page.click("#tab-siguo")
    form = page.locator("#siguo-new")
    form.locator("select[name=mode]").select_option("anqi")
    form.locator("select[name=seat]").select_option(str(seat))
    form.locator("input[name=ally]").fill("greedy")
    form.locator("input[name=enemies]").fill("random")
    form.locator("input[name=seed]").fill(str(SEED))
    page.click("#siguo-start")
    page.wait_for_function("() => document.querySelectorAll('#siguo-board g.sg-node').length === 129")
    wait_for_person(page, bodies, 0)

    # The person's army is drawn at the bottom: its headquarters below the centre.
    box = lambda name: page.locator(f'#siguo-board g.sg-node[data-node="{name}"]').bounding_box()
    own = "senw"[seat]
    assert box(f"{own}b1")["y"] > box("m")["y"] + 100
    assert abs(box(f"{own}b1")["x"] - box("m")["x"]) < 60
    # Face-down (unknown) pieces of the three other armies, the person's all known.
    assert page.locator("#siguo-board g.piece.unknown").count() == 75
    assert page.locator(f'#siguo-board g.piece:not(.unknown)[data-army="{seat}"]').count() == 25

    played = 0
    for _ in range(6):
        st = json.loads(bodies[-1][2])
        if st["phase"] != "play":
            break
        assert st["your_turn"], st
        mv = st["legal"][(played * 7) % len(st["legal"])]
        src, dst = mv.split("-")
        page.click(f'#siguo-board g.sg-node[data-node="{src}"]')
        # The legal targets are marked, the chosen one among them.
        assert page.locator(f'#siguo-board g.sg-node[data-node="{dst}"] circle.target').count() == 1
        n = len(bodies)
        page.click(f'#siguo-board g.sg-node[data-node="{dst}"]')
        wait_for_person(page, bodies, n)
        played += 1
    assert played >= 3
    if screenshots:
        page.screenshot(path=str(screenshots / f"siguo-seat{seat}.png"))
    n = len(bodies)
    page.click("#siguo-resign")
    page.wait_for_function("() => document.querySelector('#siguo-status').textContent.includes('Game over')")
    for _ in range(100):
        if len(bodies) > n:
            break
        page.wait_for_timeout(50)

    states = [json.loads(b) for u, s, b in bodies if s == 200 and "/api/play/siguo" in u]
    assert len(states) >= 2 * played
    for st in states:
        assert st["seat"] == seat and st["mode"] == "anqi"
        if st["phase"] == "play":
            assert st["reveal"] is None  # (the seed is shown: the person chose it)
            assert hidden_kind_leaks(st) == [], st["ply"]
    final = states[-1]
    assert final["phase"] == "over" and final["your_result"] == "loss"
    # The referee's board at the end names every kind: the check above would
    # have seen a leak.
    assert all(t == "." or t[1] != "?" for t in final["reveal"])
    assert sum(t != "." and t[0] != str(seat) for t in final["reveal"]) > 50


def test_a_stored_siguo_game_replays_in_the_page(browser, junqi_bin, tmp_path):
    subprocess.run([junqi_bin, "selfplay", "--siguo", "--games", "2", "--bots", "random,greedy", "--seed", "3",
                    "--out", str(tmp_path / "sg")], check=True, capture_output=True)
    proc = subprocess.Popen([junqi_bin, "serve", "--addr", "127.0.0.1:0", "--runs", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on http://"), line + proc.stderr.read()
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(line.strip().removeprefix("listening on ") + "/")
        datasets = page.evaluate("() => fetch('/api/datasets').then(r => r.json())")
        d = next(x["id"] for x in datasets if x["id"].endswith("sg"))
        page.click("#tab-siguo")
        form = page.locator("#siguo-replay")
        form.locator("input[name=d]").fill(d)
        form.locator("select[name=view]").select_option("1")
        page.click("#siguo-replay-open")
        page.wait_for_function("() => document.querySelector('#siguo-ply-label').textContent.startsWith('ply 0 /')")
        # Army 1's view: its own 25 pieces known, the other 75 not.
        assert page.locator("#siguo-board g.piece.unknown").count() == 75
        assert page.locator('#siguo-board g.piece:not(.unknown)[data-army="1"]').count() == 25
        page.locator("#siguo-ply").fill("5")
        page.wait_for_function("() => document.querySelector('#siguo-ply-label').textContent.startsWith('ply 5 /')")
        assert "seen by army 1" in page.locator("#siguo-status").text_content()
        assert not errors, errors
    finally:
        context.close()
        proc.terminate()
        proc.wait(timeout=10)
