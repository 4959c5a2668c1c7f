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
// Outcomes in the order the readers' counts list them; one the page does not know comes after
// these, by its own name (docs/socket-api.md: a client takes it as one more kind of tap).
const OUTCOMES = ["pass", "tag", "application", "nothing", "memory_card", "error"];
const STATUS_EVERY_MS = 5000;

const $ = (id) => document.getElementById(id);

/** Everything the page shows, rebuilt from the daemon's answers and events. */
const state = {
  newestSeq: 0, // the newest event seq handled
  readers: new Map(), // id -> reader (as readers.list gives it)
  labels: new Map(), // id -> its short label, "#1", "#2"... in the order readers were first seen
  forward: null, // forward.status's answer, or {error} when it was refused
  taps: [], // the last read.results, newest first (passtap.js hands each event on once)
  durations: BUCKETS.map(() => 0),
  status: null,
  statusAt: 0, // performance.now() when status arrived
};

let client = null; // passtap.js's client, while logged in
let memoryToken = null; // {tokenName, key} when IndexedDB is refused
let statusTimer = null;
let readersTimer = null;
let forwardTimer = null;

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
      refreshStatus(); // and forward.status
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
  clearTimeout(forwardTimer);
  statusTimer = readersTimer = forwardTimer = null;
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

/** status, and forward.status with it: the page's timer and the backends' events. */
function refreshStatus() {
  if (!client || !client.session) return;
  refreshForward();
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

/** forward.status (role observe, as every web token holds: the sinks' counts and reason classes;
 *  no error text, which needs manage). */
function refreshForward() {
  if (!client || !client.session) return;
  client.call("forward.status").then((result) => {
    state.forward = result;
    renderForward();
  }, (error) => {
    state.forward = { error };
    renderForward();
  });
}

/** One forward.status soon after a burst of taps (each is an event the sinks may have to deliver). */
function refreshForwardSoon() {
  if (forwardTimer) return;
  forwardTimer = setTimeout(() => {
    forwardTimer = null;
    refreshForward();
  }, 500);
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
      refreshForwardSoon();
      break;
    case "forward.dropped":
      refreshForward();
      break;
    case "backend.up":
    case "backend.down":
      refreshStatus();
      break;
    default:
      break;
  }
}

/** Whether the NDEF member holds a message: records, or records withheld from this token. */
function hasNDEF(result) {
  const ndef = result.ndef;
  return Boolean(ndef && ((ndef.records && ndef.records.length > 0) || (ndef.withheld && ndef.record_count > 0)));
}

/** Whether either wallet gave a pass: published, or withheld from this token (observe only). */
function gavePass(result) {
  const entries = (result.vas && result.vas.entries) || [];
  if (entries.some((e) => e.status === "success" && (e.message_hex !== null || e.withheld !== null))) return true;
  return Boolean(result.smarttap && result.smarttap.status === "success");
}

/** Whether a tag's NDEF message was read (even an empty one, or one withheld from this token):
 *  TapOutcome's rule for `tag`. */
function readATag(result) {
  return Boolean(result.ndef && !result.ndef.problem);
}

/** A read.result's outcome, by the daemon's rule (TapOutcome, docs/socket-api.md): an error wins
 *  over a pass, a pass (Apple VAS or Smart Tap) over an application, that over a tag's NDEF. */
function outcomeOf(result) {
  if (result.target === "memory") return readATag(result) ? "tag" : "memory_card";
  if (result.error) return "error";
  if (gavePass(result)) return "pass";
  if (result.aid && result.aid.selected) return "application";
  if (readATag(result)) return "tag";
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

/** An outcome as words: `memory_card` -> "memory card". */
function outcomeWords(outcome) {
  return String(outcome).replace(/_/g, " ");
}

/** A reader's counts by outcome, the known outcomes first, then any other the daemon counts. */
function tapSummary(taps) {
  if (!taps) return "";
  const names = OUTCOMES.concat(Object.keys(taps).filter((o) => !OUTCOMES.includes(o)).sort());
  const counted = names.filter((o) => typeof taps[o] === "number" && taps[o] > 0);
  const total = counted.reduce((sum, o) => sum + taps[o], 0);
  const parts = counted.map((o) => outcomeWords(o) + " " + taps[o]);
  return total === 0 ? "none" : parts.join(", ") + (parts.length > 1 ? " (" + total + ")" : "");
}

/** A reader's short label, "#1", "#2"...: numbered in the order the page first saw each reader,
 *  never reused while the page is open. */
function labelOf(id) {
  if (!state.labels.has(id)) state.labels.set(id, "#" + (state.labels.size + 1));
  return state.labels.get(id);
}

/** A few words naming a reader's model: a PC/SC name's first two words ("ACS ACR122U"), a libnfc
 *  reader's driver ("pn532_uart"). The label and the hover give the rest. */
function modelOf(id, name) {
  const colon = id.indexOf(":");
  const backend = colon > 0 ? id.slice(0, colon) : "";
  const rest = colon > 0 ? id.slice(colon + 1) : id;
  if (backend === "nfc") return rest.split(":")[0];
  return String(name || rest).split(/[\s[(]+/).filter(Boolean).slice(0, 2).join(" ");
}

function renderReaders() {
  const body = $("readers").tBodies[0];
  clear(body);
  const readers = Array.from(state.readers.values()).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const reader of readers) labelOf(reader.id);
  const number = (reader) => Number(labelOf(reader.id).slice(1));
  readers.sort((a, b) => number(a) - number(b)); // in label order: #1, #2...
  for (const reader of readers) {
    const row = document.createElement("tr");
    row.appendChild(el("td", labelOf(reader.id), "label"));
    const name = el("td", reader.name || reader.id, "name");
    name.title = reader.id;
    row.appendChild(name);
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

/** A one-line element (cut with an ellipsis by the style sheet), its whole text on hover. */
function line(parts, className) {
  const node = el("span", null, "line" + (className ? " " + className : ""));
  for (const [text, partClass] of parts) {
    node.appendChild(partClass ? el("span", text, partClass) : document.createTextNode(text));
    if (partClass === "wallet") node.appendChild(document.createTextNode(" "));
  }
  node.title = node.textContent;
  return node;
}

/** Apple VAS's lines: for a pass, its message (what the operator looks for) over the merchant's
 *  pass type id and status; for another status, one line with both. */
function vasLines(vas) {
  const lines = [];
  for (const entry of vas.entries || []) {
    const id = entry.pass_type_id + ": " + entry.status;
    if (entry.message !== null && entry.message !== undefined) {
      lines.push(line([["Apple", "wallet"], [entry.message, "message"]]), line([[id]], "detail"));
    } else if (entry.message_hex) {
      lines.push(line([["Apple", "wallet"], [entry.message_hex, "message"]]), line([[id]], "detail"));
    } else if (entry.withheld) {
      lines.push(line([["Apple", "wallet"], ["pass withheld: " + entry.withheld, "withheld"]]), line([[id]], "detail"));
    } else {
      lines.push(line([["Apple", "wallet"], [id + (entry.problem ? " (" + entry.problem + ")" : "")]]));
    }
  }
  if (lines.length === 0 && vas.problem) lines.push(line([["Apple", "wallet"], [vas.problem]]));
  return lines;
}

/** Smart Tap's lines: each object's value over its type, object id (as the daemon publishes it)
 *  and issuer; without a pass, the status and why. */
function smartTapLines(smartTap) {
  if (smartTap.withheld) {
    return [line([["Google", "wallet"], ["pass withheld: " + smartTap.withheld, "withheld"]]),
      line([["Smart Tap: " + smartTap.status]], "detail")];
  }
  const lines = [];
  for (const object of smartTap.objects || []) {
    lines.push(line([["Google", "wallet"], [object.value === null || object.value === undefined ? "(no value)" : object.value, "message"]]));
    const details = [object.type];
    if (object.object_id) details.push("object " + object.object_id);
    if (object.issuer_id) details.push("issuer " + object.issuer_id);
    if (smartTap.collector_id !== undefined && smartTap.collector_id !== null) details.push("collector " + smartTap.collector_id);
    lines.push(line([[details.join(" · ")]], "detail"));
  }
  if (lines.length === 0) {
    lines.push(line([["Google", "wallet"], ["Smart Tap: " + (smartTap.status || "no answer") + (smartTap.problem ? " (" + smartTap.problem + ")" : "")]]));
  }
  return lines;
}

/** A record in a few words: its type, then its URI or text (or its size). */
function recordText(record) {
  const type = record.type || record.tnf;
  if (record.uri !== null && record.uri !== undefined) return type + " " + record.uri;
  if (record.text !== null && record.text !== undefined) return type + " " + record.text;
  return type + " (" + record.payload_length + " bytes)";
}

/** The NDEF message in one line: every record's type and URI or text, in order. */
function ndefLine(ndef) {
  if (ndef.withheld) return line([["NDEF", "wallet"], [ndef.record_count + " records (withheld: " + ndef.withheld + ")", "withheld"]]);
  if (!ndef.records || ndef.records.length === 0) return line([["NDEF", "wallet"], [ndef.problem || "no message"]]);
  const text = ndef.records.map(recordText).join(" · ") + (ndef.truncated ? " …" : "");
  return line([["NDEF", "wallet"], [text, "ndef"]]);
}

/** The tap's pass, tag or application, showing only what answered: Smart Tap when it ran, Apple
 *  VAS for an iPhone or a pass, and another wallet's VAS answer only as the problem it is when
 *  nothing else read the phone (docs/socket-api.md keeps `vas` on the wire for an Android phone). */
function passCell(result) {
  const cell = el("td", null, "pass");
  const lines = [];
  const vas = result.vas;
  const vasPass = Boolean(vas && (vas.entries || []).some((e) => e.status === "success"));
  if (result.smarttap) lines.push(...smartTapLines(result.smarttap));
  if (vas && (vas.wallet === "ApplePay" || vasPass)) lines.push(...vasLines(vas));
  else if (vas && vas.offered && vas.problem && !result.smarttap) lines.push(line([[vas.wallet || "wallet", "wallet"], [vas.problem]]));
  if (result.ndef && (hasNDEF(result) || result.ndef.problem)) lines.push(ndefLine(result.ndef));
  if (lines.length === 0 && result.aid && result.aid.selected) lines.push(line([["AID", "wallet"], [result.aid.selected]]));
  if (lines.length === 0) cell.textContent = "—";
  for (const node of lines) cell.appendChild(node);
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
    const readerCell = el("td", null, "reader");
    readerCell.appendChild(el("span", labelOf(tap.reader), "label"));
    readerCell.appendChild(document.createTextNode(" " + modelOf(tap.reader, reader && reader.name)));
    readerCell.title = tap.reader;
    row.appendChild(readerCell);
    const outcome = outcomeOf(tap);
    const outcomeCell = el("td", outcomeWords(outcome), "outcome outcome-" + outcome);
    if (tap.error) outcomeCell.appendChild(el("div", tap.error.code, "reason"));
    row.appendChild(outcomeCell);
    row.appendChild(passCell(tap));
    row.appendChild(el("td", typeof tap.duration_ms === "number" ? tap.duration_ms.toFixed(1) : "—", "num"));
    body.appendChild(row);
  }
  $("no-taps").hidden = state.taps.length > 0;
}

/** A duration for people: 850 ms, 12 s, 3 min, 2 h. */
function age(ms) {
  if (ms < 1000) return Math.round(ms) + " ms";
  if (ms < 120000) return Math.round(ms / 1000) + " s";
  if (ms < 7200000) return Math.round(ms / 60000) + " min";
  return Math.round(ms / 3600000) + " h";
}

/** The forwarding panel: whether forwarding is on, and each sink's backlog, the age of its oldest
 *  pending event and the class of its last error. */
function renderForward() {
  const forward = state.forward;
  const list = $("forwarding");
  clear(list);
  if (!forward) return;
  if (forward.error) {
    setText("forwarding-summary", "unknown: forward.status was refused (" + forward.error.reason + "): " + forward.error.message, "reason");
    return;
  }
  const sinks = forward.sinks || [];
  if (!forward.enabled && sinks.length === 0) {
    setText("forwarding-summary", "Forwarding is off: passtapd.toml has no [[forward.webhooks]] or [[forward.postgres]].", "muted");
    return;
  }
  const failing = sinks.filter((sink) => sink.last_error_reason).length;
  setText("forwarding-summary", (forward.enabled ? "" : "The outbox is not open. ") +
    sinks.length + (sinks.length === 1 ? " sink" : " sinks") + (failing > 0 ? ", " + failing + " failing" : "") +
    (forward.dropped > 0 ? "; " + forward.dropped + " events dropped since start" : ""), failing > 0 || !forward.enabled ? "reason" : "muted");
  for (const sink of sinks) {
    const item = el("li");
    item.appendChild(el("span", sink.name, "name"));
    item.appendChild(document.createTextNode(" (" + sink.type + (sink.state !== "active" ? ", " + sink.state : "") + ") "));
    const counts = [sink.pending + " pending"];
    if (typeof sink.oldest_pending_age_ms === "number") counts.push("oldest " + age(sink.oldest_pending_age_ms));
    if (sink.dead > 0) counts.push(sink.dead + " dead");
    counts.push(sink.delivered + " delivered");
    item.appendChild(document.createTextNode(counts.join(", ")));
    if (sink.last_error_reason) {
      const retry = typeof sink.retry_in_ms === "number" ? "; retry in " + age(sink.retry_in_ms) : "";
      item.appendChild(el("div", "last error: " + sink.last_error_reason + retry, "reason"));
    }
    if (sink.last_error) item.appendChild(el("div", sink.last_error, "reason"));
    if (sink.drop_at) item.appendChild(el("div", "backlog dropped at " + sink.drop_at, "muted"));
    list.appendChild(item);
  }
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
