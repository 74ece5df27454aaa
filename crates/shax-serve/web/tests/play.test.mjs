// The page of `shax serve` in a real browser: Debian's Chromium, headless,
// driven by playwright-core. Starts the release binary on a free port, plays
// a whole game by clicks against tier:beginner (checking the board against
// the API and the status text as it goes), undoes a turn, plays a whole game
// of every other rule set with tiers, and takes screenshots at 1280x800 and
// 390x844.
//
//   SHAX_BIN     the binary (default: target/release/shax of this checkout)
//   CHROMIUM     the browser (default: /usr/bin/chromium)
//   SCREENSHOTS  where the screenshots go (default: ./screenshots)
//   TIERS        the Shax tiers to play a whole game against, comma-separated
//                (default: beginner; `TIERS=beginner,easy,medium,hard,master` plays each)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../../..");
const bin = process.env.SHAX_BIN || path.join(root, "target/release/shax");
const shots = process.env.SCREENSHOTS || path.join(here, "screenshots");
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let server, browser, base;

const freePort = () => new Promise((resolve, reject) => {
  const s = createServer();
  s.on("error", reject);
  s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

async function waitHealthy(url) {
  for (let i = 0; i < 300; i++) {
    try { if ((await fetch(`${url}/healthz`)).ok) return; } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url}/healthz never answered`);
}

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(bin, ["serve", "--addr", `127.0.0.1:${port}`, "--workers", "2", "--quiet"],
    { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  await waitHealthy(base);
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true, args: ARGS });
  mkdirSync(shots, { recursive: true });
});

after(async () => {
  await browser?.close();
  server?.kill("SIGTERM");
});

// A small seeded generator, so a failure replays.
function rng(seed) {
  let s = seed >>> 0;
  return (n) => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s % n; };
}

const recordMoves = (page) => page.$$eval("#record li", (lis) => lis.map((li) => li.textContent.split(" ")[1]));
const targetsOf = (page) => page.$$eval(".hit.target", (els) => els.map((e) => e.dataset.point));

async function waitTurn(page) {
  await page.waitForFunction(() => ["human", "over"].includes(document.body.dataset.turn));
  return page.evaluate(() => document.body.dataset.turn);
}

// The pieces drawn are those the API has for the recorded moves (call it at
// rest: after waitTurn, so no reply lands between reading the record and the board).
async function checkBoard(page, rules) {
  const moves = await recordMoves(page);
  const res = await fetch(`${base}/v1/legal`, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ rules, moves }) });
  const want = await res.json();
  for (const color of ["white", "black"]) {
    const drawn = await page.$$eval(`.piece.${color}`, (els) => els.map((e) => e.dataset.point).sort());
    assert.deepEqual(drawn, [...want.board[color]].sort(), `${color} pieces after ${moves.join(" ")}`);
  }
  const status = await page.textContent("#status");
  assert.ok(status.startsWith(want.status.text), `status '${status}' vs '${want.status.text}'`);
  return want;
}

// One human action by clicks: a target, then (for a move) a destination.
async function humanAction(page, pick) {
  const n = (await recordMoves(page)).length;
  const targets = await targetsOf(page);
  assert.ok(targets.length > 0, "the human has highlighted choices");
  await page.click(`.hit[data-point="${targets[pick(targets.length)]}"]`);
  if (await page.$(".piece.selected")) {
    const dests = await targetsOf(page);
    assert.ok(dests.length > 0, "a selected piece has destinations");
    await page.click(`.hit[data-point="${dests[pick(dests.length)]}"]`);
  }
  await page.waitForFunction((k) => document.querySelectorAll("#record li").length > k, n);
}

// Plays the human side by random clicks to the end of the game, checking the
// board against the API every ten actions and at the end, then downloads the
// record; `shot(n)` says whether to take the desktop screenshot after action n.
async function playToTheEnd(page, rules, pick, shot) {
  let actions = 0;
  while ((await waitTurn(page)) === "human") {
    await humanAction(page, pick);
    actions += 1;
    // Check at rest (the reply in, the human to act), not while the tier's reply lands.
    if (actions % 10 === 1 && (await waitTurn(page)) === "human") await checkBoard(page, rules);
    if (shot(actions)) await page.screenshot({ path: path.join(shots, "desktop-1280x800.png") });
    assert.ok(actions < 1000, `${rules}: the game ends`);
  }
  const want = await checkBoard(page, rules);
  assert.ok(want.status.over, `${rules}: the API agrees the game is over`);
  const status = await page.textContent("#status");
  assert.match(status, /^(White wins|Black wins|Draw): .+\.$/);
  const download = page.waitForEvent("download");
  await page.click("#download");
  const file = await download;
  assert.match(file.suggestedFilename(), new RegExp(`^shax-${rules}-\\d+\\.txt$`));
  return { actions, status };
}

// The page's uncaught errors, kept for the test that owns the page to assert
// on at its end (throwing from the listener would surface after the test, unowned).
function watchErrors(page) {
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return errors;
}

const TIERS = (process.env.TIERS || "beginner").split(",").map((t) => t.trim()).filter(Boolean);

for (const [k, tier] of TIERS.entries()) test(`a whole game by clicks against tier:${tier}`, { timeout: 1_800_000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = watchErrors(page);
  await page.goto(base);
  await page.selectOption("#tier", tier);
  await page.click("#new");
  assert.equal(await waitTurn(page), "human");
  assert.equal(await page.textContent("#status"), "White to place (12 in hand). Your turn.");
  assert.equal(await page.locator(".hit.target").count(), 24);
  const pick = rng(2026 + k);
  // Undo: one turn and the reply, back to the start.
  await humanAction(page, pick);
  await waitTurn(page);
  assert.equal((await recordMoves(page)).length, 2);
  await page.click("#undo");
  await page.waitForFunction(() => document.querySelectorAll("#record li").length === 0);
  assert.equal(await waitTurn(page), "human");
  const { actions, status } = await playToTheEnd(page, "shax", pick, (n) => n === 20 && k === 0);
  await page.screenshot({ path: path.join(shots, `desktop-end-${tier}-1280x800.png`) });
  console.log(`# tier:${tier}: game over after ${actions} human actions: ${status}`);
  assert.deepEqual(errors, [], "the page threw no error");
  await page.close();
});

// Every other rule set the page offers (those with tiers), a whole game by
// clicks against its beginner: the board, the status and the record follow
// the API under each rule set's own geometry and rules.
test("a whole game of every other rule set with tiers", { timeout: 1_800_000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = watchErrors(page);
  await page.goto(base);
  await page.waitForSelector("#rules option", { state: "attached" });
  const offered = await page.$$eval("#rules option", (os) => os.map((o) => o.value));
  assert.deepEqual(offered, ["shax", "shax-flying", "nine-mens-morris", "morabaraba"]);
  for (const [k, rules] of offered.filter((r) => r !== "shax").entries()) {
    await page.selectOption("#rules", rules);
    await page.selectOption("#tier", "beginner");
    await page.click("#new");
    assert.equal(await waitTurn(page), "human");
    assert.equal(await page.locator(".hit.target").count(), 24, `${rules}: every point free`);
    const { actions, status } = await playToTheEnd(page, rules, rng(77 + k), () => false);
    await page.screenshot({ path: path.join(shots, `desktop-end-${rules}-1280x800.png`) });
    console.log(`# ${rules}: game over after ${actions} human actions: ${status}`);
  }
  assert.deepEqual(errors, [], "the page threw no error");
  await page.close();
});

// A tier chosen before the page has its first answer from the server (held
// back here) takes effect without an error once the answer lands, and a click
// before a new game's answer lands plays nothing.
test("a tier chosen or a point clicked while the position loads", { timeout: 60_000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = watchErrors(page);
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route("**/v1/legal", async (route) => { await held; await route.continue(); });
  await page.goto(base);
  await page.selectOption("#tier", "easy");
  release();
  assert.equal(await waitTurn(page), "human");
  await page.unroute("**/v1/legal");
  assert.equal(await page.textContent("#status"), "White to place (12 in hand). Your turn.");
  assert.equal(await page.inputValue("#tier"), "easy");
  // A click while a new game's first answer is held back plays nothing.
  let again;
  const heldAgain = new Promise((r) => { again = r; });
  await page.route("**/v1/legal", async (route) => { await heldAgain; await route.continue(); });
  await page.click("#new");
  assert.equal(await page.locator(".hit.target").count(), 0, "nothing to click while waiting");
  await page.click('.hit[data-point="d2"]');
  again();
  assert.equal(await waitTurn(page), "human");
  await page.unroute("**/v1/legal");
  assert.deepEqual(await recordMoves(page), [], "the click before the answer played nothing");
  assert.deepEqual(errors, [], "the page threw no error");
  await page.close();
});

test("the page fits a phone and plays by taps as Black", { timeout: 300_000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const errors = watchErrors(page);
  await page.goto(base);
  await page.selectOption("#tier", "beginner");
  await page.selectOption("#color", "black");
  assert.equal(await waitTurn(page), "human");
  assert.equal((await recordMoves(page)).length, 1, "the tier opened as White");
  const pick = rng(7);
  for (let i = 0; i < 6 && (await waitTurn(page)) === "human"; i++) await humanAction(page, pick);
  await waitTurn(page);
  await checkBoard(page, "shax");
  const box = await page.locator("#board").boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390 && box.width >= 300, `board box ${JSON.stringify(box)}`);
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scroll <= 390, `no sideways scrolling (${scroll} px)`);
  await page.screenshot({ path: path.join(shots, "phone-390x844.png"), fullPage: true });
  assert.deepEqual(errors, [], "the page threw no error");
  await page.close();
});
