// Plays the web client in a real browser (Debian's chromium through playwright-core): two
// players register through the page, play a hand of 扯旋 and a hand of 打炸 (with two bots)
// to the end by clicking the table's buttons, look at the replay, and make ten moves each at
// tables of 升级, 三打哈 and 扯胡子 (with bots). Screenshots go to
// $SCREENSHOTS (target/screenshots/ unless told). Run by scripts/browser_test.sh, which
// starts the server.
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
  const ann = await player(`ann_${suffix}`);
  const bob = await player(`bob_${suffix}`);
  await grant([ann, bob], 5000);

  // 扯旋: Ann opens a table for two, Bob finds it in the lobby and joins.
  const chexuan = await create(ann, { game: "chexuan", seats: "2", hands: "1", buy_in: "1000" });
  await bob.page.click("a.brand");
  await bob.page.selectOption("#open-game", "chexuan");
  const row = bob.page.locator("#open-tables tr", { hasText: ann.name });
  await row.waitFor({ timeout: STEP_MS });
  await bob.page.screenshot({ path: `${SHOTS}/lobby.png` });
  log("lobby screenshot");
  await row.locator("button.join").click();
  // Both call, or raise when nobody bet, rather than fold or check all round (a draw): the hand
  // goes on to the split and the showdown.
  const chexuanMoves = await playToTheEnd([ann, bob], chexuan, undefined, ["call", "raise"]);
  assert.ok(chexuanMoves >= 4, "both players set their 簸簸 and bet");
  await ann.page.screenshot({ path: `${SHOTS}/chexuan.png`, fullPage: true });
  log("chexuan finished");

  // The replay of the finished hand: the revealed seed matches the commitment, steps advance.
  await ann.page.click("#replay-link");
  await ann.page.locator(".replay-hand").first().waitFor({ timeout: STEP_MS });
  await ann.page.locator(".check", { hasText: "✓" }).first().waitFor({ timeout: STEP_MS });
  await ann.page.locator("button.step").first().click();
  assert.equal(await ann.page.locator(".steps li.done").count(), 1);
  log("replay checked");

  // 打炸: four seats, two of them bots; Bob joins from the lobby again. A deal can end the
  // hand at once (摊牌: a seat shows jokers without a bomb); then nobody played: deal again.
  for (let table = 1; ; table++) {
    const dazha = await create(ann, { game: "dazha", seats: "4", bots: "2", hands: "1" });
    await bob.page.click("a.brand");
    await bob.page.selectOption("#open-game", "dazha");
    await bob.page.locator("#open-tables tr", { hasText: ann.name }).locator("button.join").click();
    const moves = await playToTheEnd([ann, bob], dazha, async (n) => {
      if (n === 6) await ann.page.screenshot({ path: `${SHOTS}/dazha.png`, fullPage: true });
    });
    if (moves >= 6) break;
    assert.ok(table < 5, "five 打炸 tables in a row ended before anyone played");
  }
  log("dazha finished");

  // 四副牌升级, 衡阳三打哈 and 永州扯胡子: a table of each with bots beside Ann and Bob, played
  // through the pages for ten moves of theirs (a whole 升级 hand is a few hundred): each game's
  // table renders, and its own controls or its hints make moves.
  for (const [game, seats] of [["shengji", 4], ["sandaha", 4], ["chehuzi", 3]]) {
    // No hand limit: a short hand (a bot's early 胡) is followed by the next one.
    const m = await create(ann, { game, seats: String(seats), bots: String(seats - 2) });
    await bob.page.click("a.brand");
    await bob.page.selectOption("#open-game", game);
    await bob.page.locator("#open-tables tr", { hasText: ann.name }).locator("button.join").click();
    const moves = await playToTheEnd([ann, bob], m, undefined, [], 10);
    await ann.page.screenshot({ path: `${SHOTS}/${game}.png`, fullPage: true });
    assert.ok(moves >= 3, `${game}: only ${moves} moves through the pages`);
  }
  assert.deepEqual(errors, [], "the pages threw");
}

async function player(name) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(`${name}'s page: ${e.message}`));
  await page.goto(`${BASE}/play/`);
  await page.fill("input[name=username]", name);
  await page.fill("input[name=password]", "password123");
  await page.click("button[value=register]");
  await page.locator("#lobby").waitFor({ state: "visible", timeout: STEP_MS });
  const user = await page.evaluate(() => JSON.parse(localStorage.getItem("paiju.user")));
  log(`${name} registered`);
  return { name, page, id: user.id };
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

// Each player, whenever the page shows it is their turn, clicks the first of the `prefer`red
// action buttons the page offers, or else asks for a hint and plays it, until both pages show
// the match finished (or, with `limit`, until that many moves were made).
async function playToTheEnd(players, { id, game }, afterMove = async () => {}, prefer = [],
  limit = Infinity) {
  const status = (p) => p.page.locator(`#match-status[data-match="${id}"]`);
  for (const p of players) await status(p).waitFor({ timeout: STEP_MS });
  const deadline = Date.now() + 180_000;
  let moves = 0;
  for (;;) {
    assert.ok(Date.now() < deadline, `${game} did not finish within 3 minutes`);
    const statuses = await Promise.all(players.map((p) => status(p).getAttribute("data-status")));
    if (statuses.every((s) => s === "finished") || moves >= limit) break;
    let acted = false;
    for (const p of players) {
      const hint = p.page.locator("#hint");
      if (!(await hint.isVisible())) continue;
      try {
        const own = prefer.map((a) => `#controls button[data-action=${a}]:not([disabled])`).join(", ");
        if (own && (await p.page.locator(own).count()) > 0) {
          await p.page.locator(own).first().click({ timeout: 3000 });
        } else {
          await hint.click({ timeout: 3000 });
          await p.page.locator("#play-hint").click({ timeout: 3000 });
        }
      } catch {
        continue; // the page redrew meanwhile (the stream said the match moved): look again
      }
      moves += 1;
      acted = true;
      await afterMove(moves);
    }
    if (!acted) await players[0].page.waitForTimeout(150);
  }
  log(`${game}: ${moves} moves through the pages`);
  return moves;
}
