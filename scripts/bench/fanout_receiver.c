/* The fan-out bench's subscribers: N connections to passtapd's socket in one process, each
 * subscribed to events, read through one epoll set, every event line timestamped on arrival.
 *
 *   fanout_receiver SOCKET N KINDS_JSON [OBSERVERS]
 *   PASSTAP_WEB_TOKEN_NAME=NAME PASSTAP_WEB_TOKEN_FILE=FILE fanout_receiver ws://127.0.0.1:PORT/rpc N KINDS_JSON
 *   fanout_receiver --self-test
 *
 * With a ws:// URL (an IPv4 address and a port) the N connections are WebSocket clients of
 * passtapd's web listener instead (scripts/bench/web): each sends the upgrade request (Host: the
 * URL's host:port, no Origin), checks the 101 answer and its Sec-WebSocket-Accept, then does the
 * handshake of docs/web.md with the token NAME and the secret in FILE (its first line), in masked
 * text frames: `auth.hello` with a fresh nonce; passtapd's proof checked (HMAC-SHA256, OpenSSL's
 * libcrypto: link with -lcrypto), and a wrong one fails the run before anything more is sent;
 * then `auth.prove` and its result, all before the next connection; then events.subscribe as for
 * the socket. --self-test checks the proofs against the handshake's known-answer vector and
 * exits 0 (or 1 naming the wrong one). Every text frame passtapd
 * sends is one message, handled as a socket line is; a ping is answered with a pong, and a close
 * frame or a fragmented message fails the run. OBSERVERS must be 0 there (a token has no uid).
 *
 * KINDS_JSON is the `kinds` array of the events.subscribe params, e.g. ["read.result"]. The last
 * OBSERVERS (default 0) of the N connections are made as uid and gid 65534 (nobody:nogroup, no
 * supplementary groups: the receiver sets its effective ids for those connect calls, then takes
 * root back), so passtapd sees peers without the `read` role: their event lines must carry
 * "withheld":"access" and the others' must not (a wrong one fails the run).
 * Connects N sockets (raising RLIMIT_NOFILE to its hard limit), sends one events.subscribe on
 * each, waits for every answer, then prints {"ready":N}. From then on, for each event line it
 * records when it arrived: the CLOCK_MONOTONIC time epoll_wait returned with that socket ready
 * (taken once per wakeup, before any read, so the receiver's own reading does not push later
 * sockets' times back; a line that completes in a later wakeup gets that wakeup's time). Once
 * all N sockets have an event's line it prints
 *   {"seq":S,"count":N,"first_ns":A,"last_ns":B,"busy_ns":C}
 * with C the time the receiver spent reading and parsing (outside epoll_wait) between A and B:
 * C well below B - A means the receiver was waiting for passtapd, not the other way round.
 * An events.dropped notification prints {"dropped":true,"subscriber":I}. When stdin
 * ends it prints {"done":true,"lines":L,"dropped":D,"min_events":m,"max_events":M,"incomplete":K}
 * (events per subscriber, and events that not every subscriber got) and exits 0. A socket the
 * daemon closes, an answer that is not a result, or a malformed line: a message on stderr and
 * exit 1. Everything printed is one JSON object per line, flushed at once. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#define READ_CHUNK (256 * 1024)
#define MAX_LINE (64 * 1024 + 2)
#define MAX_FRAME (MAX_LINE + 14) /* a message of MAX_LINE and the longest frame header */
/* RFC 6455 §1.3's example key and the Sec-WebSocket-Accept a server must answer it with. */
#define WEBSOCKET_KEY "dGhlIHNhbXBsZSBub25jZQ=="
#define WEBSOCKET_ACCEPT "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
/* The handshake (docs/web.md): protocol 1, 32-byte nonces, one label per direction. */
#define NONCE_BYTES 32
#define SERVER_LABEL "passtap-web-auth-1 server"
#define CLIENT_LABEL "passtap-web-auth-1 client"

struct subscriber {
    int fd;
    int observer; /* connected as nobody: its VAS entries must be withheld */
    char *carry; /* the start of a line not ended yet */
    size_t carried;
    unsigned long long events; /* event lines received */
    int answered;             /* the events.subscribe answer came */
    int websocket;            /* a WebSocket client: frames, not lines */
};

struct pending {
    unsigned long long seq;
    long long first_ns, last_ns, busy_at_first;
    int count;
    int used;
};

static struct subscriber *subscribers;
static int subscriber_count;
static struct pending *pendings; /* indexed by seq % pending_slots */
static size_t pending_slots = 4096;
static long long busy_total; /* ns spent outside epoll_wait since the ready line */
static unsigned long long lines_total, dropped_total;
static const uid_t nobody = 65534;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "fanout_receiver: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void fail(const char *message, int index) {
    fprintf(stderr, "fanout_receiver: subscriber %d: %s\n", index, message);
    exit(1);
}

static void raise_fd_limit(int needed) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) die("getrlimit");
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) die("setrlimit");
    if ((long long)limit.rlim_cur < needed + 16) {
        fprintf(stderr, "fanout_receiver: RLIMIT_NOFILE %llu is too low for %d sockets\n",
                (unsigned long long)limit.rlim_cur, needed);
        exit(1);
    }
}

static int connect_to(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket");
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) {
        fprintf(stderr, "fanout_receiver: socket path too long\n");
        exit(1);
    }
    strcpy(address.sun_path, path);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) die("connect");
    return fd;
}

static void write_all(int fd, const char *text, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, text, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            die("write");
        }
        text += written;
        length -= (size_t)written;
    }
}

/* Sends one frame of `opcode` with `payload`, masked as a client must (RFC 6455 §5.3). */
static void send_frame(int fd, int opcode, const char *payload, size_t length) {
    static char frame[MAX_FRAME];
    if (length > MAX_LINE) {
        fprintf(stderr, "fanout_receiver: a message over 64 KiB to send\n");
        exit(1);
    }
    size_t at = 0;
    frame[at++] = (char)(0x80 | opcode);
    if (length < 126) {
        frame[at++] = (char)(0x80 | length);
    } else {
        frame[at++] = (char)(0x80 | 126);
        frame[at++] = (char)(length >> 8);
        frame[at++] = (char)(length & 0xff);
    }
    unsigned char mask[4];
    for (int i = 0; i < 4; i++) mask[i] = (unsigned char)rand();
    memcpy(frame + at, mask, 4);
    at += 4;
    for (size_t i = 0; i < length; i++) frame[at + i] = (char)(payload[i] ^ mask[i % 4]);
    write_all(fd, frame, at + length);
}

/* Reads exactly `length` bytes (the socket is still blocking, with a receive timeout). */
static void read_exact(int fd, char *buffer, size_t length, const char *what) {
    while (length > 0) {
        ssize_t got = read(fd, buffer, length);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            fprintf(stderr, "fanout_receiver: %s: %s\n", what, got == 0 ? "passtapd closed the connection" : strerror(errno));
            exit(1);
        }
        buffer += got;
        length -= (size_t)got;
    }
}

/* Reads one text frame (the socket still blocking) into `buffer`, NUL-terminated; its length. */
static size_t read_message(int fd, char *buffer, size_t size, const char *what) {
    unsigned char header[4];
    read_exact(fd, (char *)header, 2, what);
    size_t payload = header[1] & 0x7f;
    if (payload == 126) {
        read_exact(fd, (char *)header + 2, 2, what);
        payload = (size_t)header[2] << 8 | header[3];
    }
    if ((header[0] & 0x8f) != 0x81 || payload == 127 || payload >= size) {
        fprintf(stderr, "fanout_receiver: %s: a frame %02x %02x, not one text message under %zu bytes\n", what,
                header[0], header[1], size);
        exit(1);
    }
    read_exact(fd, buffer, payload, what);
    buffer[payload] = 0;
    return payload;
}

/* The token: its name and its secret (the token file's line). */
struct token {
    const char *name;
    const char *secret;
};

/* HMAC-SHA256(secret, label 0x00 name 0x00 client_nonce server_nonce): a proof of the handshake. */
static void handshake_proof(const char *label, const struct token *token, const unsigned char *client_nonce,
                            const unsigned char *server_nonce, unsigned char proof[32]) {
    unsigned char message[512];
    size_t label_length = strlen(label), name_length = strlen(token->name);
    if (label_length + name_length + 2 + 2 * NONCE_BYTES > sizeof message) {
        fprintf(stderr, "fanout_receiver: the token name is too long\n");
        exit(64);
    }
    size_t at = 0;
    memcpy(message + at, label, label_length + 1); /* with its NUL: the 0x00 after the label */
    at += label_length + 1;
    memcpy(message + at, token->name, name_length + 1);
    at += name_length + 1;
    memcpy(message + at, client_nonce, NONCE_BYTES);
    at += NONCE_BYTES;
    memcpy(message + at, server_nonce, NONCE_BYTES);
    at += NONCE_BYTES;
    unsigned int length = 0;
    if (!HMAC(EVP_sha256(), token->secret, (int)strlen(token->secret), message, at, proof, &length) || length != 32) {
        fprintf(stderr, "fanout_receiver: HMAC-SHA256 failed\n");
        exit(1);
    }
}

static void to_hex(const unsigned char *bytes, size_t count, char *hex) {
    for (size_t i = 0; i < count; i++) sprintf(hex + 2 * i, "%02x", bytes[i]);
}

/* The 32 bytes of the 64 hex digits (any case) at `hex`; 0 when they are not that. */
static int from_hex(const char *hex, unsigned char bytes[32]) {
    for (int i = 0; i < 64; i++) {
        char c = hex[i];
        int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0) return 0;
        if (i % 2 == 0) bytes[i / 2] = (unsigned char)(digit << 4);
        else bytes[i / 2] |= (unsigned char)digit;
    }
    return hex[64] == '"';
}

/* The 32 bytes of the hex string member `"key":"…"` of the result in `message`; 0 if absent. */
static int result_hex(const char *message, size_t length, const char *key, unsigned char bytes[32]) {
    const char *result = memmem(message, length, "\"result\":", 9);
    char pattern[32];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    if (!result) return 0;
    const char *found = memmem(result, length - (size_t)(result - message), pattern, strlen(pattern));
    if (!found || (size_t)(found - message) + strlen(pattern) + 65 > length) return 0;
    return from_hex(found + strlen(pattern), bytes);
}

/* The handshake on an upgraded WebSocket: auth.hello, passtapd's proof checked (a wrong one ends
 * the run before anything more is sent), auth.prove, its result. */
static void handshake(int fd, const struct token *token) {
    unsigned char client_nonce[NONCE_BYTES], server_nonce[NONCE_BYTES], proof[32], expected[32];
    char nonce_hex[2 * NONCE_BYTES + 1], proof_hex[65], message[2048];
    if (RAND_bytes(client_nonce, NONCE_BYTES) != 1) {
        fprintf(stderr, "fanout_receiver: RAND_bytes failed\n");
        exit(1);
    }
    to_hex(client_nonce, NONCE_BYTES, nonce_hex);
    int length = snprintf(message, sizeof message,
                          "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"auth.hello\",\"params\":{\"protocol\":1,\"token\":\"%s\",\"nonce\":\"%s\"}}",
                          token->name, nonce_hex);
    send_frame(fd, 1, message, (size_t)length);
    size_t got = read_message(fd, message, sizeof message, "reading the auth.hello answer");
    if (!result_hex(message, got, "nonce", server_nonce) || !result_hex(message, got, "proof", proof)) {
        fprintf(stderr, "fanout_receiver: auth.hello was answered: %.*s\n", (int)(got > 400 ? 400 : got), message);
        exit(1);
    }
    handshake_proof(SERVER_LABEL, token, client_nonce, server_nonce, expected);
    if (CRYPTO_memcmp(proof, expected, sizeof proof) != 0) {
        fprintf(stderr, "fanout_receiver: the server did not prove it holds the token %s (a wrong token, or another "
                        "program on the port): sent nothing more\n", token->name);
        exit(1);
    }
    handshake_proof(CLIENT_LABEL, token, client_nonce, server_nonce, proof);
    to_hex(proof, sizeof proof, proof_hex);
    length = snprintf(message, sizeof message,
                      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"auth.prove\",\"params\":{\"proof\":\"%s\"}}", proof_hex);
    send_frame(fd, 1, message, (size_t)length);
    got = read_message(fd, message, sizeof message, "reading the auth.prove answer");
    if (!memmem(message, got, "\"result\"", 8)) {
        fprintf(stderr, "fanout_receiver: auth.prove was answered: %.*s\n", (int)(got > 400 ? 400 : got), message);
        exit(1);
    }
}

/* The handshake's known-answer vector (docs/web.md): 0 when both proofs match it. */
static int self_test(void) {
    const struct token token = {.name = "till-1", .secret = "dGVzdC10b2tlbi1mb3ItdGhlLWhhbmRzaGFrZS12ZWN0b3I"};
    static const char *const expected[2] = {"baa9fd6bbc22ed37f10db57bdd4b3513d12a1c098dbdf3880261275c125cf535",
                                            "8f154bdc076da9e82548c18a313835a36e9031825bffb2df6b2ff21b3f35aff2"};
    static const char *const labels[2] = {SERVER_LABEL, CLIENT_LABEL};
    unsigned char client_nonce[NONCE_BYTES], server_nonce[NONCE_BYTES], proof[32];
    for (int i = 0; i < NONCE_BYTES; i++) {
        client_nonce[i] = (unsigned char)i;
        server_nonce[i] = (unsigned char)(0x20 + i);
    }
    int failed = 0;
    for (int i = 0; i < 2; i++) {
        char hex[65];
        handshake_proof(labels[i], &token, client_nonce, server_nonce, proof);
        to_hex(proof, sizeof proof, hex);
        if (strcmp(hex, expected[i]) != 0) {
            fprintf(stderr, "fanout_receiver: self-test: the %s proof is %s, the vector says %s\n", labels[i], hex, expected[i]);
            failed = 1;
        }
    }
    if (!failed) printf("{\"self_test\":\"ok\"}\n");
    return failed;
}

/* A WebSocket to `url` (ws://IPV4:PORT/PATH), upgraded and authenticated with `token`. */
static int connect_websocket(const char *url, const struct token *token) {
    char host[64], path[256];
    int port = 0;
    if (sscanf(url, "ws://%63[0-9.]:%d%255s", host, &port, path) != 3 || port < 1 || port > 65535 || path[0] != '/') {
        fprintf(stderr, "fanout_receiver: expected ws://IPV4:PORT/PATH, found %s\n", url);
        exit(64);
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket");
    int on = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0) die("TCP_NODELAY");
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    if (inet_pton(AF_INET, host, &address.sin_addr) != 1) {
        fprintf(stderr, "fanout_receiver: %s is no IPv4 address\n", host);
        exit(64);
    }
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) die("connect");
    struct timeval timeout = {.tv_sec = 30};
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) != 0) die("SO_RCVTIMEO");

    char request[1024];
    int length = snprintf(request, sizeof request,
                          "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Key: " WEBSOCKET_KEY "\r\nSec-WebSocket-Version: 13\r\n\r\n",
                          path, host, port);
    write_all(fd, request, (size_t)length);
    /* The answer's head, byte by byte: nothing after it may be read here. */
    char head[4096];
    size_t filled = 0;
    while (filled < 4 || memcmp(head + filled - 4, "\r\n\r\n", 4) != 0) {
        if (filled == sizeof head - 1) {
            fprintf(stderr, "fanout_receiver: the upgrade answer's head is over 4 KiB\n");
            exit(1);
        }
        read_exact(fd, head + filled, 1, "reading the upgrade answer");
        filled++;
    }
    head[filled] = 0;
    if (strncmp(head, "HTTP/1.1 101 ", 13) != 0 || !strcasestr(head, "\r\nSec-WebSocket-Accept: " WEBSOCKET_ACCEPT "\r\n")) {
        fprintf(stderr, "fanout_receiver: %s was not upgraded: %.*s\n", url, (int)(filled > 400 ? 400 : filled), head);
        exit(1);
    }

    handshake(fd, token);
    struct timeval none = {0};
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none) != 0) die("SO_RCVTIMEO");
    return fd;
}

/* The secret in the first line of the file `path`. */
static char *read_secret(const char *path) {
    static char secret[600];
    FILE *file = fopen(path, "r");
    if (!file || !fgets(secret, sizeof secret, file)) die("reading PASSTAP_WEB_TOKEN_FILE");
    fclose(file);
    secret[strcspn(secret, "\r\n")] = 0;
    return secret;
}

/* The number after "seq": in a line, or -1. */
static long long seq_of(const char *line, size_t length) {
    const char *key = memmem(line, length, "\"seq\":", 6);
    if (!key) return -1;
    const char *p = key + 6, *end = line + length;
    long long value = 0;
    if (p >= end || *p < '0' || *p > '9') return -1;
    while (p < end && *p >= '0' && *p <= '9') value = value * 10 + (*p++ - '0');
    return value;
}

static void handle_line(int index, const char *line, size_t length, long long arrived) {
    struct subscriber *s = &subscribers[index];
    if (length == 0) return;
    if (!s->answered) {
        if (!memmem(line, length, "\"result\"", 8)) {
            fprintf(stderr, "fanout_receiver: subscriber %d: events.subscribe was answered: %.*s\n", index,
                    (int)(length > 400 ? 400 : length), line);
            exit(1);
        }
        s->answered = 1;
        return;
    }
    lines_total++;
    if (memmem(line, length, "\"method\":\"events.dropped\"", 25)) {
        dropped_total++;
        printf("{\"dropped\":true,\"subscriber\":%d}\n", index);
        fflush(stdout);
        return;
    }
    if (!memmem(line, length, "\"method\":\"event\"", 16)) fail("a line that is neither an event nor events.dropped", index);
    int withheld = memmem(line, length, "\"withheld\":\"access\"", 19) != NULL;
    if (withheld != s->observer)
        fail(s->observer ? "a subscriber without the read role got a pass" : "a subscriber with the read role got it withheld", index);
    long long seq = seq_of(line, length);
    if (seq < 0) fail("an event line without a seq", index);
    s->events++;
    struct pending *p = &pendings[(size_t)seq % pending_slots];
    if (!p->used || p->seq != (unsigned long long)seq) {
        if (p->used) {
            /* An older event in this slot never reached every subscriber. */
            printf("{\"seq\":%llu,\"count\":%d,\"incomplete\":true}\n", p->seq, p->count);
            fflush(stdout);
        }
        *p = (struct pending){.seq = (unsigned long long)seq, .first_ns = arrived, .last_ns = arrived,
                              .busy_at_first = busy_total, .count = 0, .used = 1};
    }
    p->count++;
    if (arrived > p->last_ns) p->last_ns = arrived;
    if (arrived < p->first_ns) p->first_ns = arrived;
    if (p->count == subscriber_count) {
        printf("{\"seq\":%llu,\"count\":%d,\"first_ns\":%lld,\"last_ns\":%lld,\"busy_ns\":%lld}\n", p->seq, p->count,
               p->first_ns, p->last_ns, busy_total - p->busy_at_first);
        fflush(stdout);
        p->used = 0;
    }
}

/* Handles every whole frame in a WebSocket subscriber's carry buffer, keeping the rest. */
static void handle_frames(int index, long long arrived) {
    struct subscriber *s = &subscribers[index];
    size_t at = 0;
    for (;;) {
        size_t left = s->carried - at;
        const unsigned char *frame = (const unsigned char *)s->carry + at;
        if (left < 2) break;
        if (frame[1] & 0x80) fail("a masked frame from the server", index);
        size_t header = 2;
        unsigned long long length = frame[1] & 0x7f;
        if (length == 126) {
            if (left < 4) break;
            length = (unsigned long long)frame[2] << 8 | frame[3];
            header = 4;
        } else if (length == 127) {
            if (left < 10) break;
            length = 0;
            for (int i = 0; i < 8; i++) length = length << 8 | frame[2 + i];
            header = 10;
        }
        if (length > MAX_LINE) fail("a message over 64 KiB", index);
        if (left < header + length) break;
        const char *payload = (const char *)frame + header;
        if (!(frame[0] & 0x80) || (frame[0] & 0x0f) == 0) fail("a fragmented message", index);
        switch (frame[0] & 0x0f) {
        case 1: handle_line(index, payload, (size_t)length, arrived); break;
        case 9: send_frame(s->fd, 10, payload, (size_t)length); break;
        case 10: break;
        case 8:
            fprintf(stderr, "fanout_receiver: subscriber %d: passtapd closed the WebSocket: code %d %.*s\n", index,
                    length >= 2 ? (unsigned char)payload[0] << 8 | (unsigned char)payload[1] : 0,
                    length > 2 ? (int)length - 2 : 0, payload + 2);
            exit(1);
        default: fail("a frame of an unknown opcode", index);
        }
        at += header + (size_t)length;
    }
    memmove(s->carry, s->carry + at, s->carried - at);
    s->carried -= at;
}

/* Reads everything a WebSocket subscriber's socket holds; every whole frame is handled. */
static void drain_frames(int index, char *chunk, long long arrived) {
    struct subscriber *s = &subscribers[index];
    if (!s->carry && !(s->carry = malloc(MAX_FRAME))) die("malloc");
    for (;;) {
        ssize_t got = read(s->fd, chunk, READ_CHUNK);
        if (got < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            die("read");
        }
        if (got == 0) fail("passtapd closed the connection", index);
        for (size_t used = 0; used < (size_t)got;) {
            size_t room = MAX_FRAME - s->carried, take = (size_t)got - used < room ? (size_t)got - used : room;
            if (take == 0) fail("a frame over 64 KiB", index);
            memcpy(s->carry + s->carried, chunk + used, take);
            s->carried += take;
            used += take;
            handle_frames(index, arrived);
        }
        if (got < READ_CHUNK) return;
    }
}

/* Reads everything the socket holds; every line completed is handled with `arrived`. */
static void drain(int index, char *chunk, long long arrived) {
    struct subscriber *s = &subscribers[index];
    if (s->websocket) {
        drain_frames(index, chunk, arrived);
        return;
    }
    for (;;) {
        ssize_t got = read(s->fd, chunk, READ_CHUNK);
        if (got < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            die("read");
        }
        if (got == 0) fail("passtapd closed the connection", index);
        char *start = chunk, *end = chunk + got;
        for (;;) {
            char *newline = memchr(start, '\n', (size_t)(end - start));
            if (!newline) break;
            if (s->carried > 0) {
                size_t length = (size_t)(newline - start);
                if (s->carried + length > MAX_LINE) fail("a line over 64 KiB", index);
                memcpy(s->carry + s->carried, start, length);
                handle_line(index, s->carry, s->carried + length, arrived);
                s->carried = 0;
            } else {
                handle_line(index, start, (size_t)(newline - start), arrived);
            }
            start = newline + 1;
        }
        if (start < end) {
            size_t rest = (size_t)(end - start);
            if (!s->carry && !(s->carry = malloc(MAX_LINE))) die("malloc");
            if (s->carried + rest > MAX_LINE) fail("a line over 64 KiB", index);
            memcpy(s->carry + s->carried, start, rest);
            s->carried += rest;
        }
        if (got < READ_CHUNK) return;
    }
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--self-test") == 0) return self_test();
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: fanout_receiver SOCKET|ws://IPV4:PORT/PATH N KINDS_JSON [OBSERVERS] | --self-test\n");
        return 64;
    }
    const char *path = argv[1];
    subscriber_count = atoi(argv[2]);
    int observers = argc == 5 ? atoi(argv[4]) : 0;
    if (subscriber_count < 1 || observers < 0 || observers > subscriber_count) {
        fprintf(stderr, "fanout_receiver: N must be at least 1, OBSERVERS between 0 and N\n");
        return 64;
    }
    int websocket = strncmp(path, "ws://", 5) == 0;
    struct token token = {0};
    if (websocket) {
        const char *token_file = getenv("PASSTAP_WEB_TOKEN_FILE");
        token.name = getenv("PASSTAP_WEB_TOKEN_NAME");
        if (!token_file || !token.name || observers != 0) {
            fprintf(stderr, "fanout_receiver: a ws:// URL needs PASSTAP_WEB_TOKEN_NAME, PASSTAP_WEB_TOKEN_FILE, and OBSERVERS 0\n");
            return 64;
        }
        if (token.name[0] == 0 || strspn(token.name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.") != strlen(token.name)) {
            fprintf(stderr, "fanout_receiver: PASSTAP_WEB_TOKEN_NAME is letters, digits, -, _ and . (as [[web.tokens]] name)\n");
            return 64;
        }
        token.secret = read_secret(token_file);
    }
    raise_fd_limit(subscriber_count);
    subscribers = calloc((size_t)subscriber_count, sizeof *subscribers);
    pendings = calloc(pending_slots, sizeof *pendings);
    char *chunk = malloc(READ_CHUNK);
    if (!subscribers || !pendings || !chunk) die("calloc");
    char request[512];
    int request_length = snprintf(request, sizeof request,
                                  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"events.subscribe\",\"params\":{\"kinds\":%s}}\n", argv[3]);
    if (request_length <= 0 || request_length >= (int)sizeof request) {
        fprintf(stderr, "fanout_receiver: KINDS_JSON too long\n");
        return 64;
    }

    int epoll = epoll_create1(EPOLL_CLOEXEC);
    if (epoll < 0) die("epoll_create1");
    for (int i = 0; i < subscriber_count; i++) {
        if (i == subscriber_count - observers) {
            /* The kernel records the connecting process's effective ids and groups (SO_PEERCRED,
             * SO_PEERGROUPS) at connect. */
            if (setgroups(0, NULL) != 0 || setegid(nobody) != 0 || seteuid(nobody) != 0) die("becoming nobody");
        }
        subscribers[i].observer = i >= subscriber_count - observers;
        subscribers[i].websocket = websocket;
        if (websocket) {
            subscribers[i].fd = connect_websocket(path, &token);
            send_frame(subscribers[i].fd, 1, request, (size_t)request_length - 1); /* without the newline */
        } else {
            subscribers[i].fd = connect_to(path);
            write_all(subscribers[i].fd, request, (size_t)request_length);
        }
        if (fcntl(subscribers[i].fd, F_SETFL, O_NONBLOCK) != 0) die("fcntl");
        struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP, .data.u32 = (unsigned)i};
        if (epoll_ctl(epoll, EPOLL_CTL_ADD, subscribers[i].fd, &event) != 0) die("epoll_ctl");
    }
    if (observers > 0 && (seteuid(0) != 0 || setegid(0) != 0)) die("taking root back");
    struct epoll_event in = {.events = EPOLLIN, .data.u32 = (unsigned)subscriber_count};
    if (epoll_ctl(epoll, EPOLL_CTL_ADD, STDIN_FILENO, &in) != 0) die("epoll_ctl stdin");

    int answered = 0, ready_printed = 0;
    struct epoll_event *events = calloc((size_t)subscriber_count + 1, sizeof *events);
    if (!events) die("calloc");
    for (;;) {
        if (!ready_printed && answered == subscriber_count) {
            printf("{\"ready\":%d}\n", subscriber_count);
            fflush(stdout);
            ready_printed = 1;
        }
        int count = epoll_wait(epoll, events, subscriber_count + 1, -1);
        long long woke = now_ns();
        if (count < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        for (int e = 0; e < count; e++) {
            unsigned index = events[e].data.u32;
            if (index == (unsigned)subscriber_count) {
                char sink[256];
                ssize_t got = read(STDIN_FILENO, sink, sizeof sink);
                if (got > 0) continue;
                unsigned long long lowest = ~0ULL, highest = 0;
                for (int i = 0; i < subscriber_count; i++) {
                    if (subscribers[i].events < lowest) lowest = subscribers[i].events;
                    if (subscribers[i].events > highest) highest = subscribers[i].events;
                }
                unsigned long long incomplete = 0;
                for (size_t slot = 0; slot < pending_slots; slot++) incomplete += pendings[slot].used ? 1 : 0;
                printf("{\"done\":true,\"lines\":%llu,\"dropped\":%llu,\"min_events\":%llu,\"max_events\":%llu,\"incomplete\":%llu}\n",
                       lines_total, dropped_total, lowest, highest, incomplete);
                fflush(stdout);
                return 0;
            }
            int was_answered = subscribers[index].answered;
            drain((int)index, chunk, woke);
            if (!was_answered && subscribers[index].answered) answered++;
            if (events[e].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) fail("passtapd closed the connection", (int)index);
        }
        if (ready_printed) busy_total += now_ns() - woke;
    }
}
