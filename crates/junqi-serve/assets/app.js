// junqi serve: the page. Plain JavaScript, no dependencies. The server
// sends boards as 60 tokens (see crates/junqi-serve/src/board.rs).
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let geometry = null;
const kinds = {};

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function api(path, options) {
  let response;
  try {
    response = await fetch(path, options);
  } catch (e) {
    showError("the server cannot be reached: " + e);
    throw e;
  }
  const text = await response.text();
  let body = null;
  try { body = JSON.parse(text); } catch (_) { body = text; }
  if (!response.ok) {
    const message = (body && body.error) || text || response.statusText;
    showError(message);
    throw new Error(message);
  }
  showError("");
  return body;
}

// An event handler that awaits the server: a failed request is already
// shown in the error bar, so the rejection goes no further.
function guard(f) {
  return (...args) => Promise.resolve().then(() => f(...args)).catch(() => {});
}

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
}

// ---- drawing -------------------------------------------------------------

function place(index, flipped) {
  const sq = geometry.squares[index];
  let file = sq.file, rank = sq.rank;
  if (flipped) { file = 4 - file; rank = 13 - rank; }
  const x = 50 + file * 80;
  const y = 30 + (12 - rank) * 52 + (rank <= 6 ? 50 : 0);
  return [x, y];
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function squareIndex(name) {
  return geometry.squares.findIndex((s) => s.name === name);
}

// Draw `tokens` (60 board tokens) on `svg`; `opts.marks` are squares to ring,
// `opts.targets` squares to highlight as destinations, `opts.onSquare(name)`
// handles clicks, `opts.selected` a square whose piece is chosen,
// `opts.revealed` squares whose piece the viewer had not seen,
// `opts.notes` {square: text} and `opts.hints` {square: text} labels written on
// pieces of unknown kind (the player's own marks, what fights revealed),
// `opts.mountains` each open mountain's piece token or null (山界; absent
// when closed), `opts.flags` the flags on pieces (扛军旗). A mountain is the
// square `m0` (between b6 and b7) or `m1` (between d6 and d7).
function drawBoard(svg, tokens, opts) {
  opts = opts || {};
  svg.textContent = "";
  const flipped = !!opts.flipped;
  drawCoordinates(svg, flipped);
  for (const e of geometry.edges) {
    const [x1, y1] = place(e.a, flipped), [x2, y2] = place(e.b, flipped);
    el("line", { x1, y1, x2, y2, class: e.rail ? "edge rail" : "edge" }, svg);
  }
  if (!opts.mountains) {
    const midY = (place(squareIndex("a6"), flipped)[1] + place(squareIndex("a7"), flipped)[1]) / 2;
    el("text", { x: 130, y: midY, class: "front" }, svg).textContent = "山 界";
    el("text", { x: 290, y: midY, class: "front" }, svg).textContent = "山 界";
  }
  geometry.squares.forEach((sq, i) => {
    const [x, y] = place(i, flipped);
    const cls = "node" + (sq.camp ? " camp" : "") + (sq.hq ? " hq" : "");
    let node;
    if (sq.camp) node = el("circle", { cx: x, cy: y, r: 22, class: cls }, svg);
    else if (sq.hq) node = el("rect", { x: x - 30, y: y - 18, width: 60, height: 36, rx: 14, class: cls }, svg);
    else node = el("rect", { x: x - 28, y: y - 15, width: 56, height: 30, class: cls }, svg);
    node.dataset.square = sq.name;
    const token = tokens ? tokens[i] : ".";
    if (token && token !== ".") {
      const g = drawPiece(svg, token, x, y, sq.name, opts.selected === sq.name);
      if (opts.revealed && opts.revealed.includes(sq.name)) g.classList.add("revealed");
      // On a piece of unknown kind, the player's mark (or else what its
      // fights told) is written in place of its "?".
      const note = opts.notes && opts.notes[sq.name];
      const hint = opts.hints && opts.hints[sq.name];
      const text = g.querySelector("text");
      if ((note || hint) && text.textContent === "?") {
        text.textContent = note || hint;
        text.setAttribute("class", note ? "note own" : "note hint");
        // A long label (`≥师/雷`) is squeezed to the piece's width.
        if (text.textContent.length > 3) {
          text.setAttribute("textLength", 46);
          text.setAttribute("lengthAdjust", "spacingAndGlyphs");
        }
        text.dataset.square = sq.name;
      }
    }
    if (opts.marks && opts.marks.includes(sq.name)) el("rect", { x: x - 32, y: y - 19, width: 64, height: 38, class: "mark" }, svg);
    if (opts.targets && opts.targets.includes(sq.name)) {
      const t = el("circle", { cx: x, cy: y, r: 10, class: "target" }, svg);
      t.dataset.square = sq.name;
    }
  });
  if (opts.mountains) drawMountains(svg, opts, flipped);
  for (const f of opts.flags || []) drawFlagOnPiece(svg, f, tokens, flipped);
  if (opts.onSquare) {
    svg.onclick = (ev) => {
      const target = ev.target.closest("[data-square]");
      if (target) opts.onSquare(target.dataset.square);
    };
  } else {
    svg.onclick = null;
  }
}

// 山界: each mountain's centre, between the nodes of ranks 6 and 7 of file b (m0) or d (m1).
function mountainPlace(m, flipped) {
  const file = m === 0 ? "b" : "d";
  const [x1, y1] = place(squareIndex(file + "6"), flipped), [x2, y2] = place(squareIndex(file + "7"), flipped);
  return [(x1 + x2) / 2, (y1 + y2) / 2];
}

// The open mountains as places that hold a piece (drawn on them when there).
function drawMountains(svg, opts, flipped) {
  opts.mountains.forEach((token, m) => {
    const [x, y] = mountainPlace(m, flipped);
    const name = "m" + m;
    const node = el("path", { d: `M ${x - 34} ${y + 18} L ${x - 12} ${y - 20} L ${x} ${y - 8} L ${x + 12} ${y - 22} L ${x + 34} ${y + 18} Z`, class: "mountain" }, svg);
    node.dataset.square = name;
    if (token) drawPiece(svg, token, x, y + 2, name, opts.selected === name);
    else el("text", { x, y: y + 6, class: "front" }, svg).textContent = "山";
    if (opts.marks && opts.marks.includes(name)) el("rect", { x: x - 32, y: y - 17, width: 64, height: 38, class: "mark" }, svg);
    if (opts.targets && opts.targets.includes(name)) el("circle", { cx: x, cy: y + 2, r: 10, class: "target", "data-square": name }, svg);
  });
}

// 扛军旗: a flag riding on a piece is a small pennant on it (filled), one
// lying under a piece an outlined one; the node a carried flag was picked
// up from, when empty, shows where it was (dashed, 旗).
function drawFlagOnPiece(svg, f, tokens, flipped) {
  const piece = svg.querySelector(`g.piece[data-square="${f.at}"]`);
  if (piece) {
    const [x, y] = place(squareIndex(f.at), flipped);
    const g = el("g", { class: `flag-mark ${f.colour} ${f.carried ? "carried" : "under"}` }, piece);
    el("line", { x1: x + 18, y1: y - 19, x2: x + 18, y2: y + 2 }, g);
    el("path", { d: `M ${x + 18} ${y - 19} L ${x + 31} ${y - 14} L ${x + 18} ${y - 9} Z` }, g);
    piece.dataset[f.carried ? "carries" : "flagUnder"] = f.colour;
    el("title", {}, piece).textContent = `${f.carried ? "carries" : "stands on"} the ${f.colour} flag`;
  }
  if (f.carried && f.from && f.from !== f.at && tokens && tokens[squareIndex(f.from)] === ".") {
    const [x, y] = place(squareIndex(f.from), flipped);
    const g = el("g", { class: `flag-gone ${f.colour}`, "data-flag-gone": f.colour }, svg);
    el("rect", { x: x - 22, y: y - 12, width: 44, height: 24, rx: 4 }, g);
    el("text", { x, y }, g).textContent = "旗";
    el("title", {}, g).textContent = `the ${f.colour} flag's node: carried away`;
  }
}

// File letters below the board and rank numbers beside it, as in the
// move notation (`e7e6`), turned with the board.
function drawCoordinates(svg, flipped) {
  for (const f of "abcde") {
    const [x] = place(squareIndex(f + "1"), flipped);
    el("text", { x, y: 692, class: "coord file" }, svg).textContent = f;
  }
  for (let r = 1; r <= 12; r++) {
    const [, y] = place(squareIndex("a" + r), flipped);
    el("text", { x: 8, y, class: "coord rank" }, svg).textContent = r;
  }
}

function pieceText(token) {
  if (token === "#") return ["down", "暗"];
  if (token.startsWith("#")) return ["down " + (token[1] === "r" ? "red" : "black"), kindName(token[2])];
  const colour = token[0] === "r" ? "red" : token[0] === "b" ? "black" : "";
  if (token[1] === "?") return [colour, "?"];
  return [colour, kindName(token[1])];
}

function kindName(letter) {
  return kinds[letter] ? kinds[letter].chinese : letter;
}

// What the tokens of a board say about the pieces off it, in the shape the
// play page gets from the server: {pool: {colour: {letter: n}}, captured: …}.
// The face-down pool is known where every face-down token names its piece
// (the referee); a colour's losses by kind where all its pieces are known,
// else only their number (`?`).
function tally(tokens) {
  const colours = { r: "red", b: "black" };
  const onBoard = { red: {}, black: {} }, pool = { red: {}, black: {} }, unknown = { red: 0, black: 0 };
  let poolKnown = true, downAny = false;
  for (const t of tokens) {
    if (t === "." ) continue;
    if (t === "#" || t === "??") { poolKnown = false; downAny = true; continue; }
    const down = t.startsWith("#");
    const body = down ? t.slice(1) : t;
    const colour = colours[body[0]];
    if (down) { downAny = true; pool[colour][body[1]] = (pool[colour][body[1]] || 0) + 1; }
    if (body[1] === "?") unknown[colour]++;
    else onBoard[colour][body[1]] = (onBoard[colour][body[1]] || 0) + 1;
  }
  const captured = {};
  for (const colour of ["red", "black"]) {
    if (!poolKnown) continue;
    const lost = {};
    let left = unknown[colour];
    for (const k of geometry.kinds) {
      const n = onBoard[colour][k.letter] || 0;
      left += n;
      if (!unknown[colour] && k.count > n) lost[k.letter] = k.count - n;
    }
    if (unknown[colour] && left < 25) lost["?"] = 25 - left;
    captured[colour] = lost;
  }
  return { pool: downAny && poolKnown ? pool : {}, captured };
}

// Counts by kind as text: `师×2 旅 工×3`.
function countsText(counts) {
  const order = geometry.kinds.map((k) => k.letter).concat(["?"]);
  return order.filter((l) => counts[l]).map((l) => (l === "?" ? "?" : kindName(l)) + (counts[l] > 1 ? "×" + counts[l] : "")).join(" ") || "none";
}

// The face-down pool and the pieces lost, one line per colour.
function showPieces(box, k) {
  box.textContent = "";
  const names = { red: "红 red", black: "黑 black" };
  for (const [title, part] of [["Face down", k.pool], ["Lost", k.captured]]) {
    for (const colour of ["red", "black"]) {
      if (!part || !part[colour]) continue;
      const line = document.createElement("div");
      line.className = colour;
      line.dataset.part = title === "Lost" ? "captured" : "pool";
      line.dataset.colour = colour;
      line.textContent = `${title}, ${names[colour]}: ${countsText(part[colour])}`;
      box.appendChild(line);
    }
  }
}

function drawPiece(svg, token, x, y, square, selected) {
  const [cls, text] = pieceText(token);
  const g = el("g", { class: "piece " + cls + (selected ? " selected" : ""), "data-square": square, "data-token": token }, svg);
  el("rect", { x: x - 26, y: y - 14, width: 52, height: 28, rx: 4 }, g);
  el("text", { x, y }, g).textContent = text;
  return g;
}

// ---- tabs ----------------------------------------------------------------

let runsTimer = null;

function showTab(name) {
  document.querySelectorAll("nav button").forEach((x) => x.classList.toggle("active", x.dataset.tab === name));
  document.querySelectorAll(".tab").forEach((t) => (t.hidden = t.id !== name));
}

document.querySelectorAll("nav button").forEach((b) => {
  b.onclick = () => {
    showTab(b.dataset.tab);
    setLink(b.dataset.tab);
    if (b.dataset.tab === "runs") guard(loadRuns)();
  };
});

// A link opens what it names: #replay?d=…&id=…&ply=…&view=…, #play?id=…
// (a game this server still keeps), #runs?d=….
async function route() {
  const [tab, query] = location.hash.slice(1).split("?");
  const q = new URLSearchParams(query || "");
  if (tab === "replay" && q.get("d") && q.get("id")) {
    showTab("replay");
    const d = q.get("d");
    if ($("dataset").value !== d && [...$("dataset").options].some((o) => o.value === d)) {
      $("dataset").value = d;
      await loadGames(0);
    }
    if ([...$("view").options].some((o) => o.value === q.get("view"))) $("view").value = q.get("view");
    await openGame(d, Number(q.get("id")));
    step(Number(q.get("ply")) || 0);
  } else if (tab === "play") {
    showTab("play");
    if (q.get("id")) await advance(await api(`/api/play/${encodeURIComponent(q.get("id"))}`));
  } else if (tab === "runs") {
    showTab("runs");
    chosenRun = q.get("d");
    await loadRuns();
    await showRun();
  }
}
window.addEventListener("hashchange", guard(route));

// ---- replay --------------------------------------------------------------

const replay = { data: null, ply: 0, dataset: null, id: null };
// Each dataset's players: 2, or 4 for a four-player (四国) one, whose games
// replay on the four-player board.
const datasetPlayers = {};

async function loadDatasets() {
  const list = await api("/api/datasets");
  const select = $("dataset");
  select.textContent = "";
  for (const d of list) {
    const o = document.createElement("option");
    o.value = d.id;
    datasetPlayers[d.id] = d.players;
    o.textContent = `${d.id} (${d.shards} shard${d.shards === 1 ? "" : "s"}${d.players === 4 ? ", 四国 four-player" : ""})`;
    select.appendChild(o);
  }
  if (list.length) await loadGames();
  else $("game-count").textContent = "No datasets below the --runs directories.";
}

const PAGE = 200;
let offset = 0;

// Bumped by each list asked for: an answer to an older request (another
// dataset chosen meanwhile) is dropped, not mixed into the table.
let gamesRequest = 0;

// The views a dataset's games may be seen through: the referee, or each seat
// (seats 1 and 2; armies 0–3 in a four-player dataset).
function setViews(players) {
  const select = $("view");
  if (select.dataset.players === String(players)) return;
  const seats = players === 4 ? [["0", "army 0"], ["1", "army 1"], ["2", "army 2"], ["3", "army 3"]] : [["1", "seat 1"], ["2", "seat 2"]];
  const kept = select.value;
  select.textContent = "";
  for (const [value, label] of [["all", "the referee (all)"], ...seats]) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = label;
    select.appendChild(o);
  }
  select.value = [...select.options].some((o) => o.value === kept) ? kept : "all";
  select.dataset.players = String(players);
}

async function loadGames(from) {
  const request = ++gamesRequest;
  offset = typeof from === "number" ? Math.max(0, from) : 0;
  const d = $("dataset").value;
  if (!d) return;
  setViews(datasetPlayers[d] === 4 ? 4 : 2);
  const params = new URLSearchParams({ d, offset, limit: PAGE });
  for (const [k, v] of new FormData($("filters"))) if (v) params.set(k, v);
  const body = $("games").tBodies[0];
  body.textContent = "";
  let list;
  try { list = await api("/api/games?" + params); } catch (_) { $("game-count").textContent = ""; return; }
  if (request !== gamesRequest) return;
  body.dataset.dataset = d;
  const shown = offset + list.games.length;
  $("game-count").textContent = `${list.matched} of ${list.total} games` + (list.matched > list.games.length ? `, ${offset + 1}–${shown} shown` : "");
  $("more-games").hidden = shown >= list.matched;
  $("fewer-games").hidden = offset === 0;
  for (const g of list.games) {
    const tr = body.insertRow();
    tr.dataset.id = g.id;
    for (const v of [g.id, g.bots.join(" – "), g.result, g.termination, g.plies]) {
      const cell = tr.insertCell();
      cell.textContent = v;
      cell.title = v;
    }
    tr.cells[1].title = `${g.bots.join(" – ")} (${g.variant})`;
    tr.onclick = guard(() => openGame(d, g.id));
  }
}

async function openGame(d, id, keepPly) {
  const view = $("view").value;
  const four = datasetPlayers[d] === 4;
  if (four && !siguo.geo) siguo.geo = await api("/api/siguo/board");
  const data = await api(`/api/${four ? "siguo/game" : "game"}?d=${encodeURIComponent(d)}&id=${id}&view=${view}`);
  replay.data = data;
  replay.dataset = d;
  replay.id = id;
  if (!keepPly) replay.ply = 0;
  replay.ply = Math.min(replay.ply, data.frames.length - 1);
  document.querySelectorAll("#games tbody tr").forEach((tr) => tr.classList.toggle("chosen", tr.dataset.id == id));
  $("ply").max = data.frames.length - 1;
  $("replay-head").textContent = four
    ? `四国 game ${data.id}: ${data.bots.map((b, a) => `${b} (army ${a})`).join(" – ")}, ${data.result} by ${data.termination}, ${data.moves.length} plies, ${data.mode}`
    : `game ${data.id}: ${data.bots[0]} (seat 1) – ${data.bots[1]} (seat 2), ${data.result} by ${data.termination}, ${data.plies} plies, ${data.variant}` + (data.error ? ` — ${data.error}` : "");
  showPly();
}

// The link to what is shown (#replay?d=…&id=…&ply=…&view=…), kept in the
// address bar without a new history entry for every ply.
function setLink(tab, params) {
  const hash = "#" + tab + (params ? "?" + new URLSearchParams(params) : "");
  if (location.hash !== hash) history.replaceState(null, "", hash);
}

// The two-player board, or the four-player one, in the Replay tab.
function showReplayBoard(four) {
  $("replay-board").style.display = four ? "none" : "";
  $("replay-siguo-board").style.display = four ? "" : "none";
}

function showPly() {
  const data = replay.data;
  if (!data) return;
  showReplayBoard(data.game === "siguo");
  if (data.game === "siguo") return showSiguoPly(data);
  const f = data.frames[replay.ply];
  const flipped = data.view === "2";
  const tokens = f.board.split(" ");
  // A seat's frame says what the seat knew; the referee's tokens say it all.
  const known = f.knowledge || tally(tokens);
  drawBoard($("replay-board"), tokens, {
    marks: f.from ? [f.from, f.to] : [], flipped, hints: known.hints, mountains: f.mountains, flags: f.loose_flags,
  });
  showPieces($("replay-pieces"), known);
  setLink("replay", { d: replay.dataset, id: replay.id, ply: replay.ply, view: data.view });
  $("ply").value = replay.ply;
  $("ply-label").textContent = `ply ${replay.ply} / ${data.frames.length - 1}`;
  $("replay-event").textContent = f.event || "start";
  const caps = $("replay-captures");
  caps.textContent = "";
  for (let k = 1; k <= replay.ply; k++) {
    const e = data.frames[k].event;
    if (/ takes | loses to | trades with |captures the flag/.test(e)) {
      const li = document.createElement("li");
      li.textContent = `${k}. ${e}`;
      caps.appendChild(li);
    }
  }
  const s = data.samples.find((x) => x.ply === replay.ply);
  $("replay-sample").textContent = data.samples_error ? `the samples cannot be read: ${data.samples_error}` : s
    ? `seat ${s.seat}, value ${s.value == null ? "—" : s.value.toFixed(3)}, played ${s.played}; policy: ` + s.policy.map(([m, p]) => `${m} ${(p * 100).toFixed(1)}%`).join(", ")
    : "—";
}

// A four-player game's ply: its board turned so the viewing army (the
// referee's: army 0) sits at the bottom, the referee's announcement of the
// move, the attacks so far.
function showSiguoPly(data) {
  const k = replay.ply;
  const seat = data.view === "all" ? 0 : Number(data.view);
  drawSiguo($("replay-siguo-board"), data.frames[k], seat, { last: k > 0 ? data.moves[k - 1].split("-") : null });
  $("replay-pieces").textContent = "";
  setLink("replay", { d: replay.dataset, id: replay.id, ply: k, view: data.view });
  $("ply").value = k;
  $("ply-label").textContent = `ply ${k} / ${data.frames.length - 1}`;
  $("replay-event").textContent = k > 0 ? data.events[k - 1] : "start";
  const caps = $("replay-captures");
  caps.textContent = "";
  for (const e of data.events.slice(0, k)) {
    if (/AttackerWon|DefenderWon|BothRemoved|FlagCaptured/.test(e)) {
      const li = document.createElement("li");
      li.textContent = e;
      caps.appendChild(li);
    }
  }
  $("replay-sample").textContent = "—";
}

function step(to) {
  if (!replay.data) return;
  replay.ply = Math.max(0, Math.min(replay.data.frames.length - 1, to));
  showPly();
}

$("filters").onsubmit = (e) => { e.preventDefault(); guard(loadGames)(0); };
$("more-games").onclick = guard(() => loadGames(offset + PAGE));
$("fewer-games").onclick = guard(() => loadGames(offset - PAGE));
$("dataset").onchange = guard(() => loadGames(0));
$("first").onclick = () => step(0);
$("prev").onclick = () => step(replay.ply - 1);
$("next").onclick = () => step(replay.ply + 1);
$("last").onclick = () => step(1e9);
$("ply").oninput = (e) => step(Number(e.target.value));
$("view").onchange = guard(async () => { if (replay.id != null) await openGame(replay.dataset, replay.id, true); });
document.addEventListener("keydown", (e) => {
  if ($("replay").hidden || e.target.matches("input, select, textarea")) return;
  const keys = { ArrowLeft: -1, ArrowRight: 1 };
  if (e.key in keys) step(replay.ply + keys[e.key]);
  else if (e.key === "Home") step(0);
  else if (e.key === "End") step(1e9);
  else return;
  e.preventDefault();
});

// ---- play ----------------------------------------------------------------

const play = { state: null, selected: null, placement: null, dragFrom: null, marks: {} };

$("new-game").onsubmit = guard(async (e) => {
  e.preventDefault();
  const f = new FormData(e.target);
  const body = {
    mode: f.get("mode"),
    variant: f.get("variant") || null,
    options: f.get("options").split(/[\s,]+/).filter((x) => x),
    position: f.get("position").trim() || null,
    seat: Number(f.get("seat")),
    bot: f.get("bot") || "random",
    bot_later: true,
  };
  if (f.get("seed")) body.seed = Number(f.get("seed"));
  play.selected = null;
  play.marks = {};
  await advance(await post("/api/play", body));
});

// The variant presets of the newer rules (扛军旗, 山界), offered in the
// new-game form; choosing one sets its mode.
async function loadVariants() {
  const select = $("variant");
  for (const v of await api("/api/variants")) {
    const o = document.createElement("option");
    o.value = v.name;
    o.dataset.mode = v.mode;
    o.textContent = `${v.mode} ${v.options}`;
    select.appendChild(o);
  }
}
$("variant").onchange = () => {
  const chosen = $("variant").selectedOptions[0];
  if (chosen && chosen.dataset.mode) $("new-game").elements.mode.value = chosen.dataset.mode;
};
$("new-game").elements.mode.onchange = () => {
  const chosen = $("variant").selectedOptions[0];
  if (chosen && chosen.dataset.mode && chosen.dataset.mode !== $("new-game").elements.mode.value) $("variant").value = "";
};

// Show `st`; while it is the bot's turn, show it thinking and ask it to move.
async function advance(st) {
  showPlay(st);
  while (play.state.id === st.id && play.state.bot_to_move && play.state.phase === "play") {
    showPlay(await post(`/api/play/${st.id}/bot`));
  }
}

// The player's marks follow their piece: a marked piece that moved (or won
// its fight) takes its mark along; one that is gone loses it.
function followMarks(previous, st, tokens) {
  if (!previous || previous.id !== st.id) { play.marks = {}; return; }
  if (st.ply !== previous.ply + 1 || !st.last_move) return;
  const [from, to] = st.last_move;
  const enemy = tokens[squareIndex(to)] === enemyToken(st);
  const mark = play.marks[from];
  delete play.marks[from];
  if (mark !== undefined && enemy) play.marks[to] = mark;
  else if (!enemy) delete play.marks[to];
}

// The token of an enemy piece whose kind the player does not know (暗棋).
function enemyToken(st) {
  return st.colour === "red" ? "b?" : st.colour === "black" ? "r?" : null;
}

function showPlay(st) {
  const previous = play.state;
  play.state = st;
  showClocks(st);
  // Your side at the bottom: seat 2 in 翻棋 (colours come later), black in 暗棋 and 明棋.
  const flipped = st.mode === "fanqi" ? st.seat === 2 : st.colour === "black";
  const tokens = st.board.split(" ");
  $("deploy-controls").hidden = st.phase !== "deploy";
  $("resign").hidden = st.phase !== "play";
  $("record").hidden = st.phase !== "over";
  if (st.phase === "over") {
    $("record").href = `/api/play/${st.id}/record`;
    $("record").setAttribute("download", `junqi-game-${st.id}.jgn`);
  }
  setLink("play", { id: st.id });
  const you = `you are seat ${st.seat}` + (st.colour ? ` (${st.colour === "red" ? "红 red" : "黑 black"})` : "");
  const thinking = st.phase === "play" && st.bot_to_move;
  let status;
  if (st.phase === "deploy") status = `${st.mode}: deploy your pieces; ${you}; against ${st.bot}`;
  else if (st.phase === "over") status = `game over: ${st.result} by ${st.termination}${endingWords(st)} after ${st.ply} plies; ${you}; seed ${st.seed}` + (st.reveal ? "; every piece shown" : "");
  else status = `${st.mode}, ply ${st.ply}: ${thinking ? "the bot is thinking" : "your move"}; ${you}; against ${st.bot}`;
  $("play-status").textContent = status;
  $("play-status").dataset.phase = st.phase;
  if (thinking) $("play-status").dataset.thinking = "1";
  else delete $("play-status").dataset.thinking;
  $("play-board").classList.toggle("thinking", thinking);
  const log = $("play-log");
  log.textContent = "";
  for (const line of st.log) {
    const li = document.createElement("li");
    li.textContent = line;
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
  if (st.phase === "deploy") {
    if (!play.placement) play.placement = tokens;
    $("play-pieces").textContent = "";
    drawDeploy(flipped);
    return;
  }
  play.placement = null;
  followMarks(previous, st, tokens);
  showPieces($("play-pieces"), st);
  // At the end the referee's board: the pieces the player never saw are outlined.
  const shown = st.reveal ? st.reveal.split(" ") : tokens;
  const revealed = st.reveal ? geometry.squares.filter((_, i) => shown[i] !== tokens[i]).map((s) => s.name) : [];
  const targets = play.selected ? targetsFrom(play.selected).map(([place]) => place) : [];
  drawBoard($("play-board"), shown, {
    flipped,
    marks: st.last_move ? st.last_move : [],
    selected: play.selected,
    targets,
    revealed,
    notes: st.reveal ? {} : play.marks,
    hints: st.reveal ? {} : st.hints,
    mountains: st.mountains,
    flags: st.loose_flags,
    onSquare: st.your_turn ? guard(onPlaySquare) : null,
  });
}

// What the termination means, where its name does not say it.
function endingWords(st) {
  if (st.termination === "timeouts") {
    const youLost = st.result === (st.seat === 1 ? "0-1" : "1-0");
    return youLost ? " (you lost on time)" : " (the bot lost on time)";
  }
  if (st.termination === "flag_captured" && / flag_carry=true/.test(st.variant)) return " (the flag carried home)";
  return "";
}

// ---- clocks ----------------------------------------------------------------

// The clocks as last told, and when: the running one is counted down here
// between answers; the person's reaching zero asks the server, which ends
// the game on time.
const clockShown = { st: null, at: 0, asked: false };

function showClocks(st) {
  const box = $("play-clocks");
  box.hidden = !st.clocks;
  if (!st.clocks) { clockShown.st = null; return; }
  clockShown.asked = false;
  clockShown.st = st;
  clockShown.at = performance.now();
  $("clock-inc").textContent = `${st.clocks.tc} (+${st.clocks.inc_ms / 1000} s a move)`;
  tickClocks();
}

function clockText(ms) {
  const tenths = Math.max(0, Math.floor(ms / 100));
  const m = Math.floor(tenths / 600), sec = Math.floor(tenths / 10) % 60;
  return `${m}:${String(sec).padStart(2, "0")}.${tenths % 10}`;
}

function tickClocks() {
  const st = clockShown.st;
  if (!st || !st.clocks || play.state !== st) return;
  const c = st.clocks, spent = performance.now() - clockShown.at;
  for (const side of ["you", "bot"]) {
    const running = c.running === side && !(side === "bot" && st.phase !== "play");
    const left = c[side + "_ms"] - (running ? spent : 0);
    const span = $("clock-" + side);
    span.querySelector(".time").textContent = clockText(left);
    span.classList.toggle("running", running);
    span.dataset.ms = Math.max(0, Math.round(left));
    if (side === "you" && running && left <= 0 && !clockShown.asked) {
      clockShown.asked = true;
      guard(async () => showPlay(await api(`/api/play/${st.id}`)))();
    }
  }
}
setInterval(tickClocks, 100);

function movesFrom(square) {
  return play.state.legal.filter((m) => {
    const rest = m.slice(square.length);
    return m.startsWith(square) && /^[a-e]\d+$/.test(rest) && squareIndex(rest) >= 0;
  });
}

// The mountain beside `square` (0, 1), or -1.
function mountainOf(square) {
  return geometry.mountains.findIndex((sides) => sides.includes(square));
}

function tokenAt(square) {
  return play.state.board.split(" ")[squareIndex(square)];
}

// Where the person clicks, after choosing `from`, for each of its actions:
// [place, action]. An action naming one node twice is a flip (a face-down
// piece), a carrier putting its flag down (click the carrier again), a
// piece going into the mountain beside it (click the mountain), or, chosen
// from a mountain (`m0`, `m1`), its piece coming out onto that node.
function targetsFrom(from) {
  const st = play.state;
  if (from.startsWith("m")) {
    const m = Number(from.slice(1));
    return geometry.mountains[m].filter((sq) => tokenAt(sq) === "." && st.legal.includes(sq + sq)).map((sq) => [sq, sq + sq]);
  }
  const carrier = (st.loose_flags || []).some((f) => f.carried && f.at === from);
  return movesFrom(from).map((mv) => {
    if (mv !== from + from) return [mv.slice(from.length), mv];
    if (tokenAt(from) === "#") return [from, mv];
    return [carrier ? from : "m" + mountainOf(from), mv];
  });
}

async function playMove(mv) {
  play.selected = null;
  await advance(await post(`/api/play/${play.state.id}/move`, { move: mv, bot_later: true }));
}

async function onPlaySquare(square) {
  const st = play.state;
  const chosen = play.selected && targetsFrom(play.selected).find(([place]) => place === square);
  if (chosen) return playMove(chosen[1]);
  const targets = square.startsWith("m") && !(st.mountains || [])[Number(square.slice(1))] ? [] : targetsFrom(square);
  // A face-down piece has one action, its flip: one click does it.
  if (targets.length === 1 && tokenAt(square) === "#" && targets[0][1] === square + square) return playMove(targets[0][1]);
  play.selected = targets.length ? square : null;
  showPlay(st);
}

// ---- marks on enemy pieces -----------------------------------------------

// Right-click (or a long press) on an enemy piece of unknown kind opens a
// menu: one kind, "≥ kind" (at least that rank), or no mark.
function openMarkMenu(square, x, y) {
  const menu = $("mark-menu");
  menu.textContent = "";
  menu.dataset.square = square;
  const row = (label) => {
    const div = document.createElement("div");
    if (label) div.textContent = label + " ";
    menu.appendChild(div);
    return div;
  };
  const button = (parent, text, mark) => {
    const b = document.createElement("button");
    b.textContent = text;
    b.dataset.mark = mark;
    b.onclick = () => setMark(square, mark);
    parent.appendChild(b);
  };
  const exact = row(`mark ${square}:`);
  for (const k of geometry.kinds) button(exact, k.chinese, k.chinese);
  const atLeast = row("at least");
  for (const k of geometry.kinds.slice(1, 8)) button(atLeast, "≥" + k.chinese[0], "≥" + k.chinese[0]);
  button(row(), "no mark", "");
  menu.style.left = `${x + window.scrollX}px`;
  menu.style.top = `${y + window.scrollY}px`;
  menu.hidden = false;
}

function setMark(square, mark) {
  if (mark) play.marks[square] = mark;
  else delete play.marks[square];
  $("mark-menu").hidden = true;
  showPlay(play.state);
}

function markable(square) {
  const st = play.state;
  if (!st || st.phase !== "play") return false;
  return st.board.split(" ")[squareIndex(square)] === enemyToken(st);
}

$("play-board").addEventListener("contextmenu", (e) => {
  const t = e.target.closest("[data-square]");
  if (!t || !markable(t.dataset.square)) return;
  e.preventDefault();
  openMarkMenu(t.dataset.square, e.clientX, e.clientY);
});
// A long press on a touch screen, where there is no right button.
let pressTimer = null;
$("play-board").addEventListener("pointerdown", (e) => {
  clearTimeout(pressTimer);
  const t = e.target.closest("[data-square]");
  if (e.pointerType !== "touch" || !t || !markable(t.dataset.square)) return;
  pressTimer = setTimeout(() => openMarkMenu(t.dataset.square, e.clientX, e.clientY), 550);
});
for (const ev of ["pointerup", "pointercancel", "pointermove"]) $("play-board").addEventListener(ev, () => clearTimeout(pressTimer));
document.addEventListener("click", (e) => {
  if (!e.target.closest("#mark-menu")) $("mark-menu").hidden = true;
});

function drawDeploy(flipped) {
  const svg = $("play-board");
  drawBoard(svg, play.placement, { flipped, selected: play.selected, targets: [] });
  svg.onpointerdown = (e) => {
    const t = e.target.closest("[data-square]");
    play.dragFrom = t && play.state.zone.includes(t.dataset.square) ? t.dataset.square : null;
  };
  svg.onpointerup = (e) => {
    const t = e.target.closest("[data-square]");
    const to = t ? t.dataset.square : null;
    const from = play.dragFrom;
    play.dragFrom = null;
    if (!to || !play.state.zone.includes(to)) return;
    if (from && from !== to) swap(from, to);
    else if (play.selected && play.selected !== to) swap(play.selected, to);
    else play.selected = play.selected === to ? null : to;
    drawDeploy(flipped);
  };
}

function swap(a, b) {
  showError("");
  const i = squareIndex(a), j = squareIndex(b);
  [play.placement[i], play.placement[j]] = [play.placement[j], play.placement[i]];
  play.selected = null;
}

$("shuffle").onclick = guard(async () => {
  play.placement = null;
  showPlay(await post(`/api/play/${play.state.id}/shuffle`));
});
$("deploy-done").onclick = guard(async () => {
  const placement = {};
  play.placement.forEach((t, i) => { if (t !== ".") placement[geometry.squares[i].name] = t.slice(1); });
  const st = await post(`/api/play/${play.state.id}/deploy`, { placement, bot_later: true });
  play.placement = null;
  await advance(st);
});
$("resign").onclick = guard(async () => showPlay(await post(`/api/play/${play.state.id}/resign`)));

// ---- runs ----------------------------------------------------------------

let chosenRun = null;

async function loadRuns() {
  const list = await api("/api/runs");
  const ul = $("run-list");
  ul.textContent = "";
  for (const r of list) {
    const li = document.createElement("li");
    li.textContent = `${r.kind}: ${r.id}`;
    li.dataset.id = r.id;
    li.onclick = () => { chosenRun = r.id; guard(showRun)(); };
    ul.appendChild(li);
  }
  if (!list.length) ul.textContent = "No runs below the --runs directories.";
}

async function showRun() {
  clearTimeout(runsTimer);
  if (!chosenRun || $("runs").hidden) return;
  document.querySelectorAll("#run-list li").forEach((li) => li.classList.toggle("chosen", li.dataset.id === chosenRun));
  setLink("runs", { d: chosenRun });
  let report;
  try { report = await api(`/api/run?d=${encodeURIComponent(chosenRun)}`); } catch (_) { return; }
  const view = $("run-view");
  view.textContent = "";
  const h = document.createElement("h2");
  h.textContent = `${report.kind}: ${report.id}`;
  view.appendChild(h);
  if (report.generations.length) view.appendChild(generationsTable(report.generations));
  if (report.live.length) {
    const title = document.createElement("h3");
    title.textContent = "Games on disk now";
    view.appendChild(title);
    const table = document.createElement("table");
    table.className = "report live";
    const head = table.insertRow();
    for (const c of ["", "games", "points", "first mover"]) {
      const th = document.createElement("th");
      th.textContent = c;
      head.appendChild(th);
    }
    for (const r of report.live) {
      const tr = table.insertRow();
      tr.insertCell().textContent = r.name;
      tr.insertCell().textContent = r.games;
      tr.insertCell().textContent = r.points.map(([bot, p]) => `${bot} ${p}`).join(", ");
      tr.insertCell().textContent = r.games ? `${(100 * r.first_mover).toFixed(1)}%` : "—";
    }
    view.appendChild(table);
  }
  for (const f of report.files) {
    const title = document.createElement("h3");
    title.textContent = f.name;
    view.appendChild(title);
    if (f.format === "svg") {
      const img = document.createElement("img");
      img.src = `/api/run/file?d=${encodeURIComponent(report.id)}&name=${encodeURIComponent(f.name)}&t=${Date.now()}`;
      img.alt = f.name;
      view.appendChild(img);
    } else if (f.format === "markdown" && f.text != null) {
      view.appendChild(renderMarkdown(f.text));
    } else {
      // CSV and JSON: the same numbers as the tables, folded away.
      const details = document.createElement("details");
      const summary = document.createElement("summary");
      summary.textContent = `${f.format}, ${f.bytes} bytes`;
      const pre = document.createElement("pre");
      pre.textContent = f.text == null ? "(too large to show)" : f.text;
      details.append(summary, pre);
      view.appendChild(details);
    }
  }
  runsTimer = setTimeout(guard(showRun), 5000);
}

// A loop's generations: Elo against each anchor with its interval, losses.
function generationsTable(rows) {
  const anchors = [];
  for (const r of rows) for (const [a] of r.elo) if (!anchors.includes(a)) anchors.push(a);
  const table = document.createElement("table");
  table.className = "report generations";
  const head = table.insertRow();
  const titles = ["gen", "minutes", "state", "games", "step", "policy loss", "value loss", "belief loss", ...anchors.map((a) => `Elo vs ${a}`)];
  for (const t of titles) {
    const th = document.createElement("th");
    th.textContent = t;
    head.appendChild(th);
  }
  const num = (x, d) => (x == null ? "" : x.toFixed(d));
  for (const r of rows) {
    const tr = table.insertRow();
    const cells = [r.generation, num(r.minutes, 1), r.done ? (r.promoted ? "promoted" : "done") : "running",
      r.selfplay_games, r.train_step, num(r.policy_loss, 3), num(r.value_loss, 3), num(r.belief_loss, 3)];
    for (const a of anchors) {
      const e = r.elo.find(([name]) => name === a);
      cells.push(e ? `${e[1][0] >= 0 ? "+" : ""}${e[1][0].toFixed(0)} [${e[1][1].toFixed(0)}, ${e[1][2].toFixed(0)}]` : "");
    }
    for (const c of cells) tr.insertCell().textContent = c;
  }
  const box = document.createElement("div");
  const title = document.createElement("h3");
  title.textContent = "Generations (state.json, now)";
  box.append(title, table);
  return box;
}

// The reports' Markdown: headings, tables and paragraphs (all as text,
// never as HTML), enough for the tables and notes the runs write.
function renderMarkdown(text) {
  const box = document.createElement("div");
  box.className = "report";
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^#+ /.test(line)) {
      const h = document.createElement("h4");
      h.textContent = line.replace(/^#+ /, "");
      box.appendChild(h);
    } else if (line.startsWith("|")) {
      const table = document.createElement("table");
      let header = true;
      for (; i < lines.length && lines[i].startsWith("|"); i++) {
        const cells = lines[i].replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
        if (cells.every((c) => /^:?-+:?$/.test(c))) { header = false; continue; }
        const tr = table.insertRow();
        for (const c of cells) {
          const cell = document.createElement(header ? "th" : "td");
          cell.textContent = c.replace(/\*\*/g, "").replace(/`/g, "");
          tr.appendChild(cell);
        }
      }
      i--;
      box.appendChild(table);
    } else if (line.trim()) {
      const p = document.createElement("p");
      p.textContent = line.replace(/\*\*/g, "").replace(/`/g, "");
      box.appendChild(p);
    }
  }
  return box;
}

// ---- start ---------------------------------------------------------------

guard(async () => {
  geometry = await api("/api/board");
  for (const k of geometry.kinds) kinds[k.letter] = k;
  drawBoard($("replay-board"), null, {});
  drawBoard($("play-board"), null, {});
  await loadVariants();
  await loadDatasets();
  await route();
})();

// ---- 四国: the four-player game ------------------------------------------
// The server sends 129 tokens in node order: "." (empty), "{army}{letter}"
// (a kind the person's seat knows) or "{army}?" (a piece whose kind the seat
// does not know). The geometry is junqi-siguo's (GET /api/siguo/board).

// `placement`: while deploying, the person's pieces as edited on the page.
const siguo = { geo: null, state: null, selected: null, placement: null };
const ARMY_COLOURS = ["#c0392b", "#7d3c98", "#1f5fa8", "#2e8b57"];

// Node `i` on the page, turned so the person's army sits at the bottom.
function siguoPlace(i, seat) {
  const n = siguo.geo.nodes[i];
  let dx = n.x - 8, dy = n.y - 8;
  for (let k = 0; k < seat; k++) [dx, dy] = [-dy, dx];
  return [30 + 40 * (8 + dx), 30 + 40 * (8 + dy)];
}

function drawSiguo(svg, tokens, seat, opts) {
  svg.replaceChildren();
  const g = siguo.geo;
  const tints = ["#f6d5d0", "#e0d4ef", "#d3e2f4", "#d6ecd4"];
  for (let a = 0; a < 4; a++) {
    const pts = g.nodes.map((_, i) => i).filter((i) => g.nodes[i].army === a).map((i) => siguoPlace(i, seat));
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    el("rect", { x: Math.min(...xs) - 15, y: Math.min(...ys) - 15, width: Math.max(...xs) - Math.min(...xs) + 30,
      height: Math.max(...ys) - Math.min(...ys) + 30, fill: tints[a] }, svg);
  }
  for (const [a, b] of g.road) {
    const [x1, y1] = siguoPlace(a, seat), [x2, y2] = siguoPlace(b, seat);
    el("line", { x1, y1, x2, y2, stroke: "#777", "stroke-width": 1 }, svg);
  }
  for (const [a, b] of g.rail) {
    const [x1, y1] = siguoPlace(a, seat), [x2, y2] = siguoPlace(b, seat);
    if (x1 !== x2 && y1 !== y2) {
      // A corner arc: drawn from the file-e end, as docs/siguo-board.svg.
      const na = g.nodes[a];
      const [f, t] = na.army !== null && na.name[1] === "e" ? [[x1, y1], [x2, y2]] : [[x2, y2], [x1, y1]];
      el("path", { d: `M ${f[0]} ${f[1]} A 40 40 0 0 1 ${t[0]} ${t[1]}`, fill: "none", stroke: "#111", "stroke-width": 4 }, svg);
    } else {
      el("line", { x1, y1, x2, y2, stroke: "#111", "stroke-width": 4 }, svg);
    }
  }
  g.nodes.forEach((n, i) => {
    const [x, y] = siguoPlace(i, seat);
    const node = el("g", { class: "sg-node", "data-node": n.name }, svg);
    if (n.kind === "camp") el("circle", { cx: x, cy: y, r: 14, fill: "#fff", stroke: "#333" }, node);
    else el("rect", { x: x - 15, y: y - 9, width: 30, height: 18, fill: "#fff", stroke: "#333",
      "stroke-width": n.kind === "headquarters" ? 2 : 1 }, node);
    const t = tokens[i];
    if (t && t !== ".") {
      const army = Number(t[0]), letter = t.slice(1);
      const piece = el("g", { class: "piece" + (letter === "?" ? " unknown" : "") + (opts.selected === n.name ? " selected" : ""),
        "data-army": army }, node);
      el("rect", { x: x - 17, y: y - 11, width: 34, height: 22, rx: 3, fill: ARMY_COLOURS[army],
        opacity: letter === "?" ? 0.55 : 1, stroke: opts.selected === n.name ? "#f1c40f" : "#222",
        "stroke-width": opts.selected === n.name ? 3 : 1 }, piece);
      const label = el("text", { x, y }, piece);
      label.textContent = letter === "?" ? "?" : kindName(letter);
    }
    if (opts.targets && opts.targets.includes(n.name)) {
      el("circle", { cx: x, cy: y, r: 6, fill: "#f1c40f", class: "target" }, node);
    }
    if (opts.last && opts.last.includes(n.name)) {
      el("rect", { x: x - 19, y: y - 13, width: 38, height: 26, fill: "none", stroke: "#e67e22", "stroke-width": 2 }, node);
    }
    if (opts.onClick) node.addEventListener("click", () => opts.onClick(n.name));
  });
}

function siguoTargets(from) {
  return siguo.state.legal.filter((m) => m.startsWith(from + "-")).map((m) => m.slice(from.length + 1));
}

function showSiguo(st) {
  siguo.state = st;
  const deploying = st.phase === "deploy";
  if (!deploying) siguo.placement = null;
  else if (!siguo.placement) siguo.placement = st.board.slice();
  const status = deploying
    ? `Deploy your army (army ${st.seat}, team ${st.team}): swap pieces, then start the game.`
    : st.phase === "over"
    ? `Game over: ${st.result} (${st.termination}); your team ${st.team}: ${st.your_result}.`
    : st.your_turn ? `Your move (army ${st.seat}, team ${st.team}).` : `Army ${st.turn} (${st.players[st.turn]}) is thinking…`;
  $("siguo-status").textContent = `${st.mode} · ply ${st.ply} · ${status}`;
  const tokens = deploying ? siguo.placement : st.phase === "over" && st.reveal ? st.reveal : st.board;
  drawSiguo($("siguo-board"), tokens, st.seat, {
    selected: siguo.selected,
    targets: siguo.selected && !deploying ? siguoTargets(siguo.selected) : [],
    last: st.last_move,
    onClick: guard(deploying ? onSiguoDeployNode : onSiguoNode),
  });
  $("siguo-deploy-controls").hidden = !deploying;
  $("siguo-resign").hidden = st.phase !== "play";
  $("siguo-record").hidden = st.phase !== "over";
  if (st.phase === "over") {
    $("siguo-record").href = `/api/play/siguo/${st.id}/record`;
    $("siguo-record").setAttribute("download", `junqi-siguo-game-${st.id}.jgn`);
  }
  $("siguo-armies").replaceChildren(...st.players.map((p, a) => {
    const li = document.createElement("li");
    li.style.color = ARMY_COLOURS[a];
    li.textContent = `army ${a} (team ${a % 2 ? "B" : "A"}): ${p}` + (st.ended[a] ? ` — ended (${st.ended[a]})` : "");
    return li;
  }));
  $("siguo-log").replaceChildren(...st.log.slice(-40).map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
}

async function siguoAdvance(st) {
  showSiguo(st);
  while (siguo.state.id === st.id && siguo.state.bot_to_move && siguo.state.phase === "play") {
    showSiguo(await post(`/api/play/siguo/${st.id}/bot`));
  }
}

// While deploying: a click chooses one of your pieces, a second click on
// another swaps the two (checked by the server when the game starts).
function onSiguoDeployNode(name) {
  const st = siguo.state;
  if (!st.zone.includes(name)) return;
  const index = (n) => siguo.geo.nodes.findIndex((x) => x.name === n);
  if (siguo.selected && siguo.selected !== name) {
    const i = index(siguo.selected), j = index(name);
    [siguo.placement[i], siguo.placement[j]] = [siguo.placement[j], siguo.placement[i]];
    siguo.selected = null;
  } else {
    siguo.selected = siguo.selected === name ? null : name;
  }
  showSiguo(st);
}

$("siguo-shuffle").onclick = guard(async () => {
  siguo.placement = null;
  siguo.selected = null;
  showSiguo(await post(`/api/play/siguo/${siguo.state.id}/shuffle`));
});

$("siguo-deploy-done").onclick = guard(async () => {
  const placement = {};
  siguo.placement.forEach((t, i) => { if (t !== ".") placement[siguo.geo.nodes[i].name] = t.slice(1); });
  const st = await post(`/api/play/siguo/${siguo.state.id}/deploy`, { placement, bot_later: true });
  siguo.placement = null;
  siguo.selected = null;
  await siguoAdvance(st);
});

async function onSiguoNode(name) {
  const st = siguo.state;
  if (!st || !st.your_turn) return;
  if (siguo.selected && st.legal.includes(`${siguo.selected}-${name}`)) {
    const mv = `${siguo.selected}-${name}`;
    siguo.selected = null;
    return siguoAdvance(await post(`/api/play/siguo/${st.id}/move`, { move: mv, bot_later: true }));
  }
  siguo.selected = siguoTargets(name).length ? name : null;
  showSiguo(st);
}

$("siguo-new").onsubmit = guard(async (e) => {
  e.preventDefault();
  const f = new FormData(e.target);
  const seat = Number(f.get("seat"));
  const ally = f.get("ally") || "heuristic", enemies = f.get("enemies") || "heuristic";
  const bots = [0, 1, 2, 3].map((a) => (a === seat ? "" : (a - seat) % 2 === 0 ? ally : enemies));
  const body = { mode: f.get("mode"), options: f.get("options").split(/[\s,]+/).filter((x) => x), seat, bots, bot_later: true };
  if (f.get("seed")) body.seed = Number(f.get("seed"));
  if (!siguo.geo) siguo.geo = await api("/api/siguo/board");
  siguo.selected = null;
  siguo.placement = null;
  await siguoAdvance(await post("/api/play/siguo", body));
});

$("siguo-resign").onclick = guard(async () => {
  showSiguo(await post(`/api/play/siguo/${siguo.state.id}/resign`));
});

// A stored four-player game (`junqi selfplay --siguo`), step by step, as the
// referee or one seat saw it (GET /api/siguo/game).
const siguoReplay = { data: null };

function showSiguoFrame(k) {
  const r = siguoReplay.data;
  const seat = r.view === "all" ? 0 : Number(r.view);
  $("siguo-ply").value = k;
  $("siguo-ply-label").textContent = `ply ${k} / ${r.moves.length}`;
  const last = k > 0 ? r.moves[k - 1].split("-") : null;
  drawSiguo($("siguo-board"), r.frames[k], seat, { last });
  $("siguo-status").textContent = `replay of game ${r.id} (${r.mode}, seen by ${r.view === "all" ? "the referee" : "army " + r.view})`
    + ` · ${r.result} (${r.termination})` + (k > 0 ? ` · ${r.events[k - 1]}` : "");
  $("siguo-resign").hidden = true;
  $("siguo-deploy-controls").hidden = true;
  $("siguo-record").hidden = true;
  $("siguo-armies").replaceChildren(...r.bots.map((b, a) => {
    const li = document.createElement("li");
    li.style.color = ARMY_COLOURS[a];
    li.textContent = `army ${a} (team ${a % 2 ? "B" : "A"}): ${b}`;
    return li;
  }));
}

$("siguo-replay").onsubmit = guard(async (e) => {
  e.preventDefault();
  const f = new FormData(e.target);
  if (!siguo.geo) siguo.geo = await api("/api/siguo/board");
  const q = new URLSearchParams({ d: f.get("d"), id: f.get("id") || "0", view: f.get("view") });
  siguoReplay.data = await api(`/api/siguo/game?${q}`);
  siguo.state = null;
  $("siguo-ply").max = siguoReplay.data.moves.length;
  showSiguoFrame(0);
});

$("siguo-ply").addEventListener("input", () => {
  if (siguoReplay.data) showSiguoFrame(Number($("siguo-ply").value));
});
