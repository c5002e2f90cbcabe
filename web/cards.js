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

// A card back, for cards a seat holds but may not show.
export function backs(n) {
  const row = document.createElement("span");
  row.className = "cards";
  for (let i = 0; i < Math.min(n, 30); i++) {
    const el = document.createElement("span");
    el.className = "card back";
    row.append(el);
  }
  if (n > 30) row.append(` ×${n}`);
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
