// The HTTP API (docs/api.md) as the client uses it: a bearer token kept in localStorage,
// problem+json errors thrown as ApiError (details in Chinese first), the player's stream with
// its fallback to long-polling, and SHA-256 for the replay's seed check on any origin.

export class ApiError extends Error {
  constructor(status, problem, retryAfter = null) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }
}

export const session = {
  get token() { return localStorage.getItem("paiju.token"); },
  get user() { return JSON.parse(localStorage.getItem("paiju.user") || "null"); },
  save(body) {
    localStorage.setItem("paiju.token", body.access_token);
    localStorage.setItem("paiju.user", JSON.stringify(body.user));
  },
  clear() {
    localStorage.removeItem("paiju.token");
    localStorage.removeItem("paiju.user");
  },
};

// Refusals' `detail` comes in Chinese when zh ranks above en (docs/api.md § Errors).
const LANGUAGE = "zh-CN,zh;q=0.9,en;q=0.5";

function headers(extra = {}) {
  const h = { "Accept-Language": LANGUAGE, ...extra };
  if (session.token) h.Authorization = `Bearer ${session.token}`;
  return h;
}

export async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: text.slice(0, 200) };
  }
  if (!res.ok) throw new ApiError(res.status, data || {}, retryAfter(res));
  return data;
}

// A route this server may not have yet: null on 404 instead of an error.
export async function optional(method, path, body) {
  try {
    return await api(method, path, body);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404 && !e.problem.rule) return null;
    throw e;
  }
}

function retryAfter(res) {
  const s = Number(res.headers.get("Retry-After"));
  return Number.isFinite(s) && s > 0 ? s : null;
}

const sleep = (ms, signal) => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => { clearTimeout(t); resolve(); });
});

// ---- the player's stream --------------------------------------------------------------------

// GET /v1/me/stream read with fetch (not EventSource, which hides a refusal's status and
// Retry-After). `on(event, data)` gets every event; `mode("stream" | "poll", retrySecs)` says
// whether the stream is live or refused/broken, in which case the caller long-polls until the
// stream is retried (after Retry-After, else a few seconds). Returns a function that stops it.
export function openStream(on, mode) {
  const stop = new AbortController();
  let lastId = null;
  (async () => {
    let failures = 0;
    while (!stop.signal.aborted) {
      let wait;
      try {
        const extra = { Accept: "text/event-stream" };
        if (lastId) extra["Last-Event-ID"] = lastId;
        const res = await fetch("/v1/me/stream", { headers: headers(extra), signal: stop.signal });
        if (res.status === 401) {
          on("unauthorized", null);
          return;
        }
        if (!res.ok || !res.body) {
          wait = retryAfter(res) ?? 10;
          await res.body?.cancel();
          mode("poll", wait);
        } else {
          failures = 0;
          mode("stream");
          await readEvents(res.body, (ev) => {
            if (ev.id) lastId = ev.id;
            let data = null;
            try {
              data = ev.data ? JSON.parse(ev.data) : null;
            } catch {
              return;
            }
            on(ev.event, data);
          });
          // The server ended the stream (a restart): reconnect at once, then back off.
          wait = Math.min(30, failures++ * 2);
          if (wait) mode("poll", wait);
        }
      } catch {
        if (stop.signal.aborted) return;
        wait = Math.min(30, 2 + failures++ * 2);
        mode("poll", wait);
      }
      await sleep(wait * 1000, stop.signal);
    }
  })();
  return () => stop.abort();
}

// Server-Sent Events framing: fields up to a blank line make one event; `:` lines are comments.
async function readEvents(body, emit) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let ev = { event: "message", data: "", id: null };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let nl;
    while ((nl = buf.search(/\r?\n/)) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + (buf[nl] === "\r" ? 2 : 1));
      if (line === "") {
        if (ev.data || ev.event !== "message") emit(ev);
        ev = { event: "message", data: "", id: null };
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const val = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") ev.event = val;
      else if (field === "data") ev.data += (ev.data ? "\n" : "") + val;
      else if (field === "id") ev.id = val;
    }
  }
}

// ---- SHA-256 --------------------------------------------------------------------------------

// The browser's digest where it has one: crypto.subtle exists only in secure contexts
// (https, localhost), so a phone opening a LAN address over plain HTTP uses sha256() below.
export async function sha256Hex(bytes) {
  let digest;
  if (globalThis.crypto?.subtle) digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  else digest = sha256(bytes);
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

// FIPS 180-4 SHA-256 of a Uint8Array, in plain JS (pure: no IO).
export function sha256(bytes) {
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const len = bytes.length;
  const padded = new Uint8Array(((len + 9 + 63) >> 6) << 6);
  padded.set(bytes);
  padded[len] = 0x80;
  const bits = len * 8;
  const dv = new DataView(padded.buffer);
  dv.setUint32(padded.length - 8, Math.floor(bits / 0x100000000));
  dv.setUint32(padded.length - 4, bits >>> 0);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      hh = g; g = f; f = e; e = (d + t1) | 0;
      d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  const out = new Uint8Array(32);
  const odv = new DataView(out.buffer);
  h.forEach((x, i) => odv.setUint32(i * 4, x));
  return out;
}
