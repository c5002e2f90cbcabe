// The HTTP API (docs/api.md) as the client uses it: a bearer token kept in localStorage,
// problem+json errors thrown as ApiError, and the player's Server-Sent Events stream.

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
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

export async function api(method, path, body) {
  const headers = {};
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) throw new ApiError(res.status, data || {});
  return data;
}

// The player's stream (GET /v1/me/stream), one handler per event name. The browser reconnects
// by itself, sending Last-Event-ID.
export function openStream(handlers) {
  const url = `/v1/me/stream?access_token=${encodeURIComponent(session.token)}`;
  const source = new EventSource(url);
  for (const [event, handle] of Object.entries(handlers)) {
    source.addEventListener(event, (e) => handle(JSON.parse(e.data)));
  }
  return source;
}
