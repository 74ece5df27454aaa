// The page of `shax serve`: plain JavaScript over the JSON API, no build step.
// State: the rule set, the actions from the start (with who played each), the
// answer of /v1/legal for them. The board is drawn from /v1/rules' geometry.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const game = { rules: null, sets: [], moves: [], by: [], legal: [], status: null, board: null,
  human: "white", tier: null, selected: null, gen: 0 };

async function api(path, body) {
  const opts = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body) };
  const res = await fetch(path, opts);
  const data = await res.json();
  if (!res.ok) throw Object.assign(new Error(data.error || res.statusText), { status: res.status });
  return data;
}

const xy = (p) => [50 + p.file * 100, 50 + (7 - p.rank) * 100];
function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function drawBoard() {
  const svg = $("board");
  svg.textContent = "";
  const pts = Object.fromEntries(game.rules.board.points.map((p) => [p.name, p]));
  for (const line of game.rules.board.lines) {
    for (let i = 0; i < line.length; i++) for (let j = i + 1; j < line.length; j++) {
      const [x1, y1] = xy(pts[line[i]]), [x2, y2] = xy(pts[line[j]]);
      el("line", { x1, y1, x2, y2, class: "line" }, svg);
    }
  }
  for (const p of game.rules.board.points) {
    const [cx, cy] = xy(p);
    el("circle", { cx, cy, r: 9, class: "pt" }, svg);
  }
  // Coordinates on the edges, as on a chess board: files below, ranks on the left.
  const files = new Map(), ranks = new Map();
  for (const p of game.rules.board.points) {
    files.set(p.file, p.name.replace(/[0-9]+$/, ""));
    ranks.set(p.rank, p.name.replace(/^[a-z]+/, ""));
  }
  for (const [file, name] of files) {
    const t = el("text", { x: xy({ file, rank: 0 })[0], y: 694, class: "label" }, svg);
    t.textContent = name;
  }
  for (const [rank, name] of ranks) {
    const t = el("text", { x: 13, y: xy({ file: 0, rank })[1] + 6, class: "label" }, svg);
    t.textContent = name;
  }
  game.pieceLayer = el("g", {}, svg);
  game.hitLayer = el("g", {}, svg);
  for (const p of game.rules.board.points) {
    const [cx, cy] = xy(p);
    const hit = el("circle", { cx, cy, r: 40, class: "hit", "data-point": p.name }, game.hitLayer);
    hit.addEventListener("click", () => clickPoint(p.name));
  }
}

// The points the human may click now, and what is selected.
function targets() {
  const out = new Set();
  if (!humanToAct()) return out;
  for (const a of game.legal) {
    if (game.selected) {
      if (a.startsWith(game.selected + "-")) out.add(a.split("-")[1]);
    } else if (a.startsWith("x")) out.add(a.slice(1));
    else if (a.includes("-")) out.add(a.split("-")[0]);
    else out.add(a);
  }
  return out;
}

function drawPieces() {
  const layer = game.pieceLayer;
  layer.textContent = "";
  const pts = Object.fromEntries(game.rules.board.points.map((p) => [p.name, p]));
  const last = game.moves.length ? game.moves[game.moves.length - 1].replace(/^x/, "").split("-").pop() : null;
  for (const color of ["white", "black"]) {
    for (const name of game.board[color]) {
      const [cx, cy] = xy(pts[name]);
      let cls = `piece ${color}`;
      if (name === last) cls += " last";
      if (name === game.selected) cls += " selected";
      el("circle", { cx, cy, r: 30, class: cls, "data-point": name }, layer);
    }
  }
  const t = targets();
  for (const hit of game.hitLayer.children) hit.classList.toggle("target", t.has(hit.dataset.point));
}

const humanToAct = () => game.status && !game.status.over && game.status.to_act === game.human;

function drawSide() {
  const s = game.status;
  const cap = (c) => c[0].toUpperCase() + c.slice(1);
  let text = s.text;
  if (!s.over) text += humanToAct() ? " Your turn." : ` ${cap(game.tier)} is thinking...`;
  $("status").textContent = text;
  $("hands").textContent = `In hand: White ${s.hand.white}, Black ${s.hand.black}. ` +
    `On the board: White ${s.on_board.white}, Black ${s.on_board.black}.`;
  const rec = $("record");
  rec.textContent = "";
  game.moves.forEach((m, i) => {
    const li = document.createElement("li");
    li.textContent = `${game.by[i] === "white" ? "White" : "Black"} ${m}`;
    rec.appendChild(li);
  });
  rec.scrollTop = rec.scrollHeight;
  document.body.dataset.turn = s.over ? "over" : humanToAct() ? "human" : "bot";
  $("undo").disabled = !game.by.includes(game.human);
  $("download").disabled = false;
}

async function refresh() {
  const gen = game.gen;
  let r;
  try {
    r = await api("v1/legal", { rules: game.rules.name, moves: game.moves });
  } catch (e) {
    return retryLater(gen, e, () => refresh().catch(showError));
  }
  if (gen !== game.gen) return;
  $("error").textContent = "";
  Object.assign(game, { legal: r.legal, status: r.status, board: r.board, selected: null });
  drawPieces();
  drawSide();
  if (!r.status.over && !humanToAct()) botMove();
}

async function botMove() {
  const gen = game.gen;
  try {
    const r = await api("v1/move", { rules: game.rules.name, moves: game.moves, tier: game.tier,
      seed: Math.floor(Math.random() * 1e9) });
    if (gen !== game.gen) return;
    play(r.action);
  } catch (e) {
    retryLater(gen, e, botMove);
  }
}

// A request of generation `gen` failed: unless the moves have changed since,
// try `again` in a second; a request the server refuses (4xx) would be refused
// again, so that is said and not retried.
function retryLater(gen, e, again) {
  if (gen !== game.gen) return;
  if (e.status && e.status < 500) return showError(e);
  $("error").textContent = `${e.message} (retrying)`;
  setTimeout(() => gen === game.gen && again(), 1000);
}

// The moves changed: until /v1/legal answers for them nobody may act, and any
// answer still on its way for the old moves is dropped (by its generation).
function awaitAnswer() {
  const gen = ++game.gen;
  Object.assign(game, { status: null, legal: [], selected: null });
  document.body.dataset.turn = "wait";
  $("error").textContent = "";
  $("download").disabled = true;
  for (const hit of game.hitLayer.children) hit.classList.remove("target");
  return refresh().catch((e) => gen === game.gen && showError(e));
}

function play(action) {
  game.by.push(game.status.to_act);
  game.moves.push(action);
  awaitAnswer();
}

function clickPoint(p) {
  if (!humanToAct()) return;
  const legal = new Set(game.legal);
  if (game.selected && legal.has(`${game.selected}-${p}`)) return play(`${game.selected}-${p}`);
  if (legal.has(`x${p}`)) return play(`x${p}`);
  if (legal.has(p)) return play(p);
  const moves = game.legal.some((a) => a.startsWith(p + "-"));
  game.selected = moves && game.selected !== p ? p : null;
  drawPieces();
}

function undoTurn() {
  // Back to the start of the human's last turn (a place or move, not a removal).
  for (let i = game.moves.length - 1; i >= 0; i--) {
    if (game.by[i] === game.human && !game.moves[i].startsWith("x")) {
      game.moves.length = i;
      game.by.length = i;
      return awaitAnswer();
    }
  }
}

function download() {
  const s = game.status;
  const result = s?.over ? `${s.result.winner || "draw"} (${s.result.reason})` : "*";
  const white = game.human === "white" ? "you" : `tier:${game.tier}`;
  const black = game.human === "black" ? "you" : `tier:${game.tier}`;
  const text = `[Rules "${game.rules.name}"]\n[White "${white}"]\n[Black "${black}"]\n[Result "${result}"]\n\n` +
    game.moves.join(" ") + "\n";
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  a.download = `shax-${game.rules.name}-${Date.now()}.txt`;
  a.click();
  URL.revokeObjectURL(a.href);
}

function fillTiers() {
  const sel = $("tier");
  sel.textContent = "";
  for (const t of game.rules.tiers) sel.add(new Option(`tier ${t}`, t));
  sel.value = game.rules.tiers.includes("medium") ? "medium" : game.rules.tiers[0];
}

function newGame() {
  game.rules = game.sets.find((s) => s.name === $("rules").value);
  game.tier = $("tier").value;
  game.human = $("color").value;
  Object.assign(game, { moves: [], by: [] });
  drawBoard();
  awaitAnswer();
}

const showError = (e) => { $("error").textContent = e.message; };

async function start() {
  const r = await api("v1/rules");
  game.sets = r.rules.filter((s) => s.tiers.length > 0);
  if (!game.sets.length) throw new Error("this server has no tiers to play against");
  for (const s of game.sets) $("rules").add(new Option(s.name, s.name));
  game.rules = game.sets[0];
  fillTiers();
  $("rules").addEventListener("change", () => {
    game.rules = game.sets.find((s) => s.name === $("rules").value);
    fillTiers();
    newGame();
  });
  // A tier chosen mid-game plays the rest of it; while an answer is awaited there is no side to draw.
  $("tier").addEventListener("change", () => { game.tier = $("tier").value; if (game.status) drawSide(); });
  $("color").addEventListener("change", newGame);
  $("new").addEventListener("click", newGame);
  $("undo").addEventListener("click", undoTurn);
  $("download").addEventListener("click", download);
  newGame();
}

start().catch(showError);
