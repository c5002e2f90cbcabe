// The reference web client: login, lobby, a table of any game, the replay of finished hands.
// Pages are hash routes (#/lobby, #/match/<id>, #/replay/<id>); the player's SSE stream says
// when a match changed, and the table reloads its view then.

import { api, ApiError, openStream, session } from "./api.js";
import { backs, cardRow, renderValue } from "./cards.js";
import { controls } from "./actions.js";

// The games the server runs (GET /v1/games), by name: `name` is the label shown, `seats` the
// table sizes. Read once, before the first page is drawn.
const GAMES = {};

async function loadGames() {
  const { games } = await api("GET", "/v1/games");
  for (const g of games) GAMES[g.name] = { name: `${g.title} ${g.name}`, seats: g.seats };
}

const $ = (sel) => document.querySelector(sel);
const h = (tag, attrs = {}, ...children) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) el.setAttribute(k, v);
  }
  el.append(...children.filter((c) => c !== null && c !== undefined));
  return el;
};

function say(text, error = false) {
  const s = $("#status");
  s.textContent = text;
  s.className = error ? "error" : "";
}

function show(id) {
  for (const s of ["login", "lobby", "table", "replay"]) $(`#${s}`).hidden = s !== id;
}

// ---- the stream ----------------------------------------------------------------------------

let stream = null;

// `hello` on every (re)connect, `match` when a match we sit at has a new version, and the
// player's notices, each an event of its own kind. Creating or joining a table is a `seated`
// notice, so the stream follows every match we sit at.
const NOTICES = {
  seated: (d) => `seated at a ${d.game} table`,
  tournament_table: (d) => `your table for round ${d.round} is ready`,
  eliminated: (d) => `out of the tournament in round ${d.round}`,
  tournament_finished: () => "a tournament you played is over",
};

function connect() {
  stream?.close();
  const handlers = { hello: () => onNews(null), match: onNews };
  for (const [kind, text] of Object.entries(NOTICES)) {
    handlers[kind] = (d) => {
      if (kind !== "seated") say(text(d));
      onNews(d);
    };
  }
  stream = openStream(handlers);
}

const onNews = (d) => {
  const r = current();
  if (r.page === "match" && (!d || d.match_id === r.id)) guard(loadMatch)(r.id);
  if (r.page === "lobby") guard(loadLobby)();
};

// ---- routing -------------------------------------------------------------------------------

function current() {
  const [, page, id] = location.hash.split("/");
  return { page: page || "lobby", id };
}

function route() {
  say("");
  if (!session.token) {
    show("login");
    $("#who").textContent = "";
    $("#logout").hidden = true;
    return;
  }
  $("#who").textContent = session.user.username;
  $("#logout").hidden = false;
  if (!stream) connect();
  const r = current();
  if (r.page === "match") {
    view = null;
    guard(loadMatch)(r.id);
  } else if (r.page === "replay") guard(loadReplay)(r.id);
  else guard(loadLobby)();
}

const guard = (f) => async (...args) => {
  try {
    await f(...args);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      session.clear();
      stream?.close();
      stream = null;
      route();
    }
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

$("#logout").addEventListener("click", () => {
  session.clear();
  stream?.close();
  stream = null;
  route();
});

// ---- lobby ---------------------------------------------------------------------------------

const seatsField = $("#create-form input[name=seats]");
const gameField = $("#create-form select[name=game]");

// The seats field fits the chosen game: its range, and its default (else its fewest seats).
function fitSeats() {
  const { min, max, default: seats } = GAMES[gameField.value].seats;
  Object.assign(seatsField, { min, max, value: seats ?? min });
}

// The game lists of the lobby, once the games are known.
function listGames() {
  for (const sel of [gameField, $("#open-game")]) {
    for (const [g, info] of Object.entries(GAMES)) sel.append(h("option", { value: g }, info.name));
  }
  fitSeats();
}

gameField.addEventListener("change", fitSeats);
$("#open-game").addEventListener("change", guard(loadLobby));

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
  const view = await api("POST", "/v1/matches", body);
  location.hash = `#/match/${view.id}`;
}));

let lobbyLoads = 0;

async function loadLobby() {
  show("lobby");
  const ticket = ++lobbyLoads;
  const game = $("#open-game").value;
  const [me, open, mine] = await Promise.all([
    api("GET", "/v1/me"),
    api("GET", `/v1/matches?game=${game}&status=waiting`),
    api("GET", "/v1/me/matches"),
  ]);
  if (ticket !== lobbyLoads) return; // a newer load (another game chosen) is on its way
  $("#who").textContent = `${me.username} · ${me.coins} coins`;
  const openRows = open.matches.map((m) =>
    h("tr", {},
      h("td", {}, GAMES[m.game]?.name || m.game),
      h("td", {}, `${m.taken}/${m.seats} seats`),
      h("td", {}, m.players.map((p) => p.username + (p.bot ? " (bot)" : "")).join(", ")),
      h("td", {}, m.options.buy_in ? `buy-in ${m.options.buy_in}` : ""),
      h("td", {}, h("button", { class: "join", onclick: guard(() => join(m)) }, "Join"))));
  $("#open-tables").replaceChildren(...(openRows.length ? openRows : [h("tr", {}, h("td", {}, "no open table"))]));
  const mineRows = mine.matches.map((m) =>
    h("tr", { class: m.your_turn ? "your-turn" : "" },
      h("td", {}, GAMES[m.game]?.name || m.game),
      h("td", {}, m.status),
      h("td", {}, `hand ${m.hand_no}`),
      h("td", {}, m.your_turn ? "your turn" : ""),
      h("td", {}, h("a", { href: `#/match/${m.id}` }, "open"), " ",
        m.hand_no > 1 || m.status === "finished" ? h("a", { href: `#/replay/${m.id}` }, "replay") : null)));
  $("#my-matches").replaceChildren(...(mineRows.length ? mineRows : [h("tr", {}, h("td", {}, "none yet"))]));
}

async function join(m) {
  const buyIn = Number($("#create-form input[name=buy_in]").value) || m.options.buy_in || undefined;
  await api("POST", `/v1/matches/${m.id}/join`, buyIn ? { buy_in: buyIn } : {});
  location.hash = `#/match/${m.id}`;
}

// ---- the table -----------------------------------------------------------------------------

let view = null;
let selected = new Set(); // indices into the hand
let hint = null;
let loading = 0;

async function loadMatch(id) {
  const ticket = ++loading;
  const v = await api("GET", `/v1/matches/${id}`);
  if (ticket !== loading) return; // a newer load is on its way
  // The same version again (a reconnect's hello): keep the page as it is, selection included.
  if (view && view.id === v.id && view.version === v.version) return;
  selected = new Set();
  hint = null;
  view = v;
  renderTable();
}

// The cards in the caller's hand: `state.hand`, or 扯旋's own hidden and face-up cards.
function handOf(v) {
  if (Array.isArray(v.state?.hand)) return v.state.hand;
  const mine = v.you && v.state?.seats?.find((s) => s.seat === v.you.seat);
  if (mine && (mine.hidden || mine.face_up)) return [...(mine.face_up || []), ...(mine.hidden || [])];
  return [];
}

const TABLE_SKIP = new Set(["hand", "seats", "tricks", "last_result", "last_hand", "hand_no", "phase"]);

function renderTable() {
  show("table");
  const v = view;
  const you = v.you?.seat;
  const myTurn = you !== undefined && v.to_act.includes(you) && v.status === "playing";
  const hand = handOf(v);
  const seatState = (i) => v.state?.seats?.find?.((s) => s.seat === i);

  const seats = v.seats.map((s) => {
    const st = seatState(s.seat);
    const info = st ? { ...st } : null;
    if (info) {
      delete info.seat;
      if (s.seat === you) delete info.hidden;
    }
    // Cards a seat holds face down, as backs (until a showdown shows them).
    const hidden = st && s.seat !== you && st.hidden_count && !st.hidden ? backs(st.hidden_count) : null;
    return h("div", { class: `seat${v.to_act.includes(s.seat) ? " to-act" : ""}${s.seat === you ? " me" : ""}`, "data-seat": s.seat },
      h("strong", {}, `${s.seat}. ${s.username || "(empty)"}`),
      s.bot ? " (bot)" : s.auto ? " 托管" : null,
      s.coins_at_table != null ? h("span", {}, ` · ${s.coins_at_table} coins`) : null,
      hidden, info ? renderValue(info) : null);
  });

  const table = {};
  for (const [k, x] of Object.entries(v.state || {})) if (!TABLE_SKIP.has(k)) table[k] = x;

  const handRow = cardRow(hand, (i, el) => {
    if (selected.has(i)) selected.delete(i);
    else selected.add(i);
    el.classList.toggle("selected");
    renderControls();
  });
  handRow.id = "hand";
  [...selected].forEach((i) => handRow.children[i]?.classList.add("selected"));

  const finished = v.status === "finished" || v.status === "aborted";
  $("#table").replaceChildren(...[
    h("h1", {}, GAMES[v.game]?.name || v.game, " ", h("small", { id: "match-status", "data-match": v.id, "data-status": v.status },
      // The phase only when it says more than the status (升级's phase is "playing" too).
      [v.status, `hand ${v.hand_no}`, v.phase !== v.status ? v.phase : null, `v${v.version}`]
        .filter(Boolean).join(" · "))),
    h("p", { class: "links" },
      h("a", { href: "#/lobby" }, "← lobby"), " ",
      v.hand_no > 1 || finished || v.last_result ? h("a", { href: `#/replay/${v.id}`, id: "replay-link" }, "replay") : null, " ",
      !v.you && v.status === "waiting" ? h("button", { class: "join", onclick: guard(() => join(v)) }, "Join") : null,
      v.you && !finished ? h("button", { onclick: guard(leave) }, v.status === "waiting" ? "leave" : "逃跑 leave") : null),
    h("div", { class: "seats" }, ...seats),
    h("div", { id: "turn" }),
    hand.length ? h("div", { class: "hand" }, h("h2", {}, "Your hand"), handRow) : null,
    h("div", { id: "controls" }),
    Object.keys(table).length ? h("div", { class: "felt" }, renderValue(table)) : null,
    v.last_result ? h("details", { open: true, class: "result" }, h("summary", {}, `Hand ${v.last_result.hand_no ?? ""} result`), renderValue(v.last_result)) : null,
    v.state?.tricks?.length ? h("details", {}, h("summary", {}, "Tricks"), renderValue(v.state.tricks)) : null,
  ].filter(Boolean));
  renderTurn();
  renderControls();
}

function renderTurn() {
  const v = view;
  const names = v.to_act.map((i) => v.seats[i]?.username || `seat ${i}`).join(", ");
  let text = v.status === "waiting" ? `waiting for players (${v.seats.filter((s) => s.user_id).length}/${v.seats.length})`
    : v.status === "playing"
      ? (names ? `to act: ${names}` : v.phase === "claim" ? "claim window open (others may claim the card)" : "to act: —")
      : `match ${v.status}`;
  if (v.deadline && v.status === "playing") {
    const left = Math.max(0, Math.round((Date.parse(v.deadline) - Date.now()) / 1000));
    text += ` · ${left}s`;
  }
  const el = $("#turn");
  if (el) el.textContent = text;
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
  el.replaceChildren(h("div", {},
    h("div", { class: "buttons" }, ...controls(v.legal_actions, cards, hand),
      h("button", { id: "hint", onclick: guard(askHint) }, "提示 hint")),
    hint ? h("div", { class: "hint" }, "hint: ", renderValue(hint.action), " ",
      h("button", { id: "play-hint", onclick: guard(() => act(hint.action, hint.version)) }, "play hint")) : null));
}

$("#table").addEventListener("act", (e) => guard(act)(e.detail));

async function act(action, version = view.version) {
  const id = view.id;
  try {
    view = await api("POST", `/v1/matches/${id}/actions`, { version, action });
    say("");
  } catch (e) {
    if (e instanceof ApiError && e.problem.view) view = e.problem.view;
    else throw e;
    say(e.message, true);
  }
  selected = new Set();
  hint = null;
  renderTable();
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
  view = await api("POST", `/v1/matches/${view.id}/leave`);
  renderTable();
}

// ---- replay --------------------------------------------------------------------------------

async function loadReplay(id) {
  show("replay");
  const r = await api("GET", `/v1/matches/${id}/replay`);
  const hands = r.hands.map((hd) => {
    const steps = hd.actions.map((a, i) =>
      h("li", { "data-step": i }, h("span", { class: "who" }, `seat ${a.seat}${a.kind === "action" ? "" : ` (${a.kind})`}`), " ",
        a.action ? renderValue(a.action) : ""));
    const list = h("ol", { class: "steps" }, ...steps);
    let at = -1;
    const step = (d) => {
      at = Math.max(-1, Math.min(steps.length - 1, at + d));
      steps.forEach((li, i) => li.classList.toggle("done", i <= at));
      steps[at]?.scrollIntoView({ block: "nearest" });
      counter.textContent = `${at + 1}/${steps.length}`;
    };
    const counter = h("span", {}, `0/${steps.length}`);
    const check = h("span", { class: "check" });
    verify(hd.seed, hd.shuffle_commitment).then((ok) => (check.textContent = ok ? "✓ seed matches the commitment" : "✗ seed does not match"));
    return h("details", { open: true, class: "replay-hand" },
      h("summary", {}, `Hand ${hd.hand_no}`),
      h("p", {}, "seed ", h("code", {}, hd.seed || "—"), " ", check),
      h("h3", {}, "Dealt deck"), renderValue(hd.deck),
      h("h3", {}, "Actions ", h("button", { onclick: () => step(-1) }, "◀"), counter, h("button", { class: "step", onclick: () => step(1) }, "▶")),
      list,
      h("h3", {}, "Result"), renderValue(hd.result));
  });
  $("#replay").replaceChildren(
    h("h1", {}, `Replay · ${GAMES[r.game]?.name || r.game}`),
    h("p", { class: "links" }, h("a", { href: "#/lobby" }, "← lobby"), " ", h("a", { href: `#/match/${id}` }, "table")),
    ...(hands.length ? hands : [h("p", {}, "no hand has finished yet")]));
}

// The revealed seed hashes to the commitment shown before the deal (SHA-256 of its bytes).
async function verify(seed, commitment) {
  if (!seed || !crypto.subtle) return false;
  const bytes = new Uint8Array(seed.match(/../g).map((x) => parseInt(x, 16)));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("") === commitment;
}

// Without the game list the lobby offers no game, but logging in, matches and replays still
// work (they name a game by its name).
loadGames().then(listGames, (e) => say(`the game list did not load (${e.message}): reload the page`, true))
  .finally(() => {
    window.addEventListener("hashchange", route);
    route();
  });
