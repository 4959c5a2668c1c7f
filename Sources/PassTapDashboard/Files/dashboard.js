// PassTap dashboard: talks JSON-RPC 2.0 to passtapd over ws://<this host>/rpc (docs/socket-api.md),
// the first message being `auth` with the token the operator typed. The token stays in this tab's
// sessionStorage, never in the URL.
//
// Every string from the daemon (and so from a card or phone: messages, labels, reader names) is
// put into the page with textContent or an SVG text node, never parsed as HTML.
"use strict";

(function () {
  const TOKEN_KEY = "passtap.token";
  const MAX_TAPS = 30;
  // The buckets of passtap_session_duration_seconds, in milliseconds (docs/operations.md).
  const BUCKETS = [5, 10, 25, 50, 100, 250, 500, 1000, 2000, 5000, Infinity];
  const OUTCOMES = ["pass", "application", "nothing", "memory_card", "error"];
  const STATUS_EVERY_MS = 5000;
  const AUTH_ERRORS = { "-32017": "unauthenticated", "-32018": "auth_failed", "-32019": "auth_rate_limited", "-32020": "auth_timeout" };

  const $ = (id) => document.getElementById(id);

  /** Everything the page shows, rebuilt from the daemon's answers and events. */
  const state = {
    instance: null, // the daemon's instance: when it changes, seq numbering started again
    lastSeq: 0, // the last event seq handled
    readers: new Map(), // id -> reader (as readers.list gives it)
    taps: [], // the last read.results, newest first
    seenTaps: new Set(), // seqs of the read.results counted (a replay must not count twice)
    durations: BUCKETS.map(() => 0),
    status: null,
    statusAt: 0, // performance.now() when status arrived
  };

  let socket = null;
  let nextID = 1;
  let pending = new Map(); // id -> handler of the answer
  let retryDelay = 1000;
  let retryTimer = null;
  let statusTimer = null;
  let readersTimer = null;
  let resumeFrom = null; // a seq to resubscribe from after events.dropped

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
    const input = $("token");
    input.value = "";
    input.focus();
  }

  function showDashboard() {
    $("login").hidden = true;
    $("dashboard").hidden = false;
    $("logout").hidden = false;
  }

  $("login").addEventListener("submit", (event) => {
    event.preventDefault();
    const token = $("token").value.trim();
    if (!token) return;
    sessionStorage.setItem(TOKEN_KEY, token);
    $("token").value = "";
    connect();
  });

  $("logout").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    disconnect();
    say("Logged out");
    showLogin();
  });

  // MARK: The connection.

  function rpcURL() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return scheme + "//" + location.host + "/rpc";
  }

  function call(method, params, handler) {
    const id = nextID++;
    const message = { jsonrpc: "2.0", id: id, method: method };
    if (params !== undefined) message.params = params;
    pending.set(id, handler);
    socket.send(JSON.stringify(message));
  }

  function disconnect() {
    clearTimeout(retryTimer);
    clearInterval(statusTimer);
    clearTimeout(readersTimer);
    retryTimer = statusTimer = readersTimer = null;
    if (socket) {
      socket.onclose = null;
      socket.close();
      socket = null;
    }
    pending = new Map();
  }

  function connect() {
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (!token) {
      showLogin();
      return;
    }
    disconnect();
    say("Connecting…");
    nextID = 1;
    const ws = new WebSocket(rpcURL());
    socket = ws;
    ws.onopen = () => {
      call("auth", { token: token }, (error, result) => {
        if (error) return authFailed(error);
        retryDelay = 1000;
        showDashboard();
        setText("identity", result.token + " (" + result.roles.join(", ") + ")");
        say("Connected as " + result.token);
        start();
      });
    };
    ws.onmessage = (message) => receive(message.data);
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      clearInterval(statusTimer);
      say("Disconnected; retrying in " + Math.round(retryDelay / 1000) + " s");
      retryTimer = setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 10000);
    };
  }

  function authFailed(error) {
    const reason = AUTH_ERRORS[String(error.code)] || (error.data && error.data.reason) || "error";
    if (reason === "auth_timeout") return; // the socket closes; onclose retries
    disconnect();
    sessionStorage.removeItem(TOKEN_KEY);
    let text = "The token was refused (" + reason + "): " + error.message;
    if (reason === "auth_rate_limited" && error.data && error.data.retry_after_ms) {
      text += " Try again in " + Math.ceil(error.data.retry_after_ms / 1000) + " s.";
    }
    say("Not connected");
    showLogin(text);
  }

  /** After auth: the state, then the events from where the page left off. */
  function start() {
    refreshStatus();
    refreshReaders();
    const params = {};
    // First time: replay what the daemon still buffers (recent taps fill the page at once).
    // After a drop or a lost connection: from the first event missed.
    params.since = resumeFrom !== null ? resumeFrom : state.lastSeq + 1;
    call("events.subscribe", params, (error, result) => {
      if (error) {
        if (error.code === -32602 && state.lastSeq > 0) {
          // `since` beyond the daemon's next_seq: a restarted daemon. Start over.
          resetEvents();
          return start();
        }
        return say("Subscribe failed: " + error.message);
      }
      if (state.instance !== null && result.instance !== state.instance) {
        // The daemon restarted: numbering began again at 1. Subscribe afresh.
        resetEvents();
        state.instance = result.instance;
        disconnect();
        return connect();
      }
      state.instance = result.instance;
      state.oldestSeq = result.oldest_seq;
      resumeFrom = null;
    });
    clearInterval(statusTimer);
    statusTimer = setInterval(refreshStatus, STATUS_EVERY_MS);
  }

  function resetEvents() {
    state.lastSeq = 0;
    state.taps = [];
    state.seenTaps = new Set();
    state.durations = BUCKETS.map(() => 0);
    state.instance = null;
    resumeFrom = null;
    renderTaps();
    renderDurations();
  }

  function refreshStatus() {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    call("status", undefined, (error, result) => {
      if (error) return;
      state.status = result;
      state.statusAt = performance.now();
      for (const reader of result.readers) state.readers.set(reader.id, reader);
      renderStatus();
      renderReaders();
    });
  }

  function refreshReaders() {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    call("readers.list", undefined, (error, result) => {
      if (error) return;
      state.readers = new Map(result.readers.map((reader) => [reader.id, reader]));
      renderReaders();
    });
  }

  /** One readers.list soon after a burst of reader events or taps (their counts are the daemon's). */
  function refreshReadersSoon() {
    if (readersTimer) return;
    readersTimer = setTimeout(() => {
      readersTimer = null;
      refreshReaders();
    }, 200);
  }

  function receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch (e) {
      return;
    }
    if (message.id !== undefined && message.id !== null && pending.has(message.id)) {
      const handler = pending.get(message.id);
      pending.delete(message.id);
      handler(message.error || null, message.result);
      return;
    }
    if (message.method === "event") return onEvent(message.params);
    if (message.method === "events.dropped") return onDropped(message.params);
    if (message.error) say("Error from passtapd: " + message.error.message);
  }

  function onDropped(params) {
    if (state.oldestSeq !== undefined && params.last_seq < state.oldestSeq) {
      return; // older than the daemon's buffer at subscription: history we never had
    }
    // This page fell behind: start again from the first event missed.
    resumeFrom = params.first_seq;
    say("Missed " + params.count + " events; catching up");
    disconnect();
    connect();
  }

  // MARK: Events.

  function onEvent(event) {
    if (typeof event.seq === "number") {
      if (event.seq <= state.lastSeq && event.kind !== "read.result") return;
      state.lastSeq = Math.max(state.lastSeq, event.seq);
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
    if (state.seenTaps.has(event.seq)) return;
    state.seenTaps.add(event.seq);
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
  if (sessionStorage.getItem(TOKEN_KEY)) connect();
  else showLogin();
})();
