// Cards drawn as cards (docs/api.md § Cards): poker cards "10H", "QS", jokers "RJ"/"BJ",
// and 扯胡子's paper cards "s1".."s10" (小 一…十), "b1".."b10" (大 壹…拾), "W" (王霸).

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SMALL = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十"];
const BIG = ["壹", "贰", "叁", "肆", "伍", "陆", "柒", "捌", "玖", "拾"];

const POKER = /^(10|[2-9JQKA])([SHDC])$/;
const PAPER = /^([sb])(10|[1-9])$/;

export function isCard(v) {
  return typeof v === "string" && (POKER.test(v) || PAPER.test(v) || v === "RJ" || v === "BJ" || v === "W");
}

export function isCardList(v) {
  return Array.isArray(v) && v.length > 0 && v.every(isCard);
}

// One card as an element; `code` stays in data-card so tests and selection can read it.
export function cardEl(code) {
  const el = document.createElement("span");
  el.className = "card";
  el.dataset.card = code;
  el.title = code;
  let m;
  if ((m = POKER.exec(code))) {
    el.classList.add(m[2] === "H" || m[2] === "D" ? "red" : "black");
    el.innerHTML = `<b>${m[1]}</b><i>${SUITS[m[2]]}</i>`;
  } else if (code === "RJ" || code === "BJ") {
    el.classList.add("joker", code === "RJ" ? "red" : "black");
    el.innerHTML = `<b>${code === "RJ" ? "大" : "小"}</b><i>王</i>`;
  } else if ((m = PAPER.exec(code))) {
    const n = Number(m[2]);
    const red = n === 2 || n === 7 || n === 10;
    el.classList.add("paper", red ? "red" : "black");
    el.innerHTML = `<b>${(m[1] === "s" ? SMALL : BIG)[n - 1]}</b>`;
  } else if (code === "W") {
    el.classList.add("paper", "red");
    el.innerHTML = "<b>王</b>";
  } else {
    el.textContent = code;
  }
  return el;
}

export function cardRow(codes, onClick) {
  const row = document.createElement("span");
  row.className = "cards";
  codes.forEach((code, i) => {
    const el = cardEl(code);
    if (onClick) {
      el.tabIndex = 0;
      el.addEventListener("click", () => onClick(i, el));
    }
    row.append(el);
  });
  return row;
}

// The caller's hand in one row that fans (cards overlap to fit the width) or, past the
// smallest overlap a finger can still pick, scrolls sideways inside itself (never the page).
export function handRow(codes, onClick) {
  const row = cardRow(codes, onClick);
  row.classList.add("hand-row");
  row.id = "hand";
  const fit = () => {
    if (!row.isConnected) return;
    const cards = row.children.length;
    if (cards < 2) return;
    const width = row.clientWidth;
    const first = row.firstElementChild;
    const card = first.getBoundingClientRect().width;
    // Visible part of every card but the last: at least its corner index, at most all of it.
    const index = parseFloat(getComputedStyle(first).fontSize) * 1.45;
    const step = Math.max(Math.min(index, card), Math.min(card + 2, (width - card) / (cards - 1)));
    row.style.setProperty("--overlap", `${(step - card).toFixed(1)}px`);
  };
  requestAnimationFrame(fit);
  // Refit when the width changes (a phone turned), until the table is drawn again.
  const watch = new ResizeObserver(() => (row.isConnected ? fit() : watch.disconnect()));
  watch.observe(row);
  return row;
}

// A hand as that game's players hold it. The server sends every hand strongest first (升级
// and 三打哈: trumps, then each suit; 打炸 by rank), which is how those are held; 扯胡子's
// players hold their cards in columns by number, 大 beside 小, so pairs, 坎 and 绞 show.
export function sortHand(game, cards) {
  if (game !== "chehuzi") return [...cards];
  const key = (c) => (c === "W" ? 100 : Number(c.slice(1)) * 2 + (c[0] === "b" ? 1 : 0));
  return [...cards].sort((a, b) => key(b) - key(a));
}

// A card back, for cards a seat holds but may not show.
export function backs(n, max = 30) {
  const row = document.createElement("span");
  row.className = "cards backs";
  for (let i = 0; i < Math.min(n, max); i++) {
    const el = document.createElement("span");
    el.className = "card back";
    row.append(el);
  }
  if (n > max) row.append(` ×${n}`);
  return row;
}

// Any JSON value, with every list of cards drawn as cards: the game-specific parts of a
// view (state, last_result, replay logs) need no code of their own per game. Nulls, falses
// and empty lists are left out, a true shows as its key, an object of plain values on a line.
export function renderValue(v) {
  if (isCard(v)) return cardEl(v);
  if (isCardList(v)) return cardRow(v);
  if (Array.isArray(v)) {
    if (v.every((x) => x === null || typeof x !== "object")) {
      return document.createTextNode(v.map((x) => x ?? "–").join(" "));
    }
    const ol = document.createElement("ol");
    ol.className = "list";
    for (const x of v) {
      const li = document.createElement("li");
      li.append(renderValue(x));
      ol.append(li);
    }
    return ol;
  }
  if (v && typeof v === "object") {
    const shown = Object.entries(v).filter(([, x]) => x !== null && x !== false && !(Array.isArray(x) && !x.length));
    const flat = shown.every(([, x]) => typeof x !== "object" || isCardList(x));
    const box = document.createElement(flat ? "span" : "dl");
    box.className = flat ? "flat" : "obj";
    for (const [k, x] of shown) {
      const key = document.createElement(flat ? "span" : "dt");
      key.className = "key";
      key.textContent = k;
      if (flat) {
        const kv = document.createElement("span");
        kv.className = "kv";
        kv.append(key);
        if (x !== true) kv.append(" ", renderValue(x));
        box.append(kv);
      } else {
        const dd = document.createElement("dd");
        dd.append(renderValue(x));
        box.append(key, dd);
      }
    }
    return box;
  }
  return document.createTextNode(String(v));
}

// ---- each game's table ----------------------------------------------------------------------

// An element: attributes (on… are listeners), then children (null and false left out).
export const h = (tag, attrs = {}, ...children) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) el.setAttribute(k, v);
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
};

export const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
const suitEl = (s) => h("span", { class: s === "H" || s === "D" ? "suit red" : "suit" }, SUIT[s]);
const RANK = { 11: "J", 12: "Q", 13: "K", 14: "A" };
const PLACE = ["", "上游", "二游", "三游", "下游"];
export const DAZHA_KIND = {
  single: "单张", pair: "对子", triple: "三张", pairs_run: "连对", triple_with_two: "三带二",
  triples_with_twos: "飞机 连三带二", straight: "顺子", wushik_mixed: "五十K", wushik_suited: "同花五十K",
  bomb: "炸弹", joker_bomb: "王炸", big_joker_bomb: "大王炸", small_joker_bomb: "小王炸",
};
const fact = (zh, en, value) => h("span", { class: "fact" }, h("b", {}, zh), " ", value, " ", h("small", {}, en));
const tag = (zh, en, cls = "") => h("span", { class: `tag ${cls}` }, zh, " ", h("small", {}, en));
const small = (cards) => {
  const r = cardRow(cards);
  r.classList.add("small");
  return r;
};
const seatOf = (v, i) => v.state?.seats?.find?.((s) => s.seat === i);

// Plays in the middle of the table (a trick, a 打炸 round): each seat's cards by name.
function plays(list, name, winner) {
  return h("div", { class: "plays" }, list.map((p) =>
    h("div", { class: `play${p.seat === winner ? " winning" : ""}` },
      h("span", { class: "who" }, name(p.seat)),
      p.pass ? h("span", { class: "pass" }, "过 pass") : small(p.cards))));
}

// Every hand revealed (a replay step's view): the seat's cards wherever the view puts them.
export function revealed(v, i) {
  const st = seatOf(v, i);
  const list = v.state?.hands?.[i] ?? st?.hand ?? st?.cards_in_hand ?? null;
  return Array.isArray(list) && list.length ? list : null;
}

// Per game: `seat(v, i, name)`: what a seat shows beside its name; `center(v, name)`: the
// middle of the table (the combination to beat, the trick, the pot, the claimed card);
// `facts(v, name)`: the hand's declaration, trump, bottom, levels; `partners(v, you)`: the
// seats playing with the viewer; `hand(v)`: the viewer's cards.
export const BOARDS = {
  chexuan: {
    seat(v, i) {
      const s = seatOf(v, i);
      if (!s) return [];
      if (!s.playing) return v.status === "playing" ? [tag("休", "sitting out")] : [];
      const mine = v.you?.seat === i;
      return [
        s.bobo_left != null || s.bobo != null ? fact("簸簸", "bobo", `${s.bobo_left ?? "?"}/${s.bobo ?? "?"}`) : null,
        s.put_in ? fact("下", "in", s.put_in) : null,
        s.folded ? tag("丢", "folded", "warn") : null,
        s.all_in ? tag("敲", "all in", "hot") : null,
        !mine && s.face_up?.length ? small(s.face_up) : null,
        !mine && s.hidden?.length && !s.split ? small(s.hidden) : null,
        !mine && !s.hidden?.length && s.hidden_count ? backs(s.hidden_count) : null,
        s.split ? h("span", { class: "split" }, "头 ", small(s.split.head), ` ${s.split.head_name} · 尾 `,
          small(s.split.tail), ` ${s.split.tail_name}`) : s.split_submitted ? tag("已分", "split") : null,
        s.sanhua ? tag(s.sanhua, "") : null,
      ];
    },
    center(v) {
      const st = v.state;
      const what = {
        bobo: ["设簸簸", "everyone sets a 簸簸"], betting: [`第${st.round ?? "?"}轮下注`, `betting round ${st.round ?? ""}`],
        showdown: ["分牌比大小", "split into 头 and 尾"], settled: ["本手结束", "hand over"],
      }[st.phase] ?? [st.phase, ""];
      return [
        h("div", { class: "big" }, "底池 ", h("b", {}, st.pot ?? 0), " ", h("small", {}, "pot")),
        h("div", { class: "to-beat" }, what[0], " ", h("small", {}, what[1]),
          st.level ? h("span", {}, ` · 注 ${st.level} `, h("small", {}, "to match")) : null),
      ];
    },
    facts: (v, name) => [fact("底皮", "ante", v.state.ante), fact("庄", "dealer", name(v.state.dealer)),
      v.state.base_points ? fact("基本积分", "base points", v.state.base_points) : null],
    partners: () => [],
    hand(v) {
      const s = seatOf(v, v.you?.seat);
      return s ? [...(s.face_up || []), ...(s.hidden || [])] : [];
    },
  },

  dazha: {
    seat(v, i) {
      const st = v.state;
      const s = seatOf(v, i);
      if (!s) return [];
      return [
        fact("剩", "left", s.cards_left ?? "?"),
        s.cards_left != null && s.cards_left <= 10 && v.you?.seat !== i ? tag("报牌", "≤10", "hot") : null,
        s.captured ? fact("分", "points", s.captured) : null,
        s.place ? tag(PLACE[s.place] || `${s.place}游`, `#${s.place}`, "good") : null,
        st.turn === i && st.round?.top == null ? tag("领出", "leads") : null,
      ];
    },
    center(v, name) {
      const r = v.state.round;
      if (!r) return [h("div", { class: "to-beat" }, "等待发牌 ", h("small", {}, "waiting for the deal"))];
      const top = r.top;
      // What came after the play to beat (passes), or the round's last plays on a lead.
      const from = top ? r.plays.findLastIndex((p) => p.seat === top.seat && !p.pass) + 1 : 0;
      const recent = r.plays.slice(Math.max(from, r.plays.length - 3));
      return [
        top ? h("div", { class: "to-beat" }, h("span", { class: "label" }, "要打 to beat: "),
          `${DAZHA_KIND[top.combo.type] || top.combo.type}${top.combo.size ? ` ${top.combo.size}张` : ""} · ${name(top.seat)}`,
          small(top.cards))
          : h("div", { class: "to-beat" }, `${name(r.leader)} 领出 `, h("small", {}, "leads any combination")),
        plays(recent, name, top?.seat),
        r.points ? h("div", {}, `本轮 ${r.points} 分 `, h("small", {}, "points in this round")) : null,
      ];
    },
    facts(v, name) {
      const st = v.state;
      const mine = st.teams?.findIndex((t) => t.includes(v.you?.seat));
      return [
        fact("底分", "stake", 3 * st.base),
        st.team_points ? fact(mine >= 0 ? "我方/对方" : "分", "team points",
          mine >= 0 ? `${st.team_points[mine]} / ${st.team_points[1 - mine]}` : st.team_points.join(" / ")) : null,
        st.bombs?.length ? fact("炸弹", "bombs", st.bombs.map((b) => `${name(b.seat)} ${b.cards.length}`).join(", ")) : null,
        st.mode === "12zhashen" ? tag("12炸神", "mode") : null,
      ];
    },
    partners(v, you) {
      const team = v.state.teams?.find((t) => t.includes(you));
      return team ? team.filter((s) => s !== you) : [];
    },
    hand: (v) => v.state?.hand || [],
  },

  shengji: {
    seat(v, i) {
      const st = v.state;
      const d = st.declaration;
      return [
        fact("剩", "left", st.cards_left?.[i] ?? "?"),
        fact("级", "level", RANK[st.levels?.[i % 2]] ?? st.levels?.[i % 2]),
        st.dealer === i ? tag("庄", "dealer", "good") : null,
        d && d.seat === i ? tag(`亮 ${d.count}×`, d.suit ? SUIT[d.suit] : "declared") : null,
      ];
    },
    center(v, name) {
      const st = v.state;
      if (st.trick?.length) return [h("div", { class: "to-beat" }, `${name(st.trick[0].seat)} 领出 `, h("small", {}, "led")), plays(st.trick, name)];
      const last = st.tricks?.at(-1);
      if (last) return [h("div", { class: "to-beat" }, `上一墩 ${name(last.winner)} 赢 (${last.points} 分) `, h("small", {}, "last trick")), plays(last.plays, name, last.winner)];
      if (v.phase === "declaring") return [h("div", { class: "to-beat" }, "亮主 ", h("small", {}, "show 2s to declare trump"))];
      return [h("div", { class: "to-beat" }, st.turn != null ? `${name(st.turn)} 领出 ` : "", h("small", {}, st.turn != null ? "leads" : ""))];
    },
    facts(v, name) {
      const st = v.state;
      const us = v.you ? v.you.seat % 2 : 0;
      return [
        st.trump ? fact("主", "trump", suitEl(st.trump)) : st.declaration
          ? fact("亮主", "declared", `${name(st.declaration.seat)} ${st.declaration.count}×${st.declaration.suit ? SUIT[st.declaration.suit] : "?"}`) : null,
        fact(v.you ? "我方/对方" : "级", "levels", `${RANK[st.levels[us]] ?? st.levels[us]} / ${RANK[st.levels[1 - us]] ?? st.levels[1 - us]}`),
        st.dealer != null ? fact("庄", "dealer", name(st.dealer)) : null,
        fact("抓分", "defenders", st.defenders_points),
      ];
    },
    partners: (v, you) => [(you + 2) % 4],
    hand: (v) => v.state?.hand || [],
  },

  sandaha: {
    seat(v, i) {
      const st = v.state;
      const call = [...(st.bids || [])].reverse().find((c) => c.seat === i);
      return [
        fact("剩", "left", st.card_counts?.[i] ?? "?"),
        st.banker === i ? tag("庄", "banker", "good") : null,
        st.phase === "bidding" && call ? tag(call.bid == null ? "不叫" : `叫 ${call.bid}`, call.bid == null ? "pass" : "bid") : null,
        st.void_in_trumps?.[i] ? tag("报副", "no trumps", "warn") : null,
      ];
    },
    center(v, name) {
      const st = v.state;
      const t = st.trick?.plays?.length ? st.trick : st.tricks?.at(-1);
      const shape = t?.shape ? { single: "单张", pair: "对子", tractor: "拖拉机", throw: "甩牌" }[t.shape.kind] ?? t.shape.kind : "";
      if (t) {
        const done = t.winner != null;
        return [h("div", { class: "to-beat" }, done ? `上一墩 ${name(t.winner)} 赢 ` : `${name(t.leader)} 领出 ${shape} `,
          h("small", {}, done ? "last trick" : "led"), t.points ? ` · ${t.points} 分` : ""), plays(t.plays, name, t.winner)];
      }
      const what = { bidding: ["叫分", "bidding"], trump: ["定主", "banker names trump"], bury: ["埋底", "banker buries 8"],
        decide: ["投降或继续", "surrender or play on"] }[st.phase] ?? [st.phase, ""];
      return [h("div", { class: "to-beat" }, what[0], " ", h("small", {}, what[1]))];
    },
    facts(v, name) {
      const st = v.state;
      return [
        st.bid != null ? fact("叫分", "bid", st.bid) : st.standing_bid != null ? fact("现叫", "standing bid", st.standing_bid) : null,
        st.banker != null ? fact("庄", "banker", name(st.banker)) : null,
        st.trump_chosen ? fact("主", "trump", st.trump ? suitEl(st.trump) : "无主 none") : null,
        fact("底", "bottom", st.bottom_count),
        st.buried?.length ? h("span", { class: "fact" }, h("b", {}, "埋"), " ", small(st.buried)) : null,
        fact("闲家得分", "defenders", st.defenders_points),
        st.deal > 1 ? tag(`第${st.deal}次发牌`, "all four passed: dealt again", "warn") : null,
      ];
    },
    partners(v, you) {
      const b = v.state.banker;
      return b == null || b === you ? [] : [0, 1, 2, 3].filter((s) => s !== b && s !== you);
    },
    hand: (v) => v.state?.hand || [],
  },

  chehuzi: {
    seat(v, i) {
      const s = seatOf(v, i);
      if (!s) return [];
      return [
        fact("手", "cards", s.cards),
        v.state.dealer === i ? tag("庄", "dealer", "good") : null,
        s.melds?.length ? h("span", { class: "melds" }, s.melds.map((m) => (m.cards ? small(m.cards) : backs(m.size)))) : null,
        s.passed?.length ? h("span", { class: "passed" }, "弃 ", small(s.passed.slice(-5))) : null,
      ];
    },
    center(v, name) {
      const st = v.state;
      const c = st.claim;
      if (c?.card) {
        const how = { discard: "打出", draw: "摸出", placed: "摸到" }[c.source] ?? c.source;
        return [h("div", { class: "to-beat" }, `${name(c.from)} ${how} `, cardEl(c.card), " ",
          h("small", {}, `${c.source}: claim window 可碰/吃/胡`))];
      }
      return [h("div", { class: "to-beat" }, st.turn != null ? `${name(st.turn)} 出牌 ` : "", h("small", {}, st.turn != null ? "to discard" : ""))];
    },
    facts: (v) => [fact("墩", "stock", v.state.stock), fact("醒", "xing", v.state.xing === "gen" ? "跟醒" : "翻醒"),
      fact("王", "kings", v.state.kings), v.state.rate > 1 ? fact("倍率", "rate", v.state.rate) : null],
    partners: () => [],
    hand: (v) => v.state?.hand || [],
  },
};
