// The reference web client: login, lobby, a card table for each game, the replay of finished
// hands, the 积分 leaderboards. Pages are hash routes (#/lobby, #/match/<id>, #/replay/<id>,
// #/leaderboard/<game>); the player's stream brings each match's new view (or says it
// moved), and when the stream is refused or lost the table long-polls its view instead.

import { api, ApiError, openStream, optional, session, sha256Hex } from "./api.js";
import { BOARDS, h, handRow, renderValue, revealed, sortHand } from "./cards.js";
import { controls, refusal, resultWords } from "./actions.js";

// The games the server runs (GET /v1/games), by name: `name` is the label shown, `seats` the
// table sizes. Read once, before the first page is drawn.
const GAMES = {};

async function loadGames() {
  const { games } = await api("GET", "/v1/games");
  for (const g of games) GAMES[g.name] = { name: `${g.title} ${g.name}`, title: g.title, seats: g.seats };
}

const $ = (sel) => document.querySelector(sel);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function say(text, error = false, ...extra) {
  const s = $("#status");
  s.replaceChildren(text, ...extra);
  s.className = error ? "error" : "";
}

const PAGES = ["login", "lobby", "table", "replay", "leaderboard"];
function show(id) {
  if (id !== "lobby") lobbyFresh = false;
  for (const s of PAGES) $(`#${s}`).hidden = s !== id;
}

// ---- push: the stream, or long-polling when it is refused ----------------------------------

let stopStream = null;
let push = "stream"; // "poll" while the stream is refused or lost
const rematches = {}; // old match id → { id, seat } of the rematch a stream notice offered us

const NOTICES = {
  seated: (d) => `seated at a ${d.game} table`,
  tournament_table: (d) => `your table for round ${d.round} is ready`,
  eliminated: (d) => `out of the tournament in round ${d.round}`,
  tournament_finished: () => "a tournament you played is over",
};

function connect() {
  stopStream?.();
  stopStream = openStream(onEvent, onPushMode);
}

function disconnect() {
  stopStream?.();
  stopStream = null;
}

function onEvent(kind, d) {
  if (kind === "unauthorized") return logout();
  if (kind === "hello") return onNews(null);
  if (kind === "match") return onMatchNews(d);
  if (kind === "rematch") {
    rematches[d.from] = { id: d.match_id, seat: d.seat };
    const r = current();
    if (r.page === "match" && r.id === d.from && view) renderTable();
    else say(`再来一局？${d.by ?? ""} 邀请你 / a rematch is offered: `, false, h("a", { href: `#/match/${d.from}` }, "open"));
    return;
  }
  if (NOTICES[kind]) {
    if (kind !== "seated") say(NOTICES[kind](d));
    onNews(d);
  }
}

function onPushMode(mode, retry) {
  const was = push;
  push = mode;
  const el = $("#push");
  el.hidden = mode === "stream";
  el.textContent = mode === "stream" ? ""
    : `实时推送暂不可用，改用长轮询，${retry} 秒后重试 / Live updates refused or lost: long-polling instead, retrying in ${retry}s`;
  if (mode === "poll") longPoll();
  if (mode === "stream" && was === "poll") onNews(null); // catch up on what the poll missed
}

// While the stream is down: the table on screen asks for its next version (answered at once
// when there is one, else after 30 s), the lobby reloads every 10 s.
let polling = false;
async function longPoll() {
  if (polling) return;
  polling = true;
  try {
    while (push === "poll" && session.token) {
      const r = current();
      const live = view && view.id === r.id && view.status !== "finished" && view.status !== "aborted";
      if (r.page === "match" && live) {
        try {
          const v = await api("GET", `/v1/matches/${view.id}?wait_version=${view.version}&timeout=30`);
          if (view && v.id === view.id && v.version > view.version) setView(v);
        } catch {
          await sleep(3000);
        }
      } else {
        await sleep(r.page === "lobby" ? 10_000 : 2000);
        if (push === "poll" && current().page === "lobby") guard(loadLobby)();
      }
    }
  } finally {
    polling = false;
  }
}

// A followed match moved: its new view rides on the event when the server sends it (no GET
// then); otherwise the view is fetched.
function onMatchNews(d) {
  const r = current();
  if (r.page === "match" && d.match_id === r.id) {
    if (d.view && d.view.id === r.id) {
      if (!view || d.view.version > view.version) setView(d.view);
    } else if (!view || d.version > view.version) guard(loadMatch)(r.id);
  }
  if (r.page === "lobby") guard(loadLobby)();
}

const onNews = (d) => {
  const r = current();
  if (r.page === "match" && (!d || d.match_id === r.id)) guard(loadMatch)(r.id);
  if (r.page === "lobby") guard(loadLobby)();
};

// ---- the header's coins ----------------------------------------------------------------------

let walletAsked = false;
let walletAgain = false;
// GET /v1/me after every change of the table (stakes leave and come back to the wallet during a
// hand); one request at a time, one more if something changed meanwhile.
async function refreshWallet() {
  if (walletAsked) {
    walletAgain = true;
    return;
  }
  walletAsked = true;
  try {
    do {
      walletAgain = false;
      const me = await api("GET", "/v1/me");
      $("#coins").textContent = `${me.coins} 金币 coins`;
      $("#coins").dataset.coins = me.coins;
    } while (walletAgain);
  } catch {
    // the next change asks again
  } finally {
    walletAsked = false;
  }
}

// ---- routing -------------------------------------------------------------------------------

function current() {
  const [, page, id] = location.hash.split("/");
  return { page: page || "lobby", id };
}

function route() {
  if (!session.token) {
    show("login");
    $("#who").textContent = "";
    $("#coins").textContent = "";
    $("#logout").hidden = true;
    return;
  }
  $("#who").textContent = session.user.username;
  $("#logout").hidden = false;
  if (!stopStream) connect();
  refreshWallet();
  const r = current();
  if (r.page === "match") {
    view = null;
    guard(loadMatch)(r.id);
  } else if (r.page === "replay") guard(loadReplay)(r.id);
  else if (r.page === "leaderboard") guard(loadLeaderboard)(r.id);
  else guard(loadLobby)();
}

function logout() {
  session.clear();
  disconnect();
  route();
}

const guard = (f) => async (...args) => {
  try {
    await f(...args);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) logout();
    say(e.message, true);
  }
};

// ---- login ---------------------------------------------------------------------------------

$("#login-form").addEventListener("submit", guard(async (e) => {
  e.preventDefault();
  const form = new FormData(e.target);
  const how = e.submitter?.value === "register" ? "register" : "login";
  const body = await api("POST", `/v1/auth/${how}`, {
    username: form.get("username"),
    password: form.get("password"),
  });
  session.save(body);
  // Where the page was (a shared table link), else the lobby; setting the hash routes.
  if (location.hash.length > 2) route();
  else location.hash = "#/lobby";
}));

$("#logout").addEventListener("click", logout);

// ---- lobby ---------------------------------------------------------------------------------

const seatsField = $("#create-form input[name=seats]");
const gameField = $("#create-form select[name=game]");

// The seats field fits the chosen game: its range, and its default (else its fewest seats).
function fitSeats() {
  const { min, max, default: seats } = GAMES[gameField.value].seats;
  Object.assign(seatsField, { min, max, value: seats ?? min });
}

// The game lists of the lobby and the leaderboard, once the games are known.
function listGames() {
  for (const sel of [gameField, $("#open-game"), $("#board-game")]) {
    for (const [g, info] of Object.entries(GAMES)) sel.append(h("option", { value: g }, info.name));
  }
  fitSeats();
}

gameField.addEventListener("change", fitSeats);
$("#open-game").addEventListener("change", guard(loadLobby));
$("#board-game").addEventListener("change", (e) => { location.hash = `#/leaderboard/${e.target.value}`; });

$("#create-form").addEventListener("submit", guard(async (e) => {
  e.preventDefault();
  const f = new FormData(e.target);
  const num = (k) => (f.get(k) === "" ? undefined : Number(f.get(k)));
  const body = {
    game: f.get("game"),
    seats: num("seats"),
    bots: num("bots") || undefined,
    buy_in: num("buy_in"),
    options: { turn_timeout_secs: num("turn_timeout_secs"), hands: num("hands") },
  };
  const v = await api("POST", "/v1/matches", body);
  location.hash = `#/match/${v.id}`;
}));

let lobbyLoads = 0;
let lobbyFresh = false; // the open tables shown are this visit's

async function loadLobby() {
  show("lobby");
  const ticket = ++lobbyLoads;
  const game = $("#open-game").value;
  // Shown again after a while: no stale table to join while the lists load.
  if ($("#open-tables").dataset.game !== game || current().page !== "lobby" || !lobbyFresh) {
    $("#open-tables").replaceChildren(h("tr", {}, h("td", {}, "…")));
  }
  $("#open-tables").dataset.game = game;
  lobbyFresh = true;
  const [open, mine] = await Promise.all([
    api("GET", `/v1/matches?game=${game}&status=waiting`),
    api("GET", "/v1/me/matches"),
  ]);
  if (ticket !== lobbyLoads) return; // a newer load (another game chosen) is on its way
  const openRows = open.matches.map((m) =>
    h("tr", {},
      h("td", {}, GAMES[m.game]?.name || m.game),
      h("td", {}, `${m.taken}/${m.seats} 座 seats`),
      h("td", {}, m.players.map((p) => p.username + (p.bot ? " (bot)" : "")).join(", ")),
      h("td", {}, m.options.buy_in ? `买入 buy-in ${m.options.buy_in}` : ""),
      h("td", {}, h("button", { class: "join", onclick: guard(() => join(m)) }, "加入 Join"))));
  $("#open-tables").replaceChildren(...(openRows.length ? openRows : [h("tr", {}, h("td", {}, "没有空桌 no open table"))]));
  const mineRows = mine.matches.map((m) =>
    h("tr", { class: m.your_turn ? "your-turn" : "" },
      h("td", {}, GAMES[m.game]?.name || m.game),
      h("td", {}, m.status),
      h("td", {}, `第${m.hand_no}手 hand ${m.hand_no}`),
      h("td", {}, m.your_turn ? "轮到你 your turn" : ""),
      h("td", {}, h("a", { href: `#/match/${m.id}` }, "打开 open"), " ",
        m.hand_no > 1 || m.status === "finished" ? h("a", { href: `#/replay/${m.id}` }, "回放 replay") : null)));
  $("#my-matches").replaceChildren(...(mineRows.length ? mineRows : [h("tr", {}, h("td", {}, "还没有 none yet"))]));
  $("#lobby-board").href = `#/leaderboard/${game}`;
}

async function join(m) {
  const v = await api("POST", `/v1/matches/${m.id}/join`, {});
  location.hash = `#/match/${v.id}`;
}

// ---- leaderboard ---------------------------------------------------------------------------

async function loadLeaderboard(game) {
  show("leaderboard");
  game = GAMES[game] ? game : Object.keys(GAMES)[0];
  $("#board-game").value = game;
  const rows = $("#board-rows");
  const more = $("#board-more");
  rows.replaceChildren();
  more.hidden = true;
  $("#board-me").textContent = "";
  const page = async (cursor) => {
    const q = `limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const b = await optional("GET", `/v1/leaderboards/${game}?${q}`);
    if (!b) {
      $("#board-me").textContent = "这个服务器还没有排行榜 / This server has no leaderboards yet.";
      return;
    }
    const me = session.user?.id;
    rows.append(...b.entries.map((e) => h("tr", { class: e.user_id === me ? "me" : "" },
      h("td", {}, `#${e.rank}`), h("td", {}, e.username), h("td", {}, `${e.points} 积分`))));
    if (!cursor) {
      $("#board-me").textContent = b.me ? `你的排名 #${b.me.rank} · ${b.me.points} 积分 / Your rank #${b.me.rank}, ${b.me.points} points`
        : "你在这个游戏还没有积分 / You have no points in this game yet";
      if (!b.entries.length) rows.append(h("tr", {}, h("td", {}, "还没有人 nobody yet")));
    }
    more.hidden = !b.next_cursor;
    more.onclick = guard(() => page(b.next_cursor));
  };
  await page(null);
}

// ---- table ---------------------------------------------------------------------------------

let view = null;
let selected = new Set(); // indexes into the hand as shown
let hint = null; // { version, action } from GET /v1/matches/{id}/hint
let refused = null; // { text, cards } of the last refused action
let loading = 0;

async function loadMatch(id) {
  const ticket = ++loading;
  const v = await api("GET", `/v1/matches/${id}`);
  if (ticket !== loading) return; // a newer load is on its way
  // The same version again (a reconnect's hello): keep the page as it is, selection included.
  if (view && view.id === v.id && view.version === v.version) return;
  setView(v);
}

function setView(v) {
  const moved = !view || view.id !== v.id || view.version !== v.version;
  view = v;
  if (moved) {
    selected = new Set();
    hint = null;
    refused = null;
    loading++; // a GET already on its way would bring an older view
    refreshWallet();
  }
  renderTable();
}

// The cards in the caller's hand, as that game's players hold them.
function handOf(v) {
  const board = BOARDS[v.game];
  const cards = board ? board.hand(v) : Array.isArray(v.state?.hand) ? v.state.hand : [];
  return sortHand(v.game, cards);
}

// Where each seat sits around the table, seen from `me` (at the bottom). Play goes to the
// right: the next seat sits right, the one before left, the others across the top.
const SLOTS = { 1: [], 2: ["t"], 3: ["r", "l"], 4: ["r", "t", "l"], 5: ["r", "tr", "tl", "l"], 6: ["r", "tr", "t", "tl", "l"] };

// The felt: seats around the table, the middle (what to beat, the trick, the pot) and the
// hand's facts. Shared by the live table and the replay's steps.
function drawBoard(v) {
  const board = BOARDS[v.game];
  const n = v.seats.length;
  const me = v.you?.seat ?? 0;
  const name = (i) => v.seats[i]?.username || `座 ${i}`;
  const partners = v.you && board ? board.partners(v, me) : [];
  const slots = SLOTS[n] || [];
  const seats = v.seats.map((s) => {
    const off = (s.seat - me + n) % n;
    const slot = off === 0 ? "b" : slots[off - 1] || "t";
    const acting = v.status === "playing" && v.to_act.includes(s.seat);
    const shown = s.seat !== v.you?.seat ? revealed(v, s.seat) : null;
    const cardsShown = shown ? sortHand(v.game, shown) : null;
    return h("div", { class: `seat slot-${slot}${acting ? " to-act" : ""}${s.seat === v.you?.seat ? " me" : ""}`, "data-seat": s.seat },
      h("div", { class: "name" },
        h("strong", {}, s.username || "(空 empty)"),
        s.seat === v.you?.seat ? h("span", { class: "tag you" }, "你 you") : null,
        partners.includes(s.seat) ? h("span", { class: "tag partner" }, "队友 partner") : null,
        s.bot ? h("span", { class: "tag" }, "bot") : s.auto ? h("span", { class: "tag warn" }, "托管 auto") : null,
        acting ? h("span", { class: "timer" }) : null),
      h("div", { class: "facts" },
        s.coins_at_table != null ? h("span", { class: "fact" }, h("b", {}, "桌上"), ` ${s.coins_at_table} `, h("small", {}, "coins")) : null,
        board && v.state ? board.seat(v, s.seat, name) : null),
      cardsShown ? h("div", { class: "revealed" }, renderValue(cardsShown)) : null);
  });
  let center;
  if (board && v.state && v.status !== "waiting") center = board.center(v, name);
  else if (v.status === "waiting") center = [h("div", { class: "to-beat" }, `等人入座 ${v.seats.filter((s) => s.user_id).length}/${n} `, h("small", {}, "waiting for players"))];
  else center = [renderValue(v.state ?? {})];
  return h("div", { class: `felt seats-${n}` },
    ...seats,
    h("div", { class: "center", id: "center" }, center),
    board && v.state && v.status !== "waiting" ? h("div", { class: "board-facts" }, board.facts(v, name)) : null);
}

function resultBox(v, id = "result") {
  const name = (i) => v.seats[i]?.username || `座 ${i}`;
  const words = resultWords(v, name);
  if (!words) return null;
  return h("div", { class: "result", id },
    h("div", { class: "result-head" }, `第${words.hand_no}手结果 Hand ${words.hand_no}`),
    words.you ? h("p", { class: "you" }, words.you) : null,
    words.story ? h("p", { class: "story" }, words.story) : null,
    h("ul", { class: "players" }, words.players.map((p) => h("li", {}, p))));
}

function renderTable() {
  show("table");
  const v = view;
  const you = v.you?.seat;
  const hand = handOf(v);
  const finished = v.status === "finished" || v.status === "aborted";
  // The rematch a stream notice offered (with the seat kept for us). Without one, "rematch"
  // asks the server, which answers with the rematch someone already made, if any.
  const offered = rematches[v.id];

  const row = handRow(hand, (i, el) => {
    if (selected.has(i)) selected.delete(i);
    else selected.add(i);
    el.classList.toggle("selected");
    renderControls();
  });
  [...selected].forEach((i) => row.children[i]?.classList.add("selected"));
  if (refused) {
    const bad = [...refused.cards];
    [...row.children].forEach((el) => {
      const k = bad.indexOf(el.dataset.card);
      if (k >= 0) {
        el.classList.add("refused");
        bad.splice(k, 1);
      }
    });
  }

  const tricks = v.state?.tricks?.length ? v.state.tricks : null;
  $("#table").replaceChildren(...[
    h("div", { class: "titlebar" },
      h("h1", {}, GAMES[v.game]?.title || v.game),
      h("small", { id: "match-status", "data-match": v.id, "data-status": v.status, "data-version": v.version },
        [v.status, `第${v.hand_no}手`, v.phase !== v.status ? v.phase : null, `v${v.version}`].filter(Boolean).join(" · ")),
      h("span", { class: "links" },
        h("a", { href: "#/lobby" }, "大厅 lobby"),
        v.hand_no > 1 || finished || v.last_result ? h("a", { href: `#/replay/${v.id}`, id: "replay-link" }, "回放 replay") : null,
        h("a", { href: `#/leaderboard/${v.game}` }, "排行 ranks"),
        !v.you && v.status === "waiting" ? h("button", { class: "join", onclick: guard(() => join(v)) }, "加入 Join") : null,
        v.you && !finished ? h("button", { onclick: guard(leave) }, v.status === "waiting" ? "离座 leave" : "逃跑 leave") : null)),
    drawBoard(v),
    finished && v.you ? h("div", { class: "rematch" },
      offered ? h("button", { id: "accept-rematch", class: "action", onclick: guard(() => acceptRematch(offered)) }, "接受再来一局 accept the rematch")
        : h("button", { id: "rematch", class: "action", onclick: guard(rematch) }, "再来一局 rematch")) : null,
    resultBox(v),
    h("div", { class: "dock", id: "dock" },
      h("div", { id: "turn" }),
      hand.length ? row : null,
      refused ? h("div", { id: "refusal", class: "refusal" }, "✗ ", refused.text) : null,
      h("div", { id: "controls" })),
    tricks ? h("details", { class: "log" }, h("summary", {}, `已出 ${tricks.length} 墩 tricks`), renderValue(tricks)) : null,
  ].filter(Boolean));
  renderTurn();
  renderControls();
}

function renderTurn() {
  const v = view;
  const name = (i) => v.seats[i]?.username || `座 ${i}`;
  const left = v.deadline ? Math.max(0, Math.round((Date.parse(v.deadline) - Date.now()) / 1000)) : null;
  const mine = v.you && v.to_act.includes(v.you.seat);
  let text;
  if (v.status === "waiting") text = `等人入座 waiting for players (${v.seats.filter((s) => s.user_id).length}/${v.seats.length})`;
  else if (v.status !== "playing") text = v.status === "finished" ? "本局结束 match over" : `match ${v.status}`;
  else if (mine) text = "轮到你 your turn";
  else if (v.to_act.length) text = `等 ${v.to_act.map(name).join("、")} waiting for them`;
  else text = v.phase === "claim" ? "等别人要牌 claim window open" : "…";
  if (left !== null && v.status === "playing") text += ` · ${left}s`;
  const el = $("#turn");
  if (el) {
    el.textContent = text;
    el.classList.toggle("mine", Boolean(mine));
  }
  for (const t of document.querySelectorAll("#table .timer")) t.textContent = left !== null ? `${left}s` : "";
}
setInterval(() => view && !$("#table").hidden && renderTurn(), 1000);

function renderControls() {
  const el = $("#controls");
  if (!el) return;
  const v = view;
  const you = v.you?.seat;
  if (you === undefined || !v.to_act.includes(you) || v.status !== "playing") {
    el.replaceChildren();
    return;
  }
  const hand = handOf(v);
  const cards = [...selected].sort((a, b) => a - b).map((i) => hand[i]);
  el.replaceChildren(
    h("div", { class: "buttons" }, ...controls(v.legal_actions, cards, hand),
      h("button", { id: "hint", onclick: guard(askHint) }, "提示 hint"),
      hint ? h("button", { id: "play-hint", class: "action", onclick: guard(() => act(hint.action, hint.version)) }, "按提示出 play hint") : null));
}

$("#table").addEventListener("act", (e) => guard(act)(e.detail));

async function act(action, version = view.version) {
  const id = view.id;
  let v;
  try {
    v = await api("POST", `/v1/matches/${id}/actions`, { version, action });
  } catch (e) {
    if (!(e instanceof ApiError) || e.status === 401) throw e;
    if (e.problem.view) {
      setView(e.problem.view);
      say("牌桌已经变了，请再看一下 / The table moved on: look again", true);
      return;
    }
    refused = refusal(e.problem);
    say(`不能这样出：${refused.text}`, true);
    renderTable();
    return;
  }
  say("");
  setView(v);
}

async function askHint() {
  hint = await api("GET", `/v1/matches/${view.id}/hint`);
  const hand = handOf(view);
  const want = [...(hint.action.cards || []), ...(hint.action.head || []), ...(hint.action.card ? [hint.action.card] : [])];
  selected = new Set();
  for (const c of want) {
    const i = hand.findIndex((x, j) => x === c && !selected.has(j));
    if (i >= 0) selected.add(i);
  }
  renderTable();
}

async function leave() {
  setView(await api("POST", `/v1/matches/${view.id}/leave`));
}

// The same seats and options again (POST /v1/matches/{id}/rematch); the others accept by joining.
async function rematch() {
  const v = await optional("POST", `/v1/matches/${view.id}/rematch`, {});
  if (!v) {
    say("这个服务器还不能再来一局 / This server offers no rematch yet", true);
    $("#rematch")?.remove();
    return;
  }
  location.hash = `#/match/${v.id}`;
}

async function acceptRematch({ id, seat }) {
  try {
    await api("POST", `/v1/matches/${id}/join`, seat == null ? {} : { seat });
  } catch (e) {
    // Already seated there (our own offer, or accepted in another tab): just go.
    if (!(e instanceof ApiError) || e.status !== 409) throw e;
  }
  location.hash = `#/match/${id}`;
}

// ---- replay --------------------------------------------------------------------------------

async function loadReplay(id) {
  show("replay");
  // The match's view gives the steps their seats, names and the viewer's place at the bottom.
  const [r, table] = await Promise.all([api("GET", `/v1/matches/${id}/replay`), api("GET", `/v1/matches/${id}`)]);
  const hands = r.hands.map((hd) => {
    const check = h("span", { class: "check" }, "…");
    verify(hd.seed, hd.shuffle_commitment).then((ok) => {
      check.textContent = ok ? "✓ 种子与承诺相符 seed matches the commitment" : "✗ 种子不符 seed does not match";
      check.classList.toggle("bad", !ok);
    });
    return h("details", { open: true, class: "replay-hand" },
      h("summary", {}, `第${hd.hand_no}手 Hand ${hd.hand_no}`),
      h("p", { class: "seed" }, "种子 seed ", h("code", {}, hd.seed || "—"), " ", check),
      hd.steps?.length
        ? stepper(hd.steps.map((st, i) => stepView(table, hd, st, hd.steps_complete && i === hd.steps.length - 1)))
        : actionLog(hd),
      h("details", {}, h("summary", {}, "发的牌 dealt deck"), renderValue(hd.deck)),
      h("details", {}, h("summary", {}, "结果数据 result data"), renderValue(hd.result ?? {})));
  });
  $("#replay").replaceChildren(
    h("h1", {}, `回放 Replay · ${GAMES[r.game]?.name || r.game}`),
    h("p", { class: "links" }, h("a", { href: "#/lobby" }, "大厅 lobby"), " ", h("a", { href: `#/match/${id}` }, "牌桌 table")),
    ...(hands.length ? hands : [h("p", {}, "还没有打完的一手 no hand has finished yet")]));
}

// A replay step (api.md § Replays: the game's state after it, every seat's own cards) as the
// table draws a view: the match's seats around that state, each seat's cards in `state.hands`
// (where `revealed` finds them) and the bottom seat's as its hand; the hand's result on the
// last step (when the steps reach it). The names are the match's seats now.
function stepView(table, hd, step, last) {
  const me = table.you?.seat ?? 0;
  const own = step.hands ?? [];
  const state = { ...step.view };
  if (own.some((c) => c != null)) state.hands = own;
  if (own[me] != null) state.hand = own[me];
  return { ...step, view: { ...table, status: "playing", to_act: [], deadline: null, legal_actions: [],
    state, last_result: last ? hd.result ?? null : null } };
}

// A hand you can watch: the table at each step (every hand revealed), with ◀ ▶ and a slider.
function stepper(steps) {
  const stage = h("div", { class: "stage" });
  const caption = h("p", { class: "caption" });
  const slider = h("input", { type: "range", min: 0, max: steps.length - 1, value: 0, class: "slider" });
  let at = 0;
  const go = (i) => {
    at = Math.max(0, Math.min(steps.length - 1, i));
    slider.value = at;
    const s = steps[at];
    const v = s.view;
    const who = s.seat != null ? v.seats[s.seat]?.username || `座 ${s.seat}` : "";
    caption.replaceChildren(`${at + 1}/${steps.length} `, who ? h("b", {}, who) : "", " ",
      s.action ? renderValue(s.action) : at === 0 ? "发牌 the deal" : "自动 automatic step");
    caption.dataset.step = at;
    const last = v.last_result && at === steps.length - 1 ? resultBox(v, "replay-result") : null;
    stage.replaceChildren(...[drawBoard(v), last].filter(Boolean));
  };
  slider.addEventListener("input", () => go(Number(slider.value)));
  go(0);
  return h("div", { class: "stepper" },
    h("div", { class: "step-bar" },
      h("button", { class: "step-prev", onclick: () => go(at - 1) }, "◀"),
      slider,
      h("button", { class: "step step-next", onclick: () => go(at + 1) }, "▶")),
    caption, stage);
}

// A server without steps: the action log, stepped through.
function actionLog(hd) {
  const steps = hd.actions.map((a, i) =>
    h("li", { "data-step": i }, h("span", { class: "who" }, `座 ${a.seat}${a.kind === "action" ? "" : ` (${a.kind})`}`), " ",
      a.action ? renderValue(a.action) : ""));
  const list = h("ol", { class: "steps" }, ...steps);
  let at = -1;
  const counter = h("span", {}, `0/${steps.length}`);
  const step = (d) => {
    at = Math.max(-1, Math.min(steps.length - 1, at + d));
    steps.forEach((li, i) => li.classList.toggle("done", i <= at));
    steps[at]?.scrollIntoView({ block: "nearest" });
    counter.textContent = `${at + 1}/${steps.length}`;
  };
  return h("div", {},
    h("h3", {}, "出牌记录 actions ", h("button", { class: "step-prev", onclick: () => step(-1) }, "◀"), counter,
      h("button", { class: "step step-next", onclick: () => step(1) }, "▶")),
    list);
}

// The revealed seed hashes to the commitment shown before the deal (SHA-256 of its bytes).
async function verify(seed, commitment) {
  if (!seed || !commitment) return false;
  const bytes = new Uint8Array(seed.match(/../g).map((x) => parseInt(x, 16)));
  return (await sha256Hex(bytes)) === commitment;
}

// Without the game list the lobby offers no game, but logging in, matches and replays still
// work (they name a game by its name).
loadGames().then(listGames, (e) => say(`the game list did not load (${e.message}): reload the page`, true))
  .finally(() => {
    window.addEventListener("hashchange", () => {
      say("");
      route();
    });
    route();
  });
