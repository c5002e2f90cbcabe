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
        // 升级: one button per suit and count offered, showing that many 2s of the suit.
        if (Array.isArray(t.options)) {
          for (const o of t.options) {
            for (const n of o.counts) {
              act(`${name} ${SUIT_NAMES[o.suit]}×${n}`, () => ({ type: "declare", cards: Array(n).fill(`2${o.suit}`) }));
            }
          }
        } else act(name, () => ({ type: "declare", cards: selected }), selected.length > 0);
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

// ---- refusals -------------------------------------------------------------------------------

// A refused action in words: the server's `detail` (Chinese, as the page asks for it), the
// rule's code in English beside it, and the cards the rule is about (marked in the hand).
export function refusal(problem) {
  const rule = problem.rule ? problem.rule.replaceAll("_", " ") : problem.code?.replaceAll("_", " ");
  const zh = problem.detail || problem.title || "";
  return { text: rule && !zh.includes(rule) ? `${zh} (${rule})` : zh, cards: problem.cards || [] };
}

// ---- results in words -----------------------------------------------------------------------

const signed = (n) => (n > 0 ? `+${n}` : `${n}`);
const SANDAHA_VERDICT = {
  daguang: ["大光", "the defenders took no point"], xiaoguang: ["小光", "the defenders took under 25"],
  guozhuang: ["过庄", "the banker made the bid"], kuazhuang: ["垮庄", "the defenders reached the bid"],
  xiaodao: ["小倒", "the defenders passed the bid by 35"], dadao: ["大倒", "the defenders passed the bid by 70"],
};
const MINGTANG = {
  hong_hu: "红胡", hong_zhuan_dian: "红转点", hong_zhuan_hei: "红转黑", yi_dian_zhu: "一点朱", hei_hu: "黑胡",
  zi_mo: "自摸", wang_diao: "王钓", wang_diao_wang: "王钓王", wang_chuang: "王闯", wang_chuang_wang: "王闯王",
  san_wang_chuang_wang: "三王闯王",
};
const REASON = {
  four_jokers: ["四王", "all four jokers"], zhashen: ["炸神", "all twelve jokers"],
  jokers_without_bomb: ["有王没炸", "jokers that no bomb can carry"], capped_bomb: ["顶炸", "a bomb at the cap"],
};

// The words under a finished hand: `you` (your coins and 积分 in one line), `players` (each by
// name) and `story` (what happened: a showdown, 摊牌, 荒庄, a surrender, an escape…).
export function resultWords(v, name) {
  const r = v.last_result;
  if (!r) return null;
  const coins = r.room_coins ?? r.coins ?? [];
  const points = r.points ?? [];
  const d = r.detail ?? r;
  const me = v.you?.seat;
  let you = null;
  if (me != null && (coins[me] != null || points[me] != null)) {
    const c = coins[me] ?? 0;
    const p = points[me] ?? 0;
    const verb = c > 0 || (c === 0 && p > 0) ? ["你赢了", "You won"] : c < 0 || p < 0 ? ["你输了", "You lost"] : ["不输不赢", "Even"];
    // Games that stake no coins (积分 only) say so without a "0 coins".
    you = c ? `${verb[0]} ${Math.abs(c)} 金币 · 积分 ${signed(p)} / ${verb[1]} ${Math.abs(c)} coins · ${signed(p)} points`
      : `${verb[0]} · 积分 ${signed(p)} / ${verb[1]} · ${signed(p)} points`;
  }
  const staked = coins.some(Boolean);
  const players = v.seats.map((s) => `${name(s.seat)}${staked ? ` ${signed(coins[s.seat] ?? 0)} 金币 ·` : ""} 积分 ${signed(points[s.seat] ?? 0)}`);
  const story = (STORIES[v.game] ?? (() => null))(d, name, v);
  return { hand_no: r.hand_no, you, players, story };
}

const STORIES = {
  chexuan(d, name) {
    switch (d.ending) {
      case "draw":
        return "平局：这一轮大家都休（或只剩不到两家），簸簸全退，没有输赢。 / A draw: everyone checked a round (or fewer than two were left to play), so every 簸簸 went back.";
      case "uncontested": {
        const w = d.net.findIndex((n) => n > 0);
        return `其他人都丢了牌，${w >= 0 ? name(w) : "最后一家"} 收下桌面。 / Everyone else folded: ${w >= 0 ? name(w) : "the last seat"} took the table.`;
      }
      case "escape": {
        const e = d.escape;
        return `${name(e.seat)} 逃跑，赔桌面总额 ${e.table_total}（簸簸 ${e.from_bobo}，钱包 ${e.from_wallet}）。 / ${name(e.seat)} left mid-hand and paid the table total, ${e.table_total}.`;
      }
      default: {
        const hands = d.hands.map((x) => `${name(x.seat)} 头 ${x.head_name} · 尾 ${x.tail_name}${x.sanhua ? ` (${x.sanhua})` : ""}`);
        const beats = d.beats.map((b) => `${name(b.winner)} 胜 ${name(b.loser)}`);
        return `摊牌比大小 showdown: ${hands.join("; ")}. ${beats.join(", ")}.`;
      }
    }
  },
  dazha(d, name) {
    if (d.kind === "tanpai") {
      const shown = d.shown.map((s) => `${name(s.seat)}：${s.reasons.map((x) => REASON[x]?.[0] ?? x).join("、")}${s.jokers_fined ? `，罚王 ${s.jokers_fined}` : ""}`);
      const en = d.shown.map((s) => `${name(s.seat)} (${s.reasons.map((x) => REASON[x]?.[1] ?? x).join(", ")})`);
      return `摊牌：发完牌就结束了，这手没有打。${shown.join("；")}。 / 摊牌: the hand ended at the deal, unplayed: ${en.join("; ")} had to show.`;
    }
    if (d.kind === "escape") {
      return `${name(d.seat)} 逃跑，赔每家 4 倍低分${d.bonus ? "，其他人另得 1 倍" : ""}。 / ${name(d.seat)} left mid-hand and paid everyone.`;
    }
    const team = d.teams[d.winner_team].map(name).join(" & ");
    const order = d.order_out.map((s, i) => `${PLACE_NAME[i] ?? i + 1} ${name(s)}`).join(", ");
    const bombs = d.bombs_scored.map((b) => `${name(b.seat)} 的 ${b.scored_size} 炸每家收 ${b.per_player}`);
    return `${team} 赢了${d.shuangkou ? "（双扣，翻倍）" : ""}。出完顺序 ${order}；牌分 ${d.team_points.join(" : ")}。${bombs.length ? ` ${bombs.join("；")}。` : ""} / ${team} won${d.shuangkou ? " with a 双扣 (double)" : ""}; each winner takes ${d.stake_per_player} from a loser.`;
  },
  shengji(d, name) {
    if (d.kind === "escape") return `${name(d.seat)} 逃跑，其队输掉整场。 / ${name(d.seat)} left: that team lost the match.`;
    const team = (t) => [t, t + 2].map(name).join(" & ");
    const trump = d.trump ? { S: "♠", H: "♥", D: "♦", C: "♣" }[d.trump] : "";
    return `庄家 ${name(d.dealer)}，主 ${trump}，抓分方得 ${d.defenders_points} 分：${team(d.gaining_team)} 升 ${d.levels_gained} 级（${d.levels_before.join("/")} → ${d.levels_after.join("/")}）。${d.match_winner != null ? ` ${team(d.match_winner)} 赢得整场。` : ""} / The defenders took ${d.defenders_points}; ${team(d.gaining_team)} went up ${d.levels_gained}.`;
  },
  sandaha(d, name) {
    if (d.end === "surrendered") return `庄家 ${name(d.banker)} 叫 ${d.bid} 后投降，每个闲家赢 1。 / The banker ${name(d.banker)} surrendered after bidding ${d.bid}: each defender won 1.`;
    if (d.end === "escape") return `${name(d.seat)} 逃跑${d.bonus ? "，其他人另得 1" : ""}。 / ${name(d.seat)} left mid-hand and paid.`;
    const [zh, en] = SANDAHA_VERDICT[d.verdict] ?? [d.verdict, ""];
    const cap = d.bottom_capture ? `扣底 ×${d.bottom_capture.multiple} 加 ${d.bottom_capture.points} 分，` : "";
    return `庄家 ${name(d.banker)} 叫 ${d.bid}，${cap}闲家得 ${d.defenders_points} 分：${zh}。 / The banker bid ${d.bid}, the defenders took ${d.defenders_points}: ${zh}, ${en}.`;
  },
  chehuzi(d, name) {
    if (d.end === "huangzhuang") {
      return `荒庄：墩里的牌摸完了，没有人胡${d.wilds?.some(Boolean) ? `；手里有王的赔（${d.wilds.map((n, i) => `${name(i)} ${n}`).join("，")}）` : ""}。 / 荒庄: the stock ran out with no winner.`;
    }
    if (d.end === "escape") return `${name(d.escaped)} 逃跑，赔给其他人。 / ${name(d.escaped)} left mid-hand and paid the others.`;
    const w = d.win;
    const mt = w.mingtang.map((m) => MINGTANG[m] ?? m).join("、");
    return `${name(d.winner)} ${w.self_drawn ? "自摸" : ""}胡了：${w.huxi} 胡息 = ${w.tun} 囤，醒 ${w.xing}，${w.fan} 番${mt ? `（${mt}）` : ""}，每家赔 ${w.score}。 / ${name(d.winner)} won (胡) with ${w.huxi} 胡息: each other player pays ${w.score}.`;
  },
};
const PLACE_NAME = ["上游", "二游", "三游", "下游"];
