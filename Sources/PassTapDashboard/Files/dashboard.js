// PassTap dashboard: talks JSON-RPC 2.0 to passtapd over ws://<this host>/rpc (docs/socket-api.md)
// through passtap.js, which does the handshake (the token never crosses the wire), subscribes,
// reconnects and resumes. The operator types the token's name and the token once; the page keeps
// only a key made from it that cannot be read back (IndexedDB, or this page's memory when
// IndexedDB is refused), never the token itself, and never in the URL.
//
// Every string from the daemon (and so from a card or phone: messages, labels, reader names) is
// put into the page with textContent or an SVG text node, never parsed as HTML.
import { connect, forgetToken, importToken, loadToken, saveToken } from "/passtap.js";

const SLOT = "dashboard"; // where the key is kept (passtap.js's IndexedDB store)
const MAX_TAPS = 30;
// The buckets of passtap_session_duration_seconds, in milliseconds (docs/operations.md).
const BUCKETS = [5, 10, 25, 50, 100, 250, 500, 1000, 2000, 5000, Infinity];
const OUTCOMES = ["pass", "application", "nothing", "memory_card", "error"];
const STATUS_EVERY_MS = 5000;

const $ = (id) => document.getElementById(id);

/** Everything the page shows, rebuilt from the daemon's answers and events. */
const state = {
  newestSeq: 0, // the newest event seq handled
  readers: new Map(), // id -> reader (as readers.list gives it)
  taps: [], // the last read.results, newest first (passtap.js hands each event on once)
  durations: BUCKETS.map(() => 0),
  status: null,
  statusAt: 0, // performance.now() when status arrived
};

let client = null; // passtap.js's client, while logged in
let memoryToken = null; // {tokenName, key} when IndexedDB is refused
let statusTimer = null;
let readersTimer = null;

// MARK: Small DOM helpers (text only).

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function setText(id, text, className) {
  const node = $(id);
  node.textContent = String(text);
  if (className !== undefined) node.className = className;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

function say(text) {
  setText("connection", text);
}

// MARK: Login.

function showLogin(message) {
  $("dashboard").hidden = true;
  $("logout").hidden = true;
  $("login").hidden = false;
  setText("login-error", message || "");
  $("token").value = "";
  const name = $("token-name");
  (name.value ? $("token") : name).focus();
}

function showDashboard() {
  $("login").hidden = true;
  $("dashboard").hidden = false;
  $("logout").hidden = false;
}

$("login").addEventListener("submit", async (event) => {
  event.preventDefault();
  const tokenName = $("token-name").value.trim();
  const secret = $("token").value.trim();
  $("token").value = ""; // the token itself is dropped here: only its key is kept
  if (!tokenName || !secret) return;
  const key = await importToken(secret);
  try {
    await saveToken(tokenName, key, SLOT);
    memoryToken = null;
  } catch (e) {
    memoryToken = { tokenName, key }; // no IndexedDB here: this page's memory only
  }
  start(tokenName, key);
});

$("logout").addEventListener("click", async () => {
  stop();
  await forget();
  say("Logged out");
  showLogin();
});

/** Drops the kept key, from IndexedDB and memory. */
async function forget() {
  memoryToken = null;
  try {
    await forgetToken(SLOT);
  } catch (e) {
    // No IndexedDB: nothing was kept there.
  }
}

/** The kept {tokenName, key}, or null. */
async function keptToken() {
  if (memoryToken) return memoryToken;
  try {
    return await loadToken(SLOT);
  } catch (e) {
    return null;
  }
}

// MARK: The connection.

function rpcURL() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return scheme + "//" + location.host + "/rpc";
}

function start(tokenName, key) {
  stop();
  say("Connecting…");
  client = connect({
    url: rpcURL(),
    tokenName,
    key,
    since: 1, // first: what the daemon still buffers (recent taps fill the page at once)
    onEvent,
    onOpen(session) {
      showDashboard();
      setText("identity", session.token + " (" + session.roles.join(", ") + ")");
      say("Connected as " + session.token);
      refreshStatus();
      refreshReaders();
      clearInterval(statusTimer);
      statusTimer = setInterval(refreshStatus, STATUS_EVERY_MS);
    },
    onClose(info) {
      clearInterval(statusTimer);
      const why = info.error && info.error.reason !== "connection_lost" ? " (" + info.error.message + ")" : "";
      say("Disconnected" + why + "; retrying in " + Math.round(info.retryInMs / 1000) + " s");
    },
    onFail: failed,
    onRestart: resetEvents, // a new instance: numbering began again, its events replace the old
    onDropped(params, refetching) {
      if (refetching) say("Missed " + params.count + " events; catching up");
    },
  });
}

function stop() {
  if (client) client.close();
  client = null;
  clearInterval(statusTimer);
  clearTimeout(readersTimer);
  statusTimer = readersTimer = null;
}

/** What the operator reads when passtap.js stops: why, and what to do. */
function failureText(error) {
  switch (error.reason) {
    case "server_unproven":
      return "passtapd did not prove that it holds this token, so the page sent nothing more. Either the token " +
        "name or the token is wrong, or another program is listening on this port in passtapd's place " +
        "(docs/web.md, \"The handshake\"): check both, and who listens on the port, then log in again.";
    case "auth_rate_limited": {
      const wait = error.data && error.data.retry_after_ms ? " Try again in " + Math.ceil(error.data.retry_after_ms / 1000) + " s." : "";
      return "Too many failed logins from this page's origin (auth_rate_limited): " + error.message + wait;
    }
    case "auth_outdated":
    case "protocol_unsupported":
    case "server_outdated":
      return "This page and passtapd speak different versions of the handshake (" + error.reason + "): " + error.message +
        " Reload the page (it comes from passtapd itself); if that does not help, passtapd and its dashboard differ.";
    case "too_many_clients":
      return "The token already has all the connections it may have (too_many_clients): close another page using it.";
    default:
      return "The token was refused (" + error.reason + "): " + error.message;
  }
}

async function failed(error) {
  client = null;
  clearInterval(statusTimer);
  await forget();
  say("Not connected");
  showLogin(failureText(error));
}

function resetEvents() {
  state.newestSeq = 0;
  state.taps = [];
  state.durations = BUCKETS.map(() => 0);
  renderTaps();
  renderDurations();
}

function refreshStatus() {
  if (!client || !client.session) return;
  client.call("status").then((result) => {
    state.status = result;
    state.statusAt = performance.now();
    for (const reader of result.readers) state.readers.set(reader.id, reader);
    renderStatus();
    renderReaders();
  }, () => {});
}

function refreshReaders() {
  if (!client || !client.session) return;
  client.call("readers.list").then((result) => {
    state.readers = new Map(result.readers.map((reader) => [reader.id, reader]));
    renderReaders();
  }, () => {});
}

/** One readers.list soon after a burst of reader events or taps (their counts are the daemon's). */
function refreshReadersSoon() {
  if (readersTimer) return;
  readersTimer = setTimeout(() => {
    readersTimer = null;
    refreshReaders();
  }, 200);
}

// MARK: Events.

function onEvent(event) {
  if (typeof event.seq === "number") {
    // Missed events come again after newer ones (passtap.js refetches them): a tap still counts,
    // but an older reader or card state must not replace a newer one.
    if (event.seq <= state.newestSeq && event.kind !== "read.result") return;
    state.newestSeq = Math.max(state.newestSeq, event.seq);
  }
  switch (event.kind) {
    case "reader.added":
    case "reader.changed": {
      const known = state.readers.get(event.reader) || {};
      state.readers.set(event.reader, {
        id: event.reader, name: event.name, backend: event.backend, state: event.state, reason: event.reason,
        taps: known.taps,
      });
      renderReaders();
      refreshReadersSoon();
      break;
    }
    case "reader.removed":
      state.readers.delete(event.reader);
      renderReaders();
      break;
    case "card.inserted":
    case "card.removed": {
      const reader = state.readers.get(event.reader);
      if (reader && reader.state !== "unavailable") {
        reader.state = event.kind === "card.inserted" ? "present" : "empty";
        renderReaders();
      }
      break;
    }
    case "read.result":
      addTap(event);
      refreshReadersSoon();
      break;
    case "backend.up":
    case "backend.down":
      refreshStatus();
      break;
    default:
      break;
  }
}

/** A read.result's outcome, as status names them (an error wins over a pass, a pass over an application). */
function outcomeOf(result) {
  if (result.target === "memory") return "memory_card";
  if (result.error) return "error";
  const entries = (result.vas && result.vas.entries) || [];
  // A success whose pass is published, or withheld from this token (observe only).
  if (entries.some((e) => e.status === "success" && (e.message_hex !== null || e.withheld !== null))) return "pass";
  if (result.aid && result.aid.selected) return "application";
  return "nothing";
}

function addTap(event) {
  state.taps.unshift(event);
  state.taps.sort((a, b) => b.seq - a.seq);
  if (state.taps.length > MAX_TAPS) state.taps.length = MAX_TAPS;
  if (typeof event.duration_ms === "number") {
    const index = BUCKETS.findIndex((limit) => event.duration_ms <= limit);
    state.durations[index] += 1;
    renderDurations();
  }
  renderTaps();
}

// MARK: Rendering.

function renderStatus() {
  const status = state.status;
  if (!status) return;
  setText("version", status.version + " (protocol " + status.protocol + ")");
  const health = status.health || { state: "unknown", problems: [], clock_synchronised: null };
  setText("health", health.state, "badge state-" + health.state);
  const synced = health.clock_synchronised;
  setText("clock", synced === true ? "synchronised" : synced === false ? "NOT synchronised" : "unknown",
    synced === true ? "state-yes" : synced === false ? "state-no" : "");
  const problems = $("problems");
  clear(problems);
  for (const problem of health.problems) problems.appendChild(el("li", problem));
  const backends = $("backends");
  clear(backends);
  for (const backend of status.backends || []) {
    const up = backend.up === true ? "up" : backend.up === false ? "down" : "not reported yet";
    backends.appendChild(el("li", "backend " + backend.name + ": " + up + (backend.reason ? " (" + backend.reason + ")" : "")));
  }
  renderUptime();
}

function renderUptime() {
  const status = state.status;
  if (!status) return;
  const seconds = Math.floor(status.uptime_s + (performance.now() - state.statusAt) / 1000);
  const d = Math.floor(seconds / 86400), h = Math.floor(seconds / 3600) % 24, m = Math.floor(seconds / 60) % 60, s = seconds % 60;
  const two = (n) => String(n).padStart(2, "0");
  setText("uptime", (d > 0 ? d + "d " : "") + two(h) + ":" + two(m) + ":" + two(s));
}

function tapSummary(taps) {
  if (!taps) return "";
  const parts = OUTCOMES.filter((o) => taps[o] > 0).map((o) => o.replace("_", " ") + " " + taps[o]);
  const total = OUTCOMES.reduce((sum, o) => sum + (taps[o] || 0), 0);
  return total === 0 ? "none" : parts.join(", ") + (parts.length > 1 ? " (" + total + ")" : "");
}

function renderReaders() {
  const body = $("readers").tBodies[0];
  clear(body);
  const readers = Array.from(state.readers.values()).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const reader of readers) {
    const row = document.createElement("tr");
    row.appendChild(el("td", reader.name || reader.id));
    row.appendChild(el("td", reader.backend));
    const stateCell = el("td");
    stateCell.appendChild(el("span", reader.state, "state-" + reader.state));
    if (reader.state === "unavailable" && reader.reason) stateCell.appendChild(el("div", reader.reason, "reason"));
    row.appendChild(stateCell);
    row.appendChild(el("td", tapSummary(reader.taps)));
    body.appendChild(row);
  }
  $("no-readers").hidden = readers.length > 0;
}

function formatTime(rfc3339) {
  const date = new Date(rfc3339);
  return isNaN(date.getTime()) ? String(rfc3339) : date.toLocaleTimeString([], { hour12: false });
}

function vasCell(result) {
  const cell = el("td");
  const entries = (result.vas && result.vas.entries) || [];
  if (entries.length === 0) {
    cell.textContent = result.vas && result.vas.offered === false ? "not offered" : "—";
    return cell;
  }
  const list = el("ul", null, "vas");
  for (const entry of entries) {
    const item = el("li");
    item.appendChild(el("span", entry.pass_type_id + ": " + entry.status));
    if (entry.message !== null && entry.message !== undefined) {
      item.appendChild(document.createTextNode(" "));
      item.appendChild(el("span", entry.message, "message"));
    } else if (entry.message_hex) {
      item.appendChild(el("span", " " + entry.message_hex, "message"));
    } else if (entry.withheld) {
      item.appendChild(el("span", " (pass withheld: " + entry.withheld + ")", "withheld"));
    }
    list.appendChild(item);
  }
  cell.appendChild(list);
  return cell;
}

function renderTaps() {
  const body = $("taps").tBodies[0];
  clear(body);
  for (const tap of state.taps) {
    const row = document.createElement("tr");
    row.dataset.seq = String(tap.seq);
    row.appendChild(el("td", formatTime(tap.time)));
    const reader = state.readers.get(tap.reader);
    row.appendChild(el("td", reader ? reader.name : tap.reader));
    const outcome = outcomeOf(tap);
    const outcomeCell = el("td", outcome.replace("_", " "), "outcome-" + outcome);
    if (tap.error) outcomeCell.appendChild(el("div", tap.error.code, "reason"));
    row.appendChild(outcomeCell);
    row.appendChild(el("td", (tap.aid && tap.aid.selected) || "—"));
    row.appendChild(vasCell(tap));
    row.appendChild(el("td", typeof tap.duration_ms === "number" ? tap.duration_ms.toFixed(1) : "—", "num"));
    body.appendChild(row);
  }
  $("no-taps").hidden = state.taps.length > 0;
}

function renderDurations() {
  const svg = $("histogram");
  clear(svg);
  const ns = "http://www.w3.org/2000/svg";
  const total = state.durations.reduce((a, b) => a + b, 0);
  const most = Math.max(1, ...state.durations);
  const width = 30, gap = 0, top = 12, height = 90;
  const body = $("durations").tBodies[0];
  clear(body);
  BUCKETS.forEach((limit, index) => {
    const count = state.durations[index];
    const label = limit === Infinity ? ">5s" : limit >= 1000 ? limit / 1000 + "s" : String(limit);
    const barHeight = Math.round((count / most) * height);
    const rect = document.createElementNS(ns, "rect");
    rect.setAttribute("class", "bar-rect");
    rect.setAttribute("x", String(index * (width + gap) + 2));
    rect.setAttribute("y", String(top + height - barHeight));
    rect.setAttribute("width", String(width - 4));
    rect.setAttribute("height", String(barHeight));
    svg.appendChild(rect);
    const countText = document.createElementNS(ns, "text");
    countText.setAttribute("class", "count");
    countText.setAttribute("x", String(index * (width + gap) + width / 2));
    countText.setAttribute("y", String(top + height - barHeight - 2));
    countText.setAttribute("text-anchor", "middle");
    countText.textContent = count > 0 ? String(count) : "";
    svg.appendChild(countText);
    const axis = document.createElementNS(ns, "text");
    axis.setAttribute("x", String(index * (width + gap) + width / 2));
    axis.setAttribute("y", String(top + height + 12));
    axis.setAttribute("text-anchor", "middle");
    axis.textContent = label;
    svg.appendChild(axis);
    const row = document.createElement("tr");
    row.appendChild(el("td", limit === Infinity ? "more" : String(limit)));
    row.appendChild(el("td", String(count)));
    body.appendChild(row);
  });
  setText("durations-summary", total === 0 ? "No session yet." :
    total + (total === 1 ? " session" : " sessions") + " (the daemon's recent events, then live)");
}

setInterval(renderUptime, 1000);
renderDurations();
renderTaps();
keptToken().then((kept) => (kept ? start(kept.tokenName, kept.key) : showLogin()));
