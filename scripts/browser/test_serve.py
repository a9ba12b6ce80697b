"""`junqi serve` in a real browser (Debian's Chromium, driven by
Playwright): replay a stored game to its end and check the drawn board
against `junqi apply`; play a whole game against `random` by clicks;
deploy in 暗棋 by dragging; and prove that no response of a 暗棋 game
ever carries a kind the person could not see at the table."""

import json
import re
import subprocess

FILES = "abcde"


def board_tokens(page, svg):
    """The drawn board: square name -> token (pieces only)."""
    return page.eval_on_selector_all(
        f"#{svg} g.piece", "els => Object.fromEntries(els.map(e => [e.dataset.square, e.dataset.token]))")


def jfen_tokens(jfen):
    """A JFEN board as the page's tokens (docs/rules.md: ranks 12 to 1, files a to e)."""
    tokens = {}
    for r, row in enumerate(jfen.split()[0].split("/")):
        rank, file, down = 12 - r, 0, False
        for ch in row:
            if ch == "~":
                down = True
            elif ch.isdigit():
                file += int(ch)
            else:
                token = ("r" if ch.isupper() else "b") + ch.upper()
                tokens[f"{FILES[file]}{rank}"] = ("#" + token) if down else token
                file, down = file + 1, False
    return tokens


def test_replay_a_stored_game_to_its_end(page, server, junqi_bin, screenshots):
    page.select_option("#dataset", "0/fanqi")
    page.wait_for_selector("#games tbody[data-dataset='0/fanqi'] tr")
    rows = page.locator("#games tbody tr")
    assert rows.count() == 4
    rows.nth(1).click()
    page.wait_for_function("document.querySelector('#ply-label').textContent.startsWith('ply 0')")
    game = page.evaluate("fetch('/api/game?d=0/fanqi&id=1').then(r => r.json())")
    n = len(game["moves"])
    # Forwards with the button and the keyboard, back, then jump to the end.
    page.click("#next")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert page.text_content("#ply-label") == f"ply 1 / {n}"
    page.keyboard.press("End")
    assert page.text_content("#ply-label") == f"ply {n} / {n}"
    drawn = board_tokens(page, "replay-board")
    applied = subprocess.run([junqi_bin, "apply", "--position", game["jfen"][0], "--moves", " ".join(game["moves"])],
                             check=True, capture_output=True, text=True).stdout.splitlines()
    assert drawn == jfen_tokens(applied[0])
    assert game["result"] in applied[1], applied
    # The last move is marked, and captures are listed.
    assert page.locator("#replay-board rect.mark").count() == 2
    assert page.locator("#replay-captures li").count() > 0
    if screenshots:
        page.keyboard.press("Home")
        for _ in range(40):
            page.keyboard.press("ArrowRight")
        page.screenshot(path=str(screenshots / "serve-replay.png"), full_page=True)
    # Seat 2's view, early in the game: face-down pieces are drawn, none
    # with its kind; the referee's view of the same ply shows their kinds.
    page.keyboard.press("Home")
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    referee = board_tokens(page, "replay-board")
    assert any(t.startswith("#") and len(t) == 3 for t in referee.values()), referee
    page.select_option("#view", "2")
    page.wait_for_function("replay.data.view === '2'")
    assert page.text_content("#ply-label") == f"ply 6 / {n}"
    seat = board_tokens(page, "replay-board")
    assert set(seat) == set(referee)
    assert any(t == "#" for t in seat.values()) and not any(t.startswith("#") and len(t) > 1 for t in seat.values())


def new_game(page, mode, options, seed):
    page.click("#tab-play")
    page.select_option("#new-game select[name=mode]", mode)
    page.fill("#new-game input[name=options]", options)
    page.fill("#new-game input[name=bot]", "random")
    page.fill("#new-game input[name=seed]", "" if seed is None else str(seed))
    page.click("#start")
    page.wait_for_function("document.querySelector('#play-status').dataset.phase")


def play_by_clicks(page, max_moves=200):
    """Click legal moves (the first one listed) until the game is over."""
    moves = 0
    while page.get_attribute("#play-status", "data-phase") == "play" and moves < max_moves:
        st = page.evaluate("play.state")
        assert st["your_turn"], st
        mv = st["legal"][0]
        src, dst = re.match(r"([a-e]\d+)([a-e]\d+)", mv).groups()
        ply = st["ply"]
        page.click(f"#play-board g.piece[data-square={src}]")
        # A flip (c6c6) takes one click; a move a second one on its target.
        if dst != src:
            page.click(f"#play-board circle.target[data-square={dst}]")
        page.wait_for_function(f"play.state.ply > {ply} && !play.state.bot_to_move || play.state.phase !== 'play'")
        moves += 1
    return moves


def test_play_a_whole_game_against_random_by_clicks(page, screenshots):
    bodies = []
    page.on("response", lambda r: bodies.append(r.text()) if "/api/play" in r.url and "/record" not in r.url else None)
    new_game(page, "fanqi", "max_plies=40", None)
    assert page.get_attribute("#play-status", "data-phase") == "play"
    moves = play_by_clicks(page)
    assert page.get_attribute("#play-status", "data-phase") == "over", page.text_content("#play-status")
    assert moves >= 1
    assert "game over" in page.text_content("#play-status")
    assert page.locator("#play-log li").count() >= moves
    record = page.evaluate("fetch(document.querySelector('#record').href).then(r => r.text())")
    assert "[Result" in record and "flips" in record
    # While the game was on, no face-down piece's kind and no seed (the
    # server chose it: it would give the deal away) reached the page.
    page.wait_for_timeout(100)
    states = [json.loads(b) for b in bodies]
    assert len(states) >= 2
    for st in states:
        assert not any(t.startswith("#") and len(t) > 1 for t in st["board"].split()), st["board"]
        assert (st["seed"] is None) == (st["phase"] != "over"), st


def test_anqi_deployment_by_dragging_and_no_hidden_kind_is_ever_sent(page, screenshots):
    bodies = []

    def keep(response):
        if "/api/play" in response.url and not response.url.endswith("/record"):
            bodies.append(response.text())

    page.on("response", keep)
    new_game(page, "anqi", "max_plies=60", 7)
    assert page.get_attribute("#play-status", "data-phase") == "deploy"
    zone = page.evaluate("play.state.zone")
    assert len(zone) == 25
    before = board_tokens(page, "play-board")
    assert len(before) == 25 and set(before) == set(zone)

    def drag(a, b):
        box_a = page.locator(f"#play-board g.piece[data-square={a}]").bounding_box()
        box_b = page.locator(f"#play-board g.piece[data-square={b}]").bounding_box()
        page.mouse.move(box_a["x"] + box_a["width"] / 2, box_a["y"] + box_a["height"] / 2)
        page.mouse.down()
        page.mouse.move(box_b["x"] + box_b["width"] / 2, box_b["y"] + box_b["height"] / 2, steps=5)
        page.mouse.up()

    # Drag two pieces of different kinds onto each other: they swap.
    a, b = next((x, y) for x in zone for y in zone if before[x] != before[y] and before[x] not in ("rF", "rL", "rB")
                and before[y] not in ("rF", "rL", "rB"))
    drag(a, b)
    after = board_tokens(page, "play-board")
    assert (after[a], after[b]) == (before[b], before[a])
    # The flag dragged out of its headquarters: refused with the rule named.
    flag = next(s for s, t in after.items() if t == "rF")
    other = next(s for s in zone if s not in ("b1", "d1") and after[s] not in ("rL", "rB"))
    drag(flag, other)
    page.click("#deploy-done")
    page.wait_for_selector("#error:not([hidden])")
    assert "flag" in page.text_content("#error")
    assert page.get_attribute("#play-status", "data-phase") == "deploy"
    drag(other, flag)
    if screenshots:
        page.screenshot(path=str(screenshots / "serve-deploy.png"), full_page=True)
    page.click("#deploy-done")
    page.wait_for_function("play.state.phase !== 'deploy'")
    assert page.is_hidden("#error")
    if screenshots:
        for _ in range(12):
            st = page.evaluate("play.state")
            if st["phase"] != "play":
                break
            mv = st["legal"][len(st["legal"]) // 2]
            src, dst = re.match(r"([a-e]\d+)([a-e]\d+)", mv).groups()
            page.click(f"#play-board g.piece[data-square={src}]")
            page.click(f"#play-board circle.target[data-square={dst}]")
            page.wait_for_function(f"play.state.ply > {st['ply']} && !play.state.bot_to_move || play.state.phase !== 'play'")
        # A mark of the player's own on an enemy piece, as the screenshot shows.
        enemy = [sq for sq, t in board_tokens(page, "play-board").items() if t == "b?"]
        if enemy and page.evaluate("play.state.phase") == "play":
            page.click(f"#play-board g.piece[data-square={enemy[len(enemy) // 2]}]", button="right")
            page.click("#mark-menu button[data-mark='≥师']")
        page.screenshot(path=str(screenshots / "serve-play.png"), full_page=True)
    play_by_clicks(page, max_moves=100)
    assert page.get_attribute("#play-status", "data-phase") == "over"

    # Every response of the game, from the deployment to the end: black (the
    # bot's army) only ever as `b?`, and no black kind named in the log but
    # where the rules make it public (a flag after its 司令 falls).
    assert len(bodies) >= 5
    black_kinds = re.compile("黑 (司令|军长|师长|旅长|团长|营长|连长|排长|工兵|炸弹|地雷|军旗)")
    for text in bodies:
        st = json.loads(text)
        if "board" not in st:
            continue
        assert st["colour"] in (None, "red")
        public = [line for line in st["log"] if "made public" in line]
        for token in st["board"].split():
            if token.startswith("b"):
                assert token == "b?" or (token == "bF" and public), (token, st["board"])
        for line in st["log"]:
            if black_kinds.search(line):
                assert "made public" in line and "军旗" in line, line


def test_the_runs_page_shows_an_arena_report(page, screenshots):
    page.click("#tab-runs")
    page.wait_for_selector("#run-list li")
    page.locator("#run-list li", has_text="arena: 0/arena").click()
    page.wait_for_selector("#run-view h3")
    assert "results.md" in page.text_content("#run-view")
    # The games on disk, tallied now (an arena writes its report at its end).
    live = page.locator("#run-view table.live tr").nth(1).text_content()
    assert "00-random-vs-greedy" in live and "4" in live, live
    # The report's Markdown tables are drawn as tables (the ratings, the crosstable).
    assert page.locator("#run-view .report table").count() >= 1
    assert "greedy" in page.locator("#run-view .report table").first.text_content()
    if screenshots:
        page.screenshot(path=str(screenshots / "serve-runs.png"), full_page=True)


def test_the_runs_page_shows_a_loops_generations(page):
    page.click("#tab-runs")
    page.locator("#run-list li", has_text="loop: 0/loop").click()
    page.wait_for_selector("#run-view table.generations")
    rows = page.locator("#run-view table.generations tr")
    assert rows.count() == 2
    header, first = rows.nth(0).text_content(), rows.nth(1).text_content()
    assert "Elo vs random" in header and "policy loss" in header
    # Generation 0, finished, rated against random with an interval.
    assert re.search(r"[+-]\d+ \[-?\d+, -?\d+\]", first), first
    # Its Elo chart has round ticks with 0 labelled.
    svg = page.evaluate("fetch('/api/run/file?d=0/loop&name=elo.svg').then(r => r.text())")
    ticks = re.findall(r'class="tick">([^<]*)<', svg)
    assert "0" in ticks and all(re.fullmatch(r"[+-]?\d+(\.\d{1,3})?", t) for t in ticks), ticks
