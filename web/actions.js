// The view's legal_actions (each game's templates, docs/rules/<game>.md) as controls. A
// template becomes one or more buttons; those that need cards take the cards selected in
// the hand, and those that need an amount get a number field.

const NAMES = {
  set_bobo: "簸簸 set bobo", sit_out: "sit out", check: "休 check", call: "跟 call",
  raise: "大 raise to", all_in: "敲 all in", fold: "丢 fold", split: "分牌 split",
  play: "出牌 play", pass: "过 pass", declare: "亮主 declare", bid: "叫分 bid",
  trump: "定主 trump", bury: "埋底 bury", surrender: "投降 surrender", play_on: "继续 play on",
  discard: "打出 discard", chi: "吃 chi", peng: "碰 peng", hu: "胡 hu",
};
const SUIT_NAMES = { S: "♠", H: "♥", D: "♦", C: "♣" };

// A button that, clicked, sends an `act` event carrying the action `make()` builds.
function button(label, type, make, enabled = true) {
  const b = document.createElement("button");
  b.className = "action";
  b.textContent = label;
  b.disabled = !enabled;
  b.dataset.action = type;
  b.addEventListener("click", () => b.dispatchEvent(new CustomEvent("act", { bubbles: true, detail: make() })));
  return b;
}

function amountField(t, field, label) {
  const wrap = document.createElement("span");
  const input = document.createElement("input");
  Object.assign(input, { type: "number", min: t.min, max: t.max, value: t.min, name: t.type });
  const make = () => ({ type: t.type, [field]: Number(input.value) });
  wrap.append(input, button(`${label} (${t.min}–${t.max})`, t.type, make));
  return wrap;
}

// `selected`: the codes of the cards picked in the hand; `all`: the whole hand.
export function controls(templates, selected, all) {
  const out = [];
  for (const t of templates) {
    const name = NAMES[t.type] || t.type;
    const act = (label, make, enabled) => out.push(button(label, t.type, make, enabled));
    switch (t.type) {
      case "set_bobo":
        out.push(amountField(t, "amount", name));
        break;
      case "raise":
        out.push(amountField(t, "to", name));
        break;
      case "call":
      case "all_in":
        act(`${name} ${t.amount ?? ""}`.trim(), () => ({ type: t.type }));
        break;
      case "split":
        act(`${name}: selected 2 = 头 head`, () => {
          const tail = [...all];
          for (const c of selected) tail.splice(tail.indexOf(c), 1);
          return { type: "split", head: selected, tail };
        }, selected.length === 2 && all.length === 4);
        break;
      case "play": {
        const need = t.count ? ` (${t.count})` : t.min_cards > 1 ? ` (≥${t.min_cards})` : "";
        act(`${name}${need}`, () => ({ type: "play", cards: selected }), selected.length > 0);
        break;
      }
      case "declare":
        act(name, () => ({ type: "declare", cards: selected }), selected.length > 0);
        break;
      case "bury":
        act(`${name} (${selected.length}/${t.count})`, () => ({ type: "bury", cards: selected }),
          selected.length === t.count);
        break;
      case "bid":
        act(`${name} ${t.value}`, () => ({ type: "bid", value: t.value }));
        break;
      case "trump":
        for (const s of t.suits) {
          act(`${name} ${s ? SUIT_NAMES[s] : "无主 none"}`, () => ({ type: "trump", suit: s }));
        }
        break;
      case "discard":
        act(name, () => ({ type: "discard", card: selected[0] }),
          selected.length === 1 && t.cards.includes(selected[0]));
        break;
      case "chi":
        for (const melds of t.options) {
          act(`${name} ${melds.map((m) => m.join(" ")).join(" | ")}`, () => ({ type: "chi", melds }));
        }
        break;
      default:
        act(name, () => ({ type: t.type }));
    }
  }
  return out;
}
