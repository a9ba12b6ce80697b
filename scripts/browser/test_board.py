"""What the board shows beyond the pieces (issue 42): file and rank
coordinates as in the move notation, face-down pieces in their side's
colour in the referee's view, the bot thinking, the bot's hidden pieces
revealed at the end, the player's marks on enemy pieces, the face-down pool
and losses, one-click flips, links to a replay position and a layout that
keeps the game list's columns in view."""

import re

from test_serve import board_tokens, new_game, play_by_clicks


def open_replay(page, dataset, row):
    page.select_option("#dataset", dataset)
    # The rows of this dataset (the first one's may still be arriving).
    page.wait_for_selector(f"#games tbody[data-dataset='{dataset}'] tr")
    page.locator("#games tbody tr").nth(row).click()
    page.wait_for_function("document.querySelector('#ply-label').textContent.startsWith('ply 0')")


def centre(page, selector):
    box = page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_coordinates_match_the_move_notation_from_either_side(page):
    open_replay(page, "0/fanqi", 0)
    files = page.eval_on_selector_all("#replay-board text.coord.file", "els => els.map(e => e.textContent)")
    ranks = page.eval_on_selector_all("#replay-board text.coord.rank", "els => els.map(e => e.textContent)")
    assert files == list("abcde") and ranks == [str(r) for r in range(1, 13)]
    # Seat 2 first: choosing the view already shown would fetch the game again.
    for view, flipped in (("2", True), ("all", False)):
        page.select_option("#view", view)
        page.wait_for_function(f"replay.data.view === '{view}'")
        # Each node lies in its file's column and its rank's row.
        for square in ("a1", "c6", "e12", "b7"):
            x, y = centre(page, f"#replay-board [data-square={square}].node")
            fx, _ = centre(page, f"#replay-board text.coord.file:text-is('{square[0]}')")
            _, ry = centre(page, f"#replay-board text.coord.rank:text-is('{square[1:]}')")
            assert abs(x - fx) < 2 and abs(y - ry) < 2, (view, square, x, fx, y, ry)
        # Seat 2 sees the board turned: file a on the right, rank 1 at the top.
        a, e = centre(page, "#replay-board text.coord.file:text-is('a')"), centre(
            page, "#replay-board text.coord.file:text-is('e')")
        one, twelve = centre(page, "#replay-board text.coord.rank:text-is('1')"), centre(
            page, "#replay-board text.coord.rank:text-is('12')")
        assert (a[0] > e[0]) == flipped and (one[1] < twelve[1]) == flipped, view


def test_the_referee_draws_face_down_pieces_in_their_sides_colours(page):
    open_replay(page, "0/fanqi", 0)
    fill = "e => getComputedStyle(e).fill"
    red = page.eval_on_selector_all("#replay-board g.piece[data-token^='#r'] rect", f"els => els.map({fill})")
    black = page.eval_on_selector_all("#replay-board g.piece[data-token^='#b'] rect", f"els => els.map({fill})")
    assert len(red) == 25 and len(black) == 25
    assert len(set(red)) == 1 and len(set(black)) == 1 and set(red) != set(black), (set(red), set(black))
    # A seat does not know whose a face-down piece is: one neutral colour.
    page.select_option("#view", "1")
    page.wait_for_function("replay.data.view === '1'")
    unknown = page.eval_on_selector_all("#replay-board g.piece[data-token='#'] rect", f"els => els.map({fill})")
    assert len(unknown) == 50 and set(unknown).isdisjoint(set(red) | set(black)), set(unknown)


def test_a_link_opens_the_replay_at_its_position(page, server, browser):
    open_replay(page, "0/anqi", 2)
    for _ in range(7):
        page.keyboard.press("ArrowRight")
    page.select_option("#view", "2")
    page.wait_for_function("replay.data.view === '2'")
    link = page.evaluate("location.href")
    assert re.search(r"#replay\?d=0%2Fanqi&id=\d+&ply=7&view=2$", link), link
    other = browser.new_page()
    try:
        other.goto(link)
        other.wait_for_function("document.querySelector('#ply-label').textContent.startsWith('ply 7 ')")
        assert other.evaluate("[replay.dataset, replay.id, replay.data.view]") == page.evaluate(
            "[replay.dataset, replay.id, replay.data.view]")
        assert board_tokens(other, "replay-board") == board_tokens(page, "replay-board")
    finally:
        other.close()


def test_the_game_list_keeps_its_columns_in_view_with_long_bot_names(page):
    page.select_option("#dataset", "0/fanqi")
    page.wait_for_selector("#games tbody[data-dataset='0/fanqi'] tr")
    # A very long bot spec, as a loop's net paths make them.
    page.evaluate("""document.querySelectorAll('#games tbody tr').forEach(tr =>
        tr.cells[1].textContent = 'mcts:sims=800,eval=net:/a/very/long/path/to/runs/gen-012/net.safetensors'.repeat(2))""")
    side = page.locator("#replay .side").bounding_box()
    right = side["x"] + side["width"] + 1
    for selector in ("#dataset", "#games tbody tr:first-child td:last-child", "#games tbody tr:first-child td:nth-child(3)"):
        box = page.locator(selector).bounding_box()
        assert box["x"] + box["width"] <= right, (selector, box, side)


def test_the_fanqi_pool_and_losses_are_shown_and_a_flip_takes_one_click(page):
    new_game(page, "fanqi", "max_plies=40", 3)
    pool = page.locator("#play-pieces [data-part=pool]")
    assert pool.count() == 2 and "司令" in pool.first.text_content()
    st = page.evaluate("play.state")
    flip = next(m for m in st["legal"] if m[:len(m) // 2] == m[len(m) // 2:])
    square = flip[:len(flip) // 2]
    page.click(f"#play-board g.piece[data-square={square}]")
    page.wait_for_function(f"play.state.ply > {st['ply']}")
    assert page.evaluate("play.state.log[0]").startswith(f"you: {flip}: flips")
    # The replay's referee view tallies the pool and the losses too.
    page.click("#tab-replay")
    open_replay(page, "0/fanqi", 1)
    page.keyboard.press("End")
    lost = page.locator("#replay-pieces [data-part=captured]")
    assert lost.count() == 2, page.text_content("#replay-pieces")


def test_anqi_thinking_marks_and_the_reveal_at_the_end(page):
    new_game(page, "anqi", "max_plies=60", 7)
    page.click("#deploy-done")
    page.wait_for_function("play.state.phase === 'play' && !play.state.bot_to_move")
    # Every state the status line shows while the game goes on.
    page.evaluate("""window.seen = [];
        new MutationObserver(() => { const s = document.querySelector('#play-status');
            seen.push([!!s.dataset.thinking, s.textContent,
                       document.querySelector('#play-board').classList.contains('thinking')]); })
        .observe(document.querySelector('#play-status'), { attributes: true, childList: true, subtree: true });""")
    # Mark an enemy piece by right-click: the mark is drawn on it.
    enemy = next(sq for sq, t in board_tokens(page, "play-board").items() if t == "b?")
    page.click(f"#play-board g.piece[data-square={enemy}]", button="right")
    page.wait_for_selector("#mark-menu:not([hidden])")
    page.click("#mark-menu button[data-mark='≥旅']")
    assert page.is_hidden("#mark-menu")
    assert page.text_content(f"#play-board text.note.own[data-square={enemy}]") == "≥旅"
    play_by_clicks(page, max_moves=100)
    assert page.get_attribute("#play-status", "data-phase") == "over"
    seen = page.evaluate("seen")
    thinking = [s for s in seen if s[0]]
    assert thinking and all("the bot is thinking" in s[1] and s[2] for s in thinking), seen[:5]
    assert any(not s[0] and "your move" in s[1] for s in seen)
    # At the end every bot piece is drawn with its kind; those never seen are outlined.
    drawn = board_tokens(page, "play-board")
    assert drawn and not any(t.endswith("?") for t in drawn.values()), drawn
    assert any(t.startswith("b") for t in drawn.values())
    assert page.locator("#play-board g.piece.revealed").count() > 0
    assert page.evaluate("play.state.board").count("b?") > 0, "the view itself still hides them"


def test_a_seats_replay_shows_what_that_seat_knew(page):
    open_replay(page, "0/anqi", 0)
    page.select_option("#view", "1")
    page.wait_for_function("replay.data.view === '1'")
    page.keyboard.press("End")
    known = page.evaluate("replay.data.frames[replay.ply].knowledge")
    drawn = page.eval_on_selector_all(
        "#replay-board text.note.hint", "els => Object.fromEntries(els.map(e => [e.dataset.square, e.textContent]))")
    assert drawn == known["hints"]
    # Its own losses by kind, the enemy's by number only.
    lost = page.locator("#replay-pieces [data-part=captured]")
    assert lost.count() == 2, page.text_content("#replay-pieces")
    black = page.text_content("#replay-pieces [data-part=captured][data-colour=black]")
    kinds = "司令 军长 师长 旅长 团长 营长 连长 排长 工兵 炸弹 地雷 军旗".split()
    assert ("none" in black or "?" in black) and not any(k in black for k in kinds), black
