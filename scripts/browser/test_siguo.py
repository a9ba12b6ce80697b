"""四国 (the four-player game) in the page: the board is drawn with the
person's army at the bottom, the person's deployment is edited by clicks
and the game started, a few moves are played by clicks against three bots,
and every /api/play response is captured: in 四国暗棋 none may hold a kind of
another army while the game is on, and while deploying none holds a piece of
another army at all (the exact comparison of each response with the seat's
information set is the Rust test crates/junqi-serve/tests/siguo_api.rs; this
one checks the page's real traffic). At the end the record downloads and
`junqi import` reads it; the Replay tab lists four-player datasets (self-play
and arena) and replays their games on the four-player board."""

import json
import subprocess

import pytest
from conftest import page_on, serving

SEED = 7


@pytest.fixture(scope="module")
def siguo_server(junqi_bin):
    # No --runs: the sample games; nothing else is needed here.
    with serving(junqi_bin) as url:
        yield url


@pytest.fixture
def siguo_page(browser, siguo_server):
    yield from page_on(browser, siguo_server)


def hidden_kind_leaks(state):
    """Tokens of `state`'s board that name a kind the seat may not know: of
    another army (in 双明 other than the ally's), other than a flag shown
    after its army's 司令 fell (§10.8); while deploying, any piece of
    another army at all."""
    seat = state["seat"]
    if state["phase"] == "deploy":
        return [(i, t) for i, t in enumerate(state["board"]) if t != "." and (t[0] != str(seat) or t[1] == "?")]
    known = {str(seat)} | ({str((seat + 2) % 4)} if state["mode"] == "shuangming" else set())
    return [(i, t) for i, t in enumerate(state["board"])
            if t != "." and t[0] not in known and t[1:] not in ("?", "F")]


def play_states(bodies):
    """The game states among the captured responses (not the record)."""
    return [json.loads(b) for u, s, b in bodies if s == 200 and "/api/play/siguo" in u and not u.endswith("/record")]


def start_game(page, mode, seat, ally, enemies):
    page.click("#tab-siguo")
    form = page.locator("#siguo-new")
    form.locator("select[name=mode]").select_option(mode)
    form.locator("select[name=seat]").select_option(str(seat))
    form.locator("input[name=ally]").fill(ally)
    form.locator("input[name=enemies]").fill(enemies)
    form.locator("input[name=seed]").fill(str(SEED))
    page.click("#siguo-start")
    page.wait_for_function("() => document.querySelectorAll('#siguo-board g.sg-node').length === 129")
    page.wait_for_function("() => document.querySelector('#siguo-status').textContent.includes('Deploy your army')")
    assert page.locator("#siguo-deploy-controls").is_visible()
    # Only the person's 25 pieces are drawn while deploying.
    assert page.locator("#siguo-board g.piece").count() == 25
    assert page.locator(f'#siguo-board g.piece[data-army="{seat}"]').count() == 25


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
    start_game(page, "anqi", seat, "greedy", "random")
    n = len(bodies)
    page.click("#siguo-deploy-done")
    wait_for_person(page, bodies, n)
    assert not page.locator("#siguo-deploy-controls").is_visible()

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

    states = play_states(bodies)
    assert len(states) >= 2 * played
    assert states[0]["phase"] == "deploy"
    for st in states:
        assert st["seat"] == seat and st["mode"] == "anqi"
        if st["phase"] != "over":
            assert st["reveal"] is None  # (the seed is shown: the person chose it)
            assert hidden_kind_leaks(st) == [], (st["phase"], st["ply"])
    final = states[-1]
    assert final["phase"] == "over" and final["your_result"] == "loss"
    # The referee's board at the end names every kind: the check above would
    # have seen a leak.
    assert all(t == "." or t[1] != "?" for t in final["reveal"])
    assert sum(t != "." and t[0] != str(seat) for t in final["reveal"]) > 50


def test_a_siguo_deployment_is_edited_by_clicks_and_the_record_downloads(siguo_page, junqi_bin, tmp_path):
    page = siguo_page
    bodies = []
    page.on("response", lambda r: bodies.append((r.url, r.status, r.text())) if "/api/play" in r.url else None)
    seat = 2
    start_game(page, "shuangming", seat, "random", "random")
    nodes = [n["name"] for n in page.evaluate("() => fetch('/api/siguo/board').then(r => r.json())")["nodes"]]
    label = lambda name: page.locator(f'#siguo-board g.sg-node[data-node="{name}"] g.piece text').text_content()

    # Another random deployment, then two back-row pieces swapped by clicks.
    n = len(bodies)
    page.click("#siguo-shuffle")
    for _ in range(100):
        if len(bodies) > n:
            break
        page.wait_for_timeout(50)
    shuffled = json.loads(bodies[-1][2])
    assert shuffled["phase"] == "deploy" and "/shuffle" in bodies[-1][0]
    # Two nodes of the back ranks (no headquarters) holding different kinds:
    # any swap of theirs is legal.
    back = ["na1", "nc1", "ne1", "na2", "nb2", "nc2", "nd2", "ne2"]
    kind = lambda name: shuffled["board"][nodes.index(name)]
    a, b = next((x, y) for x in back for y in back if kind(x) != kind(y))
    ka, kb = kind(a), kind(b)
    page.wait_for_function(f"() => document.querySelector('#siguo-board g.sg-node[data-node=\"{a}\"] g.piece text')"
                           f".textContent.length > 0")
    before = (label(a), label(b))
    page.click(f'#siguo-board g.sg-node[data-node="{a}"]')
    page.click(f'#siguo-board g.sg-node[data-node="{b}"]')
    assert (label(a), label(b)) == (before[1], before[0])
    # A camp is not a place for a piece: clicking one does nothing.
    page.click('#siguo-board g.sg-node[data-node="nb3"]')
    page.click(f'#siguo-board g.sg-node[data-node="{a}"]')
    page.click(f'#siguo-board g.sg-node[data-node="{a}"]')
    assert (label(a), label(b)) == (before[1], before[0])

    n = len(bodies)
    page.click("#siguo-deploy-done")
    wait_for_person(page, bodies, n)
    started = next(json.loads(body) for u, s, body in bodies[n:] if u.endswith("/deploy"))
    # The game starts from the deployment as edited (the response comes before any bot moves).
    assert started["phase"] == "play" and started["ply"] == 0
    assert (started["board"][nodes.index(a)], started["board"][nodes.index(b)]) == (kb, ka)
    assert not page.locator("#siguo-record").is_visible()

    page.click("#siguo-resign")
    page.wait_for_function("() => document.querySelector('#siguo-status').textContent.includes('Game over')")
    with page.expect_download() as info:
        page.click("#siguo-record")
    record = tmp_path / "game.jgn"
    info.value.save_as(record)
    assert info.value.suggested_filename.startswith("junqi-siguo-game-")
    text = record.read_text()
    assert text.startswith('[Game "siguo"]') and '[Seat2 "person"]' in text and '[Mode "shuangming"]' in text
    done = subprocess.run([junqi_bin, "import", "--out", str(tmp_path / "imported"), str(record)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "imported" / "games").glob("*.parquet"))

    for st in play_states(bodies):
        if st["phase"] != "over":
            assert st["reveal"] is None
            assert hidden_kind_leaks(st) == [], (st["phase"], st["ply"])


def test_a_stored_siguo_game_replays_in_the_page(browser, junqi_bin, tmp_path):
    subprocess.run([junqi_bin, "selfplay", "--siguo", "--games", "2", "--bots", "random,greedy", "--seed", "3",
                    "--out", str(tmp_path / "sg")], check=True, capture_output=True)
    subprocess.run([junqi_bin, "arena", "--siguo", "--bots", "random,greedy", "--games-per-pair", "2", "--seed", "4",
                    "--out", str(tmp_path / "ar")], check=True, capture_output=True)
    with serving(junqi_bin, "--runs", str(tmp_path)) as url:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        try:
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url + "/")
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

            # The Replay tab lists both four-player datasets, marked, and replays
            # their games on the four-player board.
            page.click("#tab-replay")
            for name in ("sg", "ar"):
                ds = next(x for x in datasets if x["id"].endswith(name))
                assert ds["players"] == 4, ds
                option = page.locator(f'#dataset option[value="{ds["id"]}"]')
                assert "四国" in option.text_content()
                page.select_option("#dataset", ds["id"])
                page.wait_for_load_state("networkidle")
                page.wait_for_function("() => document.querySelectorAll('#games tbody tr').length === 2")
                assert page.locator("#games tbody tr").first.locator("td").nth(1).text_content().count(" – ") == 3
                assert page.locator("#view option").all_text_contents() == [
                    "the referee (all)", "army 0", "army 1", "army 2", "army 3"]
                page.select_option("#view", "3")
                page.locator("#games tbody tr").nth(1).click()
                page.wait_for_function("() => document.querySelector('#replay-head').textContent.startsWith('四国 game 1')")
                page.wait_for_load_state("networkidle")
                assert page.locator("#error").is_hidden()
                assert page.locator("#replay-siguo-board g.sg-node").count() == 129
                assert not page.locator("#replay-board").is_visible()
                assert page.locator("#replay-siguo-board g.piece.unknown").count() == 75
                assert page.locator('#replay-siguo-board g.piece:not(.unknown)[data-army="3"]').count() == 25
                # Army 3 at the bottom: its headquarters below the centre.
                box = lambda n: page.locator(f'#replay-siguo-board g.sg-node[data-node="{n}"]').bounding_box()
                assert box("wb1")["y"] > box("m")["y"] + 100
                for k in (1, 2):
                    page.click("#next")
                    assert page.locator("#ply-label").text_content().startswith(f"ply {k} /")
                assert page.locator("#replay-event").text_content().startswith("2. army")
                assert "view=3" in page.url and "ply=2" in page.url
            # The address names the position: it reopens in a new page.
            other = context.new_page()
            other.on("pageerror", lambda e: errors.append(str(e)))
            other.goto(page.url.replace("ply=2", "ply=1"))
            other.wait_for_function("() => document.querySelector('#ply-label').textContent.startsWith('ply 1 /')")
            assert other.locator("#replay-siguo-board g.sg-node").count() == 129
            assert other.locator("#view").input_value() == "3"
            assert not errors, errors
        finally:
            context.close()
