/* The benchmark's baseline: the floor of the work passtapd does for a tap. The same APDUs passtapd
 * sends (UID read, then SELECT by AID in order until 9000) straight through pcsc-lite, then the
 * same `read.result` line a subscriber of passtapd gets, written to a connected Unix-socket
 * client. No JSON library, no threads, no queue: one snprintf and one send.
 *
 *   baseline READER TAPS SOCKET AID...
 *
 * Listens on the Unix socket SOCKET (removed first if it is there), prints {"listening":"SOCKET"}
 * and waits for one client. Then, for each tap: waits for a card (SCardGetStatusChange), connects,
 * sends the APDUs, writes the read.result line (seq, time, reader, ATR, UID, FCI as hex and as its
 * BER-TLV tree, the attempts) to the client, and prints {"tap":N,"done_ns":T,"line_bytes":B} with
 * T = CLOCK_MONOTONIC when the last response arrived (before the line was made); then waits for
 * the card to leave and prints {"removed":N}. The client timestamps the line's arrival. Exit 0
 * after TAPS taps. */
#include <PCSC/winscard.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void check(LONG rv, const char *what) {
    if (rv != SCARD_S_SUCCESS) {
        fprintf(stderr, "baseline: %s: %s\n", what, pcsc_stringify_error(rv));
        exit(1);
    }
}

static void fail(const char *what) {
    fprintf(stderr, "baseline: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int hexval(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

/* The line being built: appends stop at the end of the buffer (a line that long is a bug here). */
static char line[16384];
static size_t used;

static void put(const char *format, ...) {
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line + used, sizeof line - used, format, args);
    va_end(args);
    if (n < 0 || (size_t)n >= sizeof line - used) {
        fprintf(stderr, "baseline: the read.result line is longer than %zu bytes\n", sizeof line);
        exit(1);
    }
    used += (size_t)n;
}

static void put_hex(const unsigned char *bytes, size_t n) {
    static const char digits[] = "0123456789ABCDEF";
    if (used + 2 * n + 1 > sizeof line) {
        fprintf(stderr, "baseline: the read.result line is longer than %zu bytes\n", sizeof line);
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        line[used++] = digits[bytes[i] >> 4];
        line[used++] = digits[bytes[i] & 0x0F];
    }
    line[used] = 0;
}

/* BER-TLV as passtapd's `tlv` member: [{"tag":"6F","children":[...]}, {"tag":"84","value":"..."}].
 * Returns 0 when the bytes are not well-formed TLV (the member is then null). */
static int put_tlv(const unsigned char *p, size_t n) {
    size_t i = 0, mark = used;
    put("[");
    while (i < n) {
        size_t tag_start = i;
        int constructed = p[i] & 0x20;
        if ((p[i++] & 0x1F) == 0x1F) {
            while (i < n && (p[i] & 0x80)) i++;
            i++;
        }
        if (i >= n) goto malformed;
        size_t tag_end = i, length = p[i++];
        if (length & 0x80) {
            size_t count = length & 0x7F;
            if (count == 0 || count > 3 || i + count > n) goto malformed;
            for (length = 0; count > 0; count--) length = length << 8 | p[i++];
        }
        if (length > n - i) goto malformed;
        put("%s{\"tag\":\"", tag_start ? "," : "");
        put_hex(p + tag_start, tag_end - tag_start);
        if (constructed) {
            put("\",\"children\":");
            if (!put_tlv(p + i, length)) goto malformed;
            put("}");
        } else {
            put("\",\"value\":\"");
            put_hex(p + i, length);
            put("\"}");
        }
        i += length;
    }
    put("]");
    return 1;
malformed:
    used = mark;
    line[used] = 0;
    return 0;
}

/* One command, following 61xx with GET RESPONSE as the daemon does. Returns SW; the response data
 * (without SW) goes to data/data_len when data is not NULL. */
static unsigned transmit(SCARDHANDLE card, DWORD proto, const unsigned char *cmd, DWORD len,
                         unsigned char *data, size_t *data_len) {
    unsigned char rx[MAX_BUFFER_SIZE_EXTENDED];
    DWORD rxlen = sizeof rx;
    const SCARD_IO_REQUEST *pci = proto == SCARD_PROTOCOL_T0 ? SCARD_PCI_T0 : SCARD_PCI_T1;
    check(SCardTransmit(card, pci, cmd, len, NULL, rx, &rxlen), "SCardTransmit");
    while (rxlen >= 2 && rx[rxlen - 2] == 0x61) {
        unsigned char get[5] = {0x00, 0xC0, 0x00, 0x00, rx[rxlen - 1]};
        rxlen = sizeof rx;
        check(SCardTransmit(card, pci, get, 5, NULL, rx, &rxlen), "SCardTransmit");
    }
    if (rxlen < 2) return 0;
    if (data) {
        memcpy(data, rx, rxlen - 2);
        *data_len = rxlen - 2;
    }
    return (unsigned)(rx[rxlen - 2] << 8 | rx[rxlen - 1]);
}

static int listen_for_one_client(const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) {
        fprintf(stderr, "baseline: socket path too long: %s\n", path);
        exit(64);
    }
    strcpy(address.sun_path, path);
    unlink(path);
    int server = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (server < 0) fail("socket");
    if (bind(server, (struct sockaddr *)&address, sizeof address) < 0) fail("bind");
    if (listen(server, 1) < 0) fail("listen");
    printf("{\"listening\":\"%s\"}\n", path);
    fflush(stdout);
    int client = accept(server, NULL, NULL);
    if (client < 0) fail("accept");
    close(server);
    return client;
}

static void send_line(int client) {
    line[used++] = '\n';
    for (size_t sent = 0; sent < used;) {
        ssize_t n = send(client, line + sent, used - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("send");
        sent += (size_t)n;
    }
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: baseline READER TAPS SOCKET AID...\n");
        return 64;
    }
    const char *reader = argv[1];
    int taps = atoi(argv[2]);
    int client = listen_for_one_client(argv[3]);
    SCARDCONTEXT ctx;
    check(SCardEstablishContext(SCARD_SCOPE_SYSTEM, NULL, NULL, &ctx), "SCardEstablishContext");
    SCARD_READERSTATE state = {.szReader = reader, .dwCurrentState = SCARD_STATE_UNAWARE};
    for (int tap = 1; tap <= taps; tap++) {
        do { /* wait for a card */
            state.dwCurrentState = state.dwEventState & ~SCARD_STATE_CHANGED;
            check(SCardGetStatusChange(ctx, INFINITE, &state, 1), "SCardGetStatusChange");
        } while (!(state.dwEventState & SCARD_STATE_PRESENT));
        SCARDHANDLE card;
        DWORD proto;
        check(SCardConnect(ctx, reader, SCARD_SHARE_SHARED, SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1, &card, &proto), "SCardConnect");
        unsigned char uid[MAX_BUFFER_SIZE_EXTENDED], fci[MAX_BUFFER_SIZE_EXTENDED];
        size_t uid_len = 0, fci_len = 0;
        unsigned char get_uid[5] = {0xFF, 0xCA, 0x00, 0x00, 0x00};
        if (transmit(card, proto, get_uid, 5, uid, &uid_len) != 0x9000) uid_len = 0;
        unsigned sws[16];
        int tried = 0, selected = -1;
        for (int i = 4; i < argc && tried < 16; i++) {
            unsigned char cmd[5 + 16 + 1] = {0x00, 0xA4, 0x04, 0x00};
            size_t n = strlen(argv[i]) / 2;
            cmd[4] = (unsigned char)n;
            for (size_t k = 0; k < n; k++) cmd[5 + k] = (unsigned char)(hexval(argv[i][2 * k]) << 4 | hexval(argv[i][2 * k + 1]));
            cmd[5 + n] = 0x00;
            sws[tried++] = transmit(card, proto, cmd, (DWORD)(6 + n), fci, &fci_len);
            if (sws[tried - 1] == 0x9000) {
                selected = i;
                break;
            }
        }
        long long done = now_ns();

        /* The line passtapd's subscribers get for this tap, in its key order. */
        struct timespec wall;
        clock_gettime(CLOCK_REALTIME, &wall);
        struct tm utc;
        gmtime_r(&wall.tv_sec, &utc);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
        used = 0;
        put("{\"jsonrpc\":\"2.0\",\"method\":\"event\",\"params\":{\"seq\":%d,\"time\":\"%s.%03ldZ\","
            "\"kind\":\"read.result\",\"reader\":\"pcsc:%s\",\"atr\":\"",
            2 * tap, stamp, wall.tv_nsec / 1000000, reader);
        put_hex(state.rgbAtr, state.cbAtr);
        put("\",\"uid\":");
        if (uid_len) {
            put("\"");
            put_hex(uid, uid_len);
            put("\"");
        } else {
            put("null");
        }
        put(",\"uid_note\":null,\"atqa\":null,\"sak\":null,\"ats\":null,\"target\":\"iso_dep\",\"aid\":{\"selected\":");
        if (selected >= 0) {
            put("\"%s\",\"fci\":{\"hex\":\"", argv[selected]);
            put_hex(fci, fci_len);
            put("\",\"tlv\":");
            if (!put_tlv(fci, fci_len)) put("null");
            put(",\"redacted\":null}");
        } else {
            put("null,\"fci\":null");
        }
        put(",\"fci_omitted\":null,\"attempts\":[");
        for (int i = 0; i < tried; i++) put("%s{\"aid\":\"%s\",\"sw\":\"%04X\"}", i ? "," : "", argv[4 + i], sws[i]);
        put("],\"ppse\":null},\"vas\":null,\"error\":null}}");
        send_line(client);

        printf("{\"tap\":%d,\"done_ns\":%lld,\"line_bytes\":%zu}\n", tap, done, used);
        fflush(stdout);
        SCardDisconnect(card, SCARD_LEAVE_CARD);
        do { /* wait for the card to leave */
            state.dwCurrentState = state.dwEventState & ~SCARD_STATE_CHANGED;
            check(SCardGetStatusChange(ctx, INFINITE, &state, 1), "SCardGetStatusChange");
        } while (state.dwEventState & SCARD_STATE_PRESENT);
        printf("{\"removed\":%d}\n", tap);
        fflush(stdout);
    }
    SCardReleaseContext(ctx);
    close(client);
    return 0;
}
