// passtap.js: the browser client of passtapd's `/rpc` WebSocket (docs/web.md). One ES module, no
// dependencies. It does the handshake (auth.hello / auth.prove: the token never crosses the
// wire, and passtapd proves first), subscribes to events, reconnects with backoff and resumes by
// `seq`, and sends requests. Keys are WebCrypto HMAC keys that cannot be read back.
//
// A POS page vendors this file (a copy of /usr/share/passtap/passtap.js in its own assets) and
// never loads it from passtapd's port: a program holding that port would serve its own.
//
//   import { connect, importToken } from "./passtap.js";
//   const key = await importToken(secret); // then forget `secret`
//   const client = connect({ tokenName: "till-1", key, kinds: ["read.result"],
//     onEvent: (event) => console.log(event), onFail: (error) => alert(error.message) });
//   const pass = await client.call("pass.read", { reader: "pcsc:ACS ACR1252 00 00" });

/** The handshake protocol this file speaks (`auth.hello`'s `protocol`). */
export const PROTOCOL = 1;

/** Where passtapd's web listener is by default (`[web] listen`). */
export const DEFAULT_URL = "ws://127.0.0.1:8941/rpc";

/** The direction labels of the two proofs (docs/web.md, "The handshake"). */
const LABELS = { server: "passtap-web-auth-1 server", client: "passtap-web-auth-1 client" };
const NONCE_BYTES = 32;
const HEX_64 = /^[0-9a-fA-F]{64}$/;
const HMAC = { name: "HMAC", hash: "SHA-256" };
const DATABASE = "passtap";
const STORE = "tokens";
/** Handshake refusals retried like a lost connection; every other one stops the client. */
const RETRIED = new Set(["auth_timeout"]);
/** At most this many ranges of missed events are remembered for fetching again. */
const MAX_MISSING_RANGES = 16;

/**
 * An error from passtapd (its JSON-RPC error) or from this client.
 *
 * `reason` is passtapd's `data.reason` (`auth_failed`, `auth_rate_limited`, `busy`...) or one of
 * this client's: `server_unproven` (passtapd's proof did not match: wrong token name or token, or
 * another program on the port), `server_outdated` (passtapd predates the handshake), `bad_url`,
 * `handshake_timeout`, `connection_lost`, `not_connected`, `closed`, `no_storage`.
 */
export class PassTapError extends Error {
  /**
   * @param {string} reason stable, snake_case
   * @param {string} message for people
   * @param {{code?: number|null, data?: object|null, fatal?: boolean}} [details]
   */
  constructor(reason, message, { code = null, data = null, fatal = false } = {}) {
    super(message);
    this.name = "PassTapError";
    /** @type {string} */ this.reason = reason;
    /** @type {number|null} the JSON-RPC error code, for passtapd's errors */ this.code = code;
    /** @type {object|null} the error's `data` (for example `retry_after_ms`) */ this.data = data;
    /** @type {boolean} true when the client stopped because of it (it does not retry) */ this.fatal = fatal;
  }

  /** The error of a JSON-RPC error answer. */
  static fromAnswer(error, fatal = false) {
    const data = error && typeof error.data === "object" ? error.data : null;
    const reason = (data && typeof data.reason === "string" && data.reason) || "error";
    return new PassTapError(reason, String((error && error.message) || reason), { code: error && error.code, data, fatal });
  }
}

// MARK: The handshake's arithmetic.

/** Lowercase hex of `bytes`. */
export function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The 32 bytes of a 64-digit hex string (either case); throws a TypeError for anything else. */
export function hexToBytes(hex) {
  if (typeof hex !== "string" || !HEX_64.test(hex)) throw new TypeError("expected 64 hex digits");
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/**
 * A token as a WebCrypto key: HMAC-SHA256 keyed by the token's UTF-8 bytes, non-extractable,
 * usable to sign and verify only. Keep the key and drop the secret: the key cannot be read back,
 * not even by this page.
 * @param {string} secret the line of the token file (`passtap web-token`); spaces around it are cut
 * @returns {Promise<CryptoKey>}
 */
export async function importToken(secret) {
  if (typeof secret !== "string" || secret.trim() === "") throw new TypeError("importToken needs the token (a non-empty string)");
  return crypto.subtle.importKey("raw", new TextEncoder().encode(secret.trim()), HMAC, false, ["sign", "verify"]);
}

/**
 * What a proof signs: the direction's label, 0x00, the token name (UTF-8), 0x00, the client's
 * nonce, then the server's (32 bytes each).
 * @param {"server"|"client"} direction who proves
 * @param {string} tokenName
 * @param {Uint8Array} clientNonce
 * @param {Uint8Array} serverNonce
 * @returns {Uint8Array}
 */
export function proofMessage(direction, tokenName, clientNonce, serverNonce) {
  if (!(direction in LABELS)) throw new TypeError("direction is \"server\" or \"client\"");
  const encoder = new TextEncoder();
  const parts = [encoder.encode(LABELS[direction]), [0], encoder.encode(tokenName), [0], clientNonce, serverNonce];
  const message = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    message.set(part, at);
    at += part.length;
  }
  return message;
}

/**
 * A proof: HMAC-SHA256 of `proofMessage(...)` with the token's key, as lowercase hex.
 * @param {CryptoKey} key from importToken
 * @returns {Promise<string>} 64 hex digits
 */
export async function proof(key, direction, tokenName, clientNonce, serverNonce) {
  const message = proofMessage(direction, tokenName, clientNonce, serverNonce);
  return bytesToHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, message)));
}

/** True when `hex` is the proof of `direction` (checked by WebCrypto's verify, not by comparing strings). */
async function verifyProof(key, direction, tokenName, clientNonce, serverNonce, hex) {
  const message = proofMessage(direction, tokenName, clientNonce, serverNonce);
  return crypto.subtle.verify("HMAC", key, hexToBytes(hex), message);
}

// MARK: Keeping a key (IndexedDB).

/** Runs `action` on the token store in one transaction; resolves with its request's result. */
function inStore(mode, action) {
  return new Promise((resolve, reject) => {
    if (typeof indexedDB === "undefined") return reject(new PassTapError("no_storage", "This browser has no IndexedDB here."));
    const opening = indexedDB.open(DATABASE, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore(STORE);
    opening.onerror = () => reject(opening.error);
    opening.onsuccess = () => {
      const database = opening.result;
      const transaction = database.transaction(STORE, mode);
      const request = action(transaction.objectStore(STORE));
      transaction.oncomplete = () => {
        database.close();
        resolve(request.result);
      };
      transaction.onerror = transaction.onabort = () => {
        database.close();
        reject(transaction.error);
      };
    };
  });
}

/**
 * Keeps `{tokenName, key}` in this origin's IndexedDB under `slot`. Only a non-extractable key is
 * accepted; it stays non-extractable there. Rejects where IndexedDB is missing or refused (some
 * private windows): keep the key in memory then.
 * @param {string} tokenName
 * @param {CryptoKey} key from importToken
 * @param {string} [slot]
 */
export async function saveToken(tokenName, key, slot = "default") {
  if (!(key instanceof CryptoKey) || key.extractable) throw new TypeError("saveToken keeps only a non-extractable key (importToken's)");
  await inStore("readwrite", (store) => store.put({ tokenName: String(tokenName), key }, slot));
}

/**
 * The `{tokenName, key}` kept under `slot`, or null.
 * @param {string} [slot]
 * @returns {Promise<{tokenName: string, key: CryptoKey}|null>}
 */
export async function loadToken(slot = "default") {
  const kept = await inStore("readonly", (store) => store.get(slot));
  return kept && typeof kept.tokenName === "string" && kept.key instanceof CryptoKey ? kept : null;
}

/** Removes what is kept under `slot`. @param {string} [slot] */
export async function forgetToken(slot = "default") {
  await inStore("readwrite", (store) => store.delete(slot));
}

// MARK: The client.

/**
 * @typedef {object} ConnectOptions
 * @property {string} tokenName the token's name (`[[web.tokens]] name`)
 * @property {CryptoKey} [key] the token's key (importToken, loadToken); or:
 * @property {string} [secret] the token itself, imported at once and not kept
 * @property {string} [url] the `/rpc` URL (default DEFAULT_URL)
 * @property {(event: object) => void} [onEvent] each event once, by `seq`; given, the client
 *   subscribes (`events.subscribe`) on every connection
 * @property {string[]} [kinds] the event kinds to subscribe to (default: all)
 * @property {number} [since] the first `seq` of the first subscription (default: live events only)
 * @property {(session: {token: string, roles: string[], instance: string|null}) => void} [onOpen]
 *   authenticated (and subscribed): `call` works from now on
 * @property {(info: {retryInMs: number, error: PassTapError|null}) => void} [onClose] the
 *   connection was lost; the client tries again in `retryInMs`
 * @property {(error: PassTapError) => void} [onFail] the client stopped for good: a refused
 *   handshake (wrong token, `auth_rate_limited`...), or passtapd did not prove it holds the token
 * @property {(params: object, refetching: boolean) => void} [onDropped] passtapd's
 *   `events.dropped`; `refetching`: the client reconnects to fetch them again from its buffer
 * @property {() => void} [onRestart] passtapd restarted: `seq` numbering began again at 1, and the
 *   client replays the new instance's events from 1
 * @property {number} [handshakeTimeoutMs] gives up a connection not authenticated by then (10 000)
 * @property {number} [retryMinMs] the first wait before reconnecting (1 000), doubled up to:
 * @property {number} [retryMaxMs] (10 000)
 */

/**
 * Connects to passtapd and stays connected until `close()` or a refusal: see ConnectOptions.
 * @param {ConnectOptions} options
 * @returns {PassTapClient}
 */
export function connect(options) {
  return new PassTapClient(options);
}

/** One client of passtapd's `/rpc`: made by `connect`. */
export class PassTapClient {
  #options;
  #url;
  #key; // a Promise<CryptoKey>
  #link = null; // the current connection: {ws, pending, nextID, error, oldest, timer}
  #session = null;
  #closed = false;
  #retryMs;
  #retryTimer = null;
  #instance = null; // passtapd's instance, from the last subscription
  #highest = null; // the highest seq delivered
  #missing = []; // [first, last] ranges below #highest not delivered yet (events.dropped)
  #refetch = false; // reconnect, once no request waits, to fetch #missing again

  /** @param {ConnectOptions} options */
  constructor(options) {
    const { tokenName, key, secret } = options || {};
    if (typeof tokenName !== "string" || tokenName === "") throw new TypeError("connect needs tokenName");
    if (!(key instanceof CryptoKey) && typeof secret !== "string") throw new TypeError("connect needs key (a CryptoKey) or secret");
    this.#options = { handshakeTimeoutMs: 10000, retryMinMs: 1000, retryMaxMs: 10000, ...options, secret: undefined };
    this.#url = options.url || DEFAULT_URL;
    this.#key = key instanceof CryptoKey ? Promise.resolve(key) : importToken(secret);
    this.#retryMs = this.#options.retryMinMs;
    if (typeof this.#options.since === "number") this.#highest = this.#options.since - 1;
    this.#open();
  }

  /** The token and roles of the connection, or null while not authenticated. */
  get session() {
    return this.#session;
  }

  /**
   * Sends one request on the authenticated connection and resolves with its result.
   * Rejects with a PassTapError: passtapd's error, `not_connected` (wait for onOpen), or
   * `connection_lost` (the connection ended first; a waiting `pass.read` is then cancelled).
   * @param {string} method for example "status", "readers.list", "pass.read"
   * @param {object} [params]
   * @returns {Promise<any>}
   */
  call(method, params) {
    if (!this.#session || !this.#link) return Promise.reject(new PassTapError("not_connected", "Not connected to passtapd: wait for onOpen."));
    return this.#request(this.#link, method, params);
  }

  /** Closes the connection and stops reconnecting; waiting calls reject with `closed`. */
  close() {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    this.#drop(new PassTapError("closed", "The client was closed."));
  }

  #notify(name, ...values) {
    const handler = this.#options[name];
    if (typeof handler === "function") handler(...values);
  }

  /** A new connection: the handshake, then the subscription. */
  #open() {
    if (this.#closed) return;
    let ws;
    try {
      ws = new WebSocket(this.#url);
    } catch (error) {
      // A malformed URL, or ws:// from an https page: trying again would not help.
      this.#closed = true;
      queueMicrotask(() => this.#notify("onFail", new PassTapError("bad_url", "Cannot open " + this.#url + ": " + error.message, { fatal: true })));
      return;
    }
    const link = { ws, pending: new Map(), nextID: 1, error: null, oldest: null, timer: null };
    this.#link = link;
    link.timer = setTimeout(() => {
      link.error = new PassTapError("handshake_timeout", "passtapd did not finish the handshake within " + this.#options.handshakeTimeoutMs + " ms.");
      link.ws.close();
    }, this.#options.handshakeTimeoutMs);
    link.ws.onmessage = (message) => this.#receive(link, message.data);
    link.ws.onclose = () => this.#lost(link);
    link.ws.onopen = () => this.#start(link).catch((error) => this.#failed(link, error));
  }

  /** Ends the current connection without onClose (close(), a refusal, a reconnection). */
  #drop(error) {
    const link = this.#link;
    this.#link = null;
    this.#session = null;
    if (!link) return;
    clearTimeout(link.timer);
    link.ws.onclose = null;
    link.ws.close();
    for (const waiter of link.pending.values()) waiter.reject(error);
    link.pending.clear();
  }

  /** The connection ended by itself: reject what waits, and try again after the backoff. */
  #lost(link) {
    if (link !== this.#link) return;
    const error = link.error || new PassTapError("connection_lost", "The connection to passtapd was lost.");
    this.#drop(error);
    if (this.#closed) return;
    const delay = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, this.#options.retryMaxMs);
    this.#retryTimer = setTimeout(() => this.#open(), delay);
    this.#notify("onClose", { retryInMs: delay, error: link.error });
  }

  /** A handshake or subscription that went wrong: stop when it says so, else retry. */
  #failed(link, error) {
    if (link !== this.#link) return;
    if (!(error instanceof PassTapError)) error = new PassTapError("error", "The handshake failed: " + error, { fatal: true });
    if (!error.fatal) {
      link.error = error;
      link.ws.close();
      return;
    }
    this.#closed = true;
    this.#drop(error);
    this.#notify("onFail", error);
  }

  #request(link, method, params) {
    return new Promise((resolve, reject) => {
      if (link.ws.readyState !== WebSocket.OPEN) return reject(new PassTapError("not_connected", "Not connected to passtapd."));
      const id = link.nextID++;
      const message = { jsonrpc: "2.0", id, method };
      if (params !== undefined) message.params = params;
      link.pending.set(id, { resolve, reject });
      link.ws.send(JSON.stringify(message));
    });
  }

  /** A handshake request: its error answer stops the client, but for the ones retried. */
  async #handshakeStep(link, method, params) {
    try {
      return await this.#request(link, method, params);
    } catch (error) {
      if (!(error instanceof PassTapError) || error.code === null) throw error;
      if (error.reason === "unauthenticated") {
        throw new PassTapError("server_outdated", "This passtapd does not know the handshake (it answered " + method +
          " with unauthenticated): it predates protocol 1; upgrade passtapd.", { code: error.code, data: error.data, fatal: true });
      }
      error.fatal = !RETRIED.has(error.reason);
      throw error;
    }
  }

  async #start(link) {
    const tokenName = this.#options.tokenName;
    const key = await this.#key;
    const clientNonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
    const hello = await this.#handshakeStep(link, "auth.hello", { protocol: PROTOCOL, token: tokenName, nonce: bytesToHex(clientNonce) });
    // passtapd proves first; nothing more is sent to a server that cannot.
    const unproven = new PassTapError("server_unproven", "passtapd did not prove that it holds this token, so nothing more " +
      "was sent: the token name or the token is wrong, or another program holds passtapd's port.", { fatal: true });
    if (!hello || !HEX_64.test(hello.nonce) || !HEX_64.test(hello.proof)) throw unproven;
    const serverNonce = hexToBytes(hello.nonce);
    if (!(await verifyProof(key, "server", tokenName, clientNonce, serverNonce, hello.proof))) throw unproven;
    if (link !== this.#link) return;
    const ours = await proof(key, "client", tokenName, clientNonce, serverNonce);
    const result = await this.#handshakeStep(link, "auth.prove", { proof: ours });
    clearTimeout(link.timer);
    this.#retryMs = this.#options.retryMinMs;
    if (typeof this.#options.onEvent === "function" && !(await this.#subscribe(link))) return;
    if (link !== this.#link) return;
    this.#session = { token: result.token, roles: result.roles, instance: this.#instance };
    this.#notify("onOpen", this.#session);
  }

  /** events.subscribe from where this client left off; false when it reconnects instead. */
  async #subscribe(link) {
    const params = {};
    if (this.#options.kinds) params.kinds = this.#options.kinds;
    if (this.#highest !== null) params.since = this.#missing.length > 0 ? this.#missing[0][0] : this.#highest + 1;
    let result;
    try {
      result = await this.#request(link, "events.subscribe", params);
    } catch (error) {
      if (error instanceof PassTapError && error.reason === "invalid_params" && this.#instance !== null) {
        // `since` beyond passtapd's next_seq: a restarted passtapd. Start again from 1.
        this.#restarted();
        return this.#subscribe(link);
      }
      if (error instanceof PassTapError && error.code !== null) error.fatal = true;
      throw error;
    }
    if (this.#instance !== null && result.instance !== this.#instance) {
      // A restarted passtapd whose numbering has passed ours: subscribe afresh from 1.
      this.#restarted();
      this.#drop(new PassTapError("connection_lost", "Reconnecting to a restarted passtapd."));
      this.#open();
      return false;
    }
    this.#instance = result.instance;
    link.oldest = result.oldest_seq;
    this.#missing = this.#missing.map(([first, last]) => [Math.max(first, result.oldest_seq), last]).filter(([first, last]) => first <= last);
    if (this.#highest === null) this.#highest = result.next_seq - 1;
    return true;
  }

  #restarted() {
    this.#instance = null;
    this.#highest = 0;
    this.#missing = [];
    this.#notify("onRestart");
  }

  #receive(link, data) {
    if (link !== this.#link) return;
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (message === null || typeof message !== "object") return;
    if (message.id !== undefined && message.id !== null && link.pending.has(message.id)) {
      const waiter = link.pending.get(message.id);
      link.pending.delete(message.id);
      if (message.error) waiter.reject(PassTapError.fromAnswer(message.error));
      else waiter.resolve(message.result);
      if (this.#refetch && link.pending.size === 0) this.#refetchNow();
    } else if (message.method === "event" && message.params) {
      this.#deliver(message.params);
    } else if (message.method === "events.dropped" && message.params) {
      this.#dropped(link, message.params);
    } else if (message.error) {
      link.error = PassTapError.fromAnswer(message.error); // a notice before passtapd closes (auth_timeout, idle_timeout...)
    }
  }

  /** Hands an event on once: newer than any so far, or one of a range missed before. */
  #deliver(event) {
    const seq = event.seq;
    if (typeof seq === "number") {
      if (this.#highest === null || seq > this.#highest) {
        this.#highest = seq;
      } else {
        const index = this.#missing.findIndex(([first, last]) => first <= seq && seq <= last);
        if (index < 0) return; // delivered already (a replay after reconnecting)
        const [first, last] = this.#missing[index];
        const rest = [[first, seq - 1], [seq + 1, last]].filter(([a, b]) => a <= b);
        this.#missing.splice(index, 1, ...rest);
      }
    }
    this.#notify("onEvent", event);
  }

  #dropped(link, params) {
    // A range older than passtapd's buffer at subscription: history it no longer holds.
    const refetching = !(link.oldest !== null && params.last_seq < link.oldest);
    if (refetching) {
      // This client fell behind: the events are fetched again, by reconnecting, from the first missed.
      this.#missing.push([params.first_seq, params.last_seq]);
      if (this.#missing.length > MAX_MISSING_RANGES) this.#missing.shift();
      this.#highest = Math.max(this.#highest || 0, params.last_seq);
      this.#refetch = true;
      if (link.pending.size === 0) queueMicrotask(() => this.#refetchNow());
    }
    this.#notify("onDropped", params, refetching);
  }

  #refetchNow() {
    if (!this.#refetch || this.#closed || !this.#link || !this.#session) return;
    this.#refetch = false;
    this.#drop(new PassTapError("connection_lost", "Reconnecting to fetch missed events."));
    this.#open();
  }
}
