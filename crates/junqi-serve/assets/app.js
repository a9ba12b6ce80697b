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
// handles clicks, `opts.selected` a square whose piece is chosen.
function drawBoard(svg, tokens, opts) {
  opts = opts || {};
  svg.textContent = "";
  const flipped = !!opts.flipped;
  for (const e of geometry.edges) {
    const [x1, y1] = place(e.a, flipped), [x2, y2] = place(e.b, flipped);
    el("line", { x1, y1, x2, y2, class: e.rail ? "edge rail" : "edge" }, svg);
  }
  const midY = (place(squareIndex("a6"), flipped)[1] + place(squareIndex("a7"), flipped)[1]) / 2;
  el("text", { x: 130, y: midY, class: "front" }, svg).textContent = "山 界";
  el("text", { x: 290, y: midY, class: "front" }, svg).textContent = "山 界";
  geometry.squares.forEach((sq, i) => {
    const [x, y] = place(i, flipped);
    const cls = "node" + (sq.camp ? " camp" : "") + (sq.hq ? " hq" : "");
    let node;
    if (sq.camp) node = el("circle", { cx: x, cy: y, r: 22, class: cls }, svg);
    else if (sq.hq) node = el("rect", { x: x - 30, y: y - 18, width: 60, height: 36, rx: 14, class: cls }, svg);
    else node = el("rect", { x: x - 28, y: y - 15, width: 56, height: 30, class: cls }, svg);
    node.dataset.square = sq.name;
    const token = tokens ? tokens[i] : ".";
    if (token && token !== ".") drawPiece(svg, token, x, y, sq.name, opts.selected === sq.name);
    if (opts.marks && opts.marks.includes(sq.name)) el("rect", { x: x - 32, y: y - 19, width: 64, height: 38, class: "mark" }, svg);
    if (opts.targets && opts.targets.includes(sq.name)) {
      const t = el("circle", { cx: x, cy: y, r: 10, class: "target" }, svg);
      t.dataset.square = sq.name;
    }
  });
  if (opts.onSquare) {
    svg.onclick = (ev) => {
      const target = ev.target.closest("[data-square]");
      if (target) opts.onSquare(target.dataset.square);
    };
  } else {
    svg.onclick = null;
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

function drawPiece(svg, token, x, y, square, selected) {
  const [cls, text] = pieceText(token);
  const g = el("g", { class: "piece " + cls + (selected ? " selected" : ""), "data-square": square, "data-token": token }, svg);
  el("rect", { x: x - 26, y: y - 14, width: 52, height: 28, rx: 4 }, g);
  el("text", { x, y }, g).textContent = text;
}

// ---- tabs ----------------------------------------------------------------

let runsTimer = null;
document.querySelectorAll("nav button").forEach((b) => {
  b.onclick = () => {
    document.querySelectorAll("nav button").forEach((x) => x.classList.toggle("active", x === b));
    document.querySelectorAll(".tab").forEach((t) => (t.hidden = t.id !== b.dataset.tab));
    if (b.dataset.tab === "runs") guard(loadRuns)();
  };
});

// ---- replay --------------------------------------------------------------

const replay = { data: null, ply: 0, dataset: null, id: null };

async function loadDatasets() {
  const list = await api("/api/datasets");
  const select = $("dataset");
  select.textContent = "";
  for (const d of list) {
    const o = document.createElement("option");
    o.value = d.id;
    o.textContent = `${d.id} (${d.shards} shard${d.shards === 1 ? "" : "s"})`;
    select.appendChild(o);
  }
  if (list.length) loadGames();
  else $("game-count").textContent = "No datasets below the --runs directories.";
}

const PAGE = 200;
let offset = 0;

async function loadGames(from) {
  offset = typeof from === "number" ? Math.max(0, from) : 0;
  const d = $("dataset").value;
  if (!d) return;
  const params = new URLSearchParams({ d, offset, limit: PAGE });
  for (const [k, v] of new FormData($("filters"))) if (v) params.set(k, v);
  const body = $("games").tBodies[0];
  body.textContent = "";
  let list;
  try { list = await api("/api/games?" + params); } catch (_) { $("game-count").textContent = ""; return; }
  const shown = offset + list.games.length;
  $("game-count").textContent = `${list.matched} of ${list.total} games` + (list.matched > list.games.length ? `, ${offset + 1}–${shown} shown` : "");
  $("more-games").hidden = shown >= list.matched;
  $("fewer-games").hidden = offset === 0;
  for (const g of list.games) {
    const tr = body.insertRow();
    tr.dataset.id = g.id;
    for (const v of [g.id, g.bots.join(" – "), g.result, g.termination, g.plies]) tr.insertCell().textContent = v;
    tr.title = g.variant;
    tr.onclick = guard(() => openGame(d, g.id));
  }
}

async function openGame(d, id, keepPly) {
  const view = $("view").value;
  const data = await api(`/api/game?d=${encodeURIComponent(d)}&id=${id}&view=${view}`);
  replay.data = data;
  replay.dataset = d;
  replay.id = id;
  if (!keepPly) replay.ply = 0;
  replay.ply = Math.min(replay.ply, data.frames.length - 1);
  document.querySelectorAll("#games tbody tr").forEach((tr) => tr.classList.toggle("chosen", tr.dataset.id == id));
  $("ply").max = data.frames.length - 1;
  $("replay-head").textContent = `game ${data.id}: ${data.bots[0]} (seat 1) – ${data.bots[1]} (seat 2), ${data.result} by ${data.termination}, ${data.plies} plies, ${data.variant}` + (data.error ? ` — ${data.error}` : "");
  showPly();
}

function showPly() {
  const data = replay.data;
  if (!data) return;
  const f = data.frames[replay.ply];
  const flipped = data.view === "2";
  drawBoard($("replay-board"), f.board.split(" "), { marks: f.from ? [f.from, f.to] : [], flipped });
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

const play = { state: null, selected: null, placement: null, dragFrom: null };

$("new-game").onsubmit = guard(async (e) => {
  e.preventDefault();
  const f = new FormData(e.target);
  const body = {
    mode: f.get("mode"),
    options: f.get("options").split(/[\s,]+/).filter((x) => x),
    seat: Number(f.get("seat")),
    bot: f.get("bot") || "random",
  };
  if (f.get("seed")) body.seed = Number(f.get("seed"));
  play.selected = null;
  showPlay(await post("/api/play", body));
});

function showPlay(st) {
  play.state = st;
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
  const you = `you are seat ${st.seat}` + (st.colour ? ` (${st.colour === "red" ? "红 red" : "黑 black"})` : "");
  let status;
  if (st.phase === "deploy") status = `${st.mode}: deploy your pieces; ${you}; against ${st.bot}`;
  else if (st.phase === "over") status = `game over: ${st.result} by ${st.termination} after ${st.ply} plies; ${you}; seed ${st.seed}`;
  else status = `${st.mode}, ply ${st.ply}: ${st.your_turn ? "your move" : "the bot is thinking"}; ${you}; against ${st.bot}`;
  $("play-status").textContent = status;
  $("play-status").dataset.phase = st.phase;
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
    drawDeploy(flipped);
    return;
  }
  play.placement = null;
  const targets = play.selected ? st.legal.filter((m) => m.startsWith(play.selected + "")).map((m) => m.slice(play.selected.length)) : [];
  drawBoard($("play-board"), tokens, {
    flipped,
    marks: st.last_move ? st.last_move : [],
    selected: play.selected,
    targets,
    onSquare: st.your_turn ? guard(onPlaySquare) : null,
  });
}

function movesFrom(square) {
  return play.state.legal.filter((m) => {
    const rest = m.slice(square.length);
    return m.startsWith(square) && /^[a-e]\d+$/.test(rest) && squareIndex(rest) >= 0;
  });
}

async function onPlaySquare(square) {
  const st = play.state;
  if (play.selected) {
    const mv = play.selected + square;
    if (st.legal.includes(mv)) {
      play.selected = null;
      showPlay(await post(`/api/play/${st.id}/move`, { move: mv }));
      return;
    }
  }
  play.selected = movesFrom(square).length ? square : null;
  showPlay(st);
}

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
  const st = await post(`/api/play/${play.state.id}/deploy`, { placement });
  play.placement = null;
  showPlay(st);
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
  await loadDatasets();
})();
