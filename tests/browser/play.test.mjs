// Plays the web client in a real browser (Debian's chromium through playwright-core): Ann at
// a desktop (1280×900) and Bob on a phone (390×844, touch, and no crypto.subtle, as on a LAN
// address over plain HTTP) register through the page and play a hand of every game to its end
// with bots in the other seats, by clicking the table's buttons. Whenever it is their turn the
// test checks the table's layout: the middle (what to beat), the hand and the action bar on
// screen together, no sideways scroll. Each hand ends with the result in words on both pages.
// Ann's raise below the minimum is refused and explained. Bob's stream is refused (429 with
// Retry-After) during the first hand: his page must say it long-polls, keep up, and take the
// stream back. Then the replay (seed checked with the page's own SHA-256 on Bob's phone, the
// table at each step with its players and every hand), the 积分 leaderboard and a rematch.
// Where the server has no leaderboard yet, the test answers for it with the shapes docs/api.md
// gives them; a rematch is tried only when served. Last, a stream event carrying a view is
// drawn with no GET of the view. One screenshot per game (Bob's phone, and Ann's desktop as
// `<game>-desktop.png`) goes to $SCREENSHOTS (target/screenshots/ unless told). Run by
// scripts/browser_test.sh.
//
// Environment: PAIJU_URL (the server), PAIJU_ADMIN (user:password, to grant coins for 扯旋's
// buy-in), SCREENSHOTS (folder). playwright starts chromium with a fresh temporary
// --user-data-dir, and each player gets a browser context of its own (its own storage).

import { chromium } from "playwright-core";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";

const BASE = process.env.PAIJU_URL;
const [ADMIN_USER, ADMIN_PASSWORD] = process.env.PAIJU_ADMIN.split(":");
const SHOTS = process.env.SCREENSHOTS;
const STEP_MS = 15_000;
mkdirSync(SHOTS, { recursive: true });

const started = Date.now();
const errors = []; // uncaught errors in the pages: any fails the test
const log = (...a) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s]`, ...a);

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
let failed = false;
try {
  await run();
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
}
const passed = failed ? 0 : 1;
console.log(`${passed} passed, ${1 - passed} failed`);
process.exit(failed ? 1 : 0);

async function run() {
  const suffix = Date.now().toString(36);
  const ann = await player(`ann_${suffix}`, { viewport: { width: 1280, height: 900 } });
  const bob = await player(`bob_${suffix}`, {
    viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true,
  }, () => Object.defineProperty(Crypto.prototype, "subtle", { get: () => undefined }));
  await grant([ann, bob], 5000);
  const shown = { leaderboard: false, rematch: false };
  let lastTable = null;

  // 扯旋 with a bot; Bob's stream is refused meanwhile, so his page long-polls.
  await bob.page.route("**/v1/me/stream", (r) => r.fulfill({
    status: 429, headers: { "Retry-After": "2", "Content-Type": "application/problem+json" },
    body: JSON.stringify({ type: "about:blank", title: "Too Many Requests", status: 429, code: "rate_limited" }),
  }));
  await bob.page.reload();
  await bob.page.locator("#push", { hasText: "长轮询" }).waitFor({ timeout: STEP_MS });
  log("bob's stream refused: the page says it long-polls");
  const chexuan = await create(ann, { game: "chexuan", seats: "3", bots: "1", hands: "1", buy_in: "1000" });
  await bob.page.click("a.brand");
  await bob.page.selectOption("#open-game", "chexuan");
  const row = bob.page.locator("#open-tables tr", { hasText: ann.name });
  await row.waitFor({ timeout: STEP_MS });
  await bob.page.screenshot({ path: `${SHOTS}/lobby.png` });
  await row.locator("button.join").click();
  // Both call, or raise when nobody bet, rather than fold or check all round (a draw): the hand
  // goes on to the split and the showdown.
  const coinsBefore = Number(await ann.page.locator("#coins").getAttribute("data-coins"));
  // Once, Ann raises below the smallest raise: the page says why, from the refusal's detail.
  // The field is set and the button clicked in one go, so no redraw comes between them; a
  // try that met a table moved on (409) is tried again on a later turn.
  let tries = 0;
  let refusalShown = false;
  const tryRaiseTooSmall = async (p) => {
    if (refusalShown || tries >= 3 || p !== ann) return;
    const field = p.page.locator("#controls input[name=raise]");
    if (!(await field.count())) return;
    const min = Number(await field.getAttribute("min"));
    if (!(min > 1)) return;
    tries += 1;
    await p.page.evaluate((amount) => {
      document.querySelector("#controls input[name=raise]").value = amount;
      document.querySelector("#controls button[data-action=raise]").click();
    }, String(min - 1));
    const refusal = p.page.locator("#refusal");
    await refusal.waitFor({ timeout: 5000 }).catch(() => {});
    if (!(await refusal.count())) return;
    const text = await refusal.textContent();
    assert.match(text, /raise too small/, `the refusal names its rule: ${text}`);
    assert.match(text, /[\u4e00-\u9fff]/, `the refusal's detail is in Chinese: ${text}`);
    refusalShown = true;
    log(`a raise below the minimum refused on the page: ${text}`);
  };
  const chexuanMoves = await playToTheEnd([ann, bob], chexuan, ["call", "raise"], bob, tryRaiseTooSmall);
  assert.ok(chexuanMoves >= 4, "both players set their 簸簸 and bet");
  await result([ann, bob]);
  // The header's wallet follows the hand: it is what GET /v1/me says once the hand is settled.
  const me = await (await fetch(`${BASE}/v1/me`, { headers: auth(ann) })).json();
  await ann.page.locator(`#coins[data-coins="${me.coins}"]`).waitFor({ timeout: STEP_MS });
  log(`chexuan finished: ann's coins ${coinsBefore} → ${me.coins} in the header`);
  await bob.page.unroute("**/v1/me/stream");
  await bob.page.locator("#push").waitFor({ state: "hidden", timeout: STEP_MS });
  log("bob's stream is back after Retry-After");

  // The replay on Bob's phone: the seed checked without crypto.subtle, then the served steps:
  // the table at each, with its players' names and every hand's cards.
  const replay = await (await fetch(`${BASE}/v1/matches/${chexuan.id}/replay`, { headers: auth(bob) })).json();
  assert.ok(replay.hands[0]?.steps?.length > 1, "the replay's hand has steps");
  await bob.page.click("#replay-link");
  await bob.page.locator(".replay-hand").first().waitFor({ timeout: STEP_MS });
  await bob.page.locator(".check", { hasText: "✓" }).first().waitFor({ timeout: STEP_MS });
  await bob.page.locator("button.step-next").first().click();
  {
    assert.equal(await bob.page.locator(".caption").first().getAttribute("data-step"), "1");
    assert.ok(await bob.page.locator(".stage .felt .seat").count() >= 3, "the step shows the table");
    for (const p of [ann, bob]) {
      assert.equal(await bob.page.locator(".stage .felt .seat", { hasText: p.name }).count(), 1,
        `the step's table seats ${p.name}`);
    }
    await bob.page.locator(".slider").first().fill("0");
    assert.equal(await bob.page.locator(".caption").first().getAttribute("data-step"), "0");
  }
  const wider = await bob.page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(wider <= 0, `the replay is ${wider}px wider than the phone`);
  // The screenshot at the last step: every hand revealed and the result in words.
  const lastStep = await bob.page.locator(".slider").first().getAttribute("max");
  await bob.page.locator(".slider").first().fill(lastStep);
  await bob.page.locator(".stage #replay-result").first().waitFor({ timeout: STEP_MS });
  await bob.page.screenshot({ path: `${SHOTS}/replay.png` });
  log("replay checked: the table at each step, its players named");

  // A hand folded early can end before Ann had a raise to try: then another 扯旋 table.
  for (let table = 2; !refusalShown; table++) {
    assert.ok(table <= 4, "Ann's raise below the minimum was refused and explained on the page");
    const again = await create(ann, { game: "chexuan", seats: "3", bots: "1", hands: "1", buy_in: "1000" });
    await joinFromLobby(bob, ann, "chexuan");
    await playToTheEnd([ann, bob], again, ["call", "raise"], null, tryRaiseTooSmall);
  }

  // 打炸: four seats, two of them bots. A deal can end the hand at once (摊牌: a seat shows
  // jokers without a bomb): the result says so; then deal again at a new table.
  for (let table = 1; ; table++) {
    const dazha = await create(ann, { game: "dazha", seats: "4", bots: "2", hands: "1" });
    await joinFromLobby(bob, ann, "dazha");
    const moves = await playToTheEnd([ann, bob], dazha, [], bob);
    const story = await result([ann, bob]);
    if (moves >= 6) break;
    assert.match(story, /摊牌/, "a hand over before anyone played is told as 摊牌");
    assert.ok(table < 12, "twelve 打炸 tables in a row ended before anyone played");
  }
  log("dazha finished");

  // 四副牌升级, 衡阳三打哈 and 永州扯胡子, a hand each with bots beside Ann and Bob.
  for (const [game, seats] of [["shengji", 4], ["sandaha", 4], ["chehuzi", 3]]) {
    const m = await create(ann, { game, seats: String(seats), bots: String(seats - 2), hands: "1" });
    lastTable = m;
    await joinFromLobby(bob, ann, game);
    const moves = await playToTheEnd([ann, bob], m, [], bob);
    await result([ann, bob]);
    log(`${game} finished`);
    assert.ok(moves >= 1, `${game}: no move through the pages`);
  }

  // The 积分 leaderboard of the last game, two pages and the caller's own rank. A server without
  // the route gets the test's answer of the route's shape (docs/api.md).
  const board = await fetch(`${BASE}/v1/leaderboards/chehuzi?limit=20`, { headers: auth(ann) });
  shown.leaderboard = board.status !== 404;
  if (!shown.leaderboard) {
    await ann.page.route("**/v1/leaderboards/chehuzi?*", (r) => {
      const second = new URL(r.request().url()).searchParams.get("cursor") === "2";
      const entry = (p, rank, points) => ({ rank, user_id: p.id, username: p.name, points });
      r.fulfill({ json: second
        ? { game: "chehuzi", entries: [entry(bob, 2, 3)], next_cursor: null, me: null }
        : { game: "chehuzi", entries: [entry(ann, 1, 9)], next_cursor: "2", me: { rank: 1, points: 9 } } });
    });
  }
  await ann.page.click("#table a[href^='#/leaderboard/']");
  await ann.page.locator("#board-me", { hasText: "#" }).waitFor({ timeout: STEP_MS });
  assert.ok(await ann.page.locator("#board-rows tr.me", { hasText: ann.name }).count() >= 1, "Ann's own row is marked");
  if (await ann.page.locator("#board-more").isVisible()) {
    const rows = await ann.page.locator("#board-rows tr").count();
    await ann.page.click("#board-more");
    await ann.page.waitForFunction((n) => document.querySelectorAll("#board-rows tr").length > n, rows);
  }
  log(`leaderboard (${shown.leaderboard ? "served" : "the test's answer"}): ${await ann.page.locator("#board-me").textContent()}`);
  await ann.page.unroute("**/v1/leaderboards/chehuzi?*");

  // A rematch of the last table: Ann offers it, Bob accepts from his finished table.
  await ann.page.goBack();
  await ann.page.locator("#rematch").click();
  const offered = await Promise.race([
    ann.page.locator("#match-status[data-status=waiting]").waitFor({ timeout: STEP_MS }).then(() => true),
    ann.page.locator("#status", { hasText: "再来一局" }).waitFor({ timeout: STEP_MS }).then(() => false),
  ]);
  if (offered) {
    shown.rematch = true;
    const id = await ann.page.locator("#match-status").getAttribute("data-match");
    await bob.page.locator("#accept-rematch").click({ timeout: STEP_MS });
    await bob.page.locator(`#match-status[data-match="${id}"]`).waitFor({ timeout: STEP_MS });
  }
  log(`rematch: ${offered ? "offered and accepted" : "not served"}`);

  // A stream event that carries the view: the page draws it without asking for the view again
  // (the event is the test's, on Ann's page, for her last table: a newer version of it).
  const last = await (await fetch(`${BASE}/v1/matches/${lastTable.id}`, { headers: auth(ann) })).json();
  const carried = { ...last, version: last.version + 100,
    seats: last.seats.map((x, i) => (i === 1 ? { ...x, username: "carried_by_the_event" } : x)) };
  // The reloaded page's first stream carries the event; its reconnects after the mocked stream
  // ends are left waiting, so no catch-up read can race the check below. (The `goto` changes
  // only the hash of the page Ann is on: it opens no stream.)
  let serveStream = false;
  await ann.page.route("**/v1/me/stream", (r) => {
    if (!serveStream) return; // never answered: the reconnect waits until the page goes
    serveStream = false;
    return r.fulfill({
      status: 200, headers: { "Content-Type": "text/event-stream" },
      body: `event: match\nid: 1\ndata: ${JSON.stringify({ match_id: last.id, version: carried.version, view: carried })}\n\n`,
    });
  });
  await ann.page.goto(`${BASE}/play/#/match/${last.id}`);
  // The table drawn: the hash change's own GET of the view is done before the count starts.
  await ann.page.locator(`#match-status[data-match="${last.id}"]`).waitFor({ timeout: STEP_MS });
  let gets = 0;
  ann.page.on("request", (r) => { if (r.method() === "GET" && r.url().endsWith(`/v1/matches/${last.id}`)) gets += 1; });
  serveStream = true;
  await ann.page.reload();
  await ann.page.locator(".seat", { hasText: "carried_by_the_event" }).waitFor({ timeout: STEP_MS });
  // Drawn from the event (only it names that player), after no GET but the page's first.
  const drawnAfter = gets;
  assert.ok(drawnAfter <= 1, `the view came with the event, yet the page asked for it ${drawnAfter} times first`);
  log(`a view carried by a stream event drawn (${gets} GET of the view: the page's first load)`);
  log(`server routes in use: ${JSON.stringify(shown)}`);
  assert.deepEqual(errors, [], "the pages threw");
}

function auth(p) {
  return { Authorization: `Bearer ${p.token}` };
}

async function player(name, options, init) {
  const context = await browser.newContext(options);
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(`${name}'s page: ${e.message}`));
  await page.goto(`${BASE}/play/`);
  await page.fill("input[name=username]", name);
  await page.fill("input[name=password]", "password123");
  await page.click("button[value=register]");
  await page.locator("#lobby").waitFor({ state: "visible", timeout: STEP_MS });
  const user = await page.evaluate(() => JSON.parse(localStorage.getItem("paiju.user")));
  const token = await page.evaluate(() => localStorage.getItem("paiju.token"));
  log(`${name} registered`);
  return { name, page, id: user.id, token };
}

async function grant(players, amount) {
  const login = await fetch(`${BASE}/v1/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: ADMIN_USER, password: ADMIN_PASSWORD }),
  });
  const { access_token } = await login.json();
  for (const p of players) {
    const res = await fetch(`${BASE}/v1/admin/grants`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${access_token}` },
      body: JSON.stringify({ user_id: p.id, amount, note: "browser test" }),
    });
    assert.equal(res.status, 201);
    await p.page.reload();
  }
}

async function create(p, fields) {
  await p.page.click("a.brand");
  await p.page.selectOption("#create-form select[name=game]", fields.game);
  // Every field, so that none keeps what the previous table was made with.
  for (const k of ["seats", "bots", "hands", "buy_in"]) {
    await p.page.fill(`#create-form input[name=${k}]`, fields[k] ?? "");
  }
  await p.page.fill("#create-form input[name=turn_timeout_secs]", "60");
  await p.page.click("#create-form button");
  await p.page.locator("#match-status").waitFor({ timeout: STEP_MS });
  const id = await p.page.locator("#match-status").getAttribute("data-match");
  log(`${p.name} created a ${fields.game} table`);
  return { id, game: fields.game };
}

async function joinFromLobby(p, host, game) {
  await p.page.click("a.brand");
  await p.page.selectOption("#open-game", game);
  await p.page.locator("#open-tables tr", { hasText: host.name }).locator("button.join").click({ timeout: STEP_MS });
}

// The game's screenshots: the phone's table (`p`), and at the same moment every desktop
// player's (`<game>-desktop.png`).
async function shot(p, game, players) {
  await p.page.evaluate(() => window.scrollTo(0, 0));
  await p.page.screenshot({ path: `${SHOTS}/${game}.png` });
  for (const d of players.filter((x) => x !== p && x.page.viewportSize().width >= 1000)) {
    await d.page.evaluate(() => window.scrollTo(0, 0));
    await d.page.screenshot({ path: `${SHOTS}/${game}-desktop.png` });
  }
}

// The finished hand in words on both pages: the player's own line and what happened.
async function result(players) {
  let story = "";
  for (const p of players) {
    await p.page.locator("#result .you").waitFor({ timeout: STEP_MS });
    assert.match(await p.page.locator("#result .you").textContent(), /^(你赢了|你输了|不输不赢)( \d+ 金币)? · 积分 [+-]?\d+ \/ /);
    story = await p.page.locator("#result .story").textContent();
    assert.ok(story.length > 10, "the result says what happened");
  }
  return story;
}

// The table as a player sees it on their turn: the middle of the table (what to beat), the
// hand and the action bar inside the viewport together, and nothing wider than the screen.
async function checkLayout(p) {
  const box = await p.page.evaluate(() => {
    if (!document.querySelector("#hint")) return null; // no longer this player's turn
    window.scrollTo(0, 0);
    const inside = (sel) => {
      const el = document.querySelector(sel);
      if (!el) return "missing";
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth + 0.5 ? "in" : `out ${JSON.stringify(r)}`;
    };
    return {
      center: inside("#center"), buttons: inside("#controls .buttons"),
      hand: document.querySelector("#hand") ? inside("#hand") : "in",
      scroll: document.documentElement.scrollWidth - innerWidth,
    };
  });
  if (!box) return false;
  assert.deepEqual({ ...box, scroll: box.scroll <= 0 }, { center: "in", buttons: "in", hand: "in", scroll: true },
    `${p.name}'s table at ${p.page.viewportSize().width}px: ${JSON.stringify(box)}`);
  return true;
}

// Each player, whenever the page shows it is their turn, clicks the first of the `prefer`red
// action buttons the page offers, or else asks for a hint and plays it, until both pages show
// the match finished; the two players watch their pages at once. The layout is checked on each
// player's first two turns; `photo` (a player) takes the game's screenshot on its second;
// `before(p)` runs before each move.
async function playToTheEnd(players, { id, game }, prefer = [], photo = null, before = async () => {}) {
  const status = (p) => p.page.locator(`#match-status[data-match="${id}"]`);
  for (const p of players) await status(p).waitFor({ timeout: STEP_MS });
  const deadline = Date.now() + 150_000;
  const checked = new Map();
  let moves = 0;
  let done = false;
  const over = async () => (await Promise.all(players.map((p) => status(p).getAttribute("data-status"))))
    .every((s) => s === "finished");
  const play = async (p) => {
    const hint = p.page.locator("#hint");
    while (!done) {
      assert.ok(Date.now() < deadline, `${game} did not finish within 150 s`);
      if (!(await hint.isVisible())) {
        if (await over()) break;
        await p.page.waitForTimeout(50);
        continue;
      }
      try {
        if ((checked.get(p) ?? 0) < 2) {
          if (!(await checkLayout(p))) continue;
          checked.set(p, (checked.get(p) ?? 0) + 1);
          // The game's screenshot: the phone's table on its second turn, mid-hand.
          if (photo && p === photo && checked.get(p) === 2) {
            await shot(p, game, players);
            photo = null;
          }
        }
        await before(p);
        const own = prefer.map((a) => `#controls button[data-action=${a}]:not([disabled])`).join(", ");
        if (own && (await p.page.locator(own).count()) > 0) {
          await p.page.locator(own).first().click({ timeout: 3000 });
        } else {
          await hint.click({ timeout: 3000 });
          await p.page.locator("#play-hint").click({ timeout: 3000 });
        }
      } catch (e) {
        if (e instanceof assert.AssertionError) throw e;
        continue; // the page redrew meanwhile (the match moved): look again
      }
      moves += 1;
    }
  };
  await Promise.all(players.map((p) => play(p).finally(() => { done = true; })));
  for (const p of players) assert.ok(checked.get(p) || game === "dazha", `${p.name} never had a turn at ${game}`);
  if (photo && (game !== "dazha" || moves >= 6)) await shot(photo, game, players);
  log(`${game}: ${moves} moves through the pages`);
  return moves;
}
