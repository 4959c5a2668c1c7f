/* The benchmark's baseline: the same APDUs passtapd sends on a tap (UID read, then SELECT by AID
 * in order until 9000), straight through pcsc-lite, with nothing else around them.
 *
 *   baseline READER TAPS AID...
 *
 * For each tap: waits for a card (SCardGetStatusChange), connects, sends the APDUs, prints one
 * JSON line {"tap":N,"done_ns":T} with T = CLOCK_MONOTONIC when the last response arrived, then
 * waits for the card to leave and prints {"removed":N}. Exit 0 after TAPS taps. */
#include <PCSC/winscard.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static int hexval(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

/* One command, following 61xx with GET RESPONSE as the daemon does. Returns SW. */
static unsigned transmit(SCARDHANDLE card, DWORD proto, const unsigned char *cmd, DWORD len) {
    unsigned char rx[MAX_BUFFER_SIZE_EXTENDED];
    DWORD rxlen = sizeof rx;
    const SCARD_IO_REQUEST *pci = proto == SCARD_PROTOCOL_T0 ? SCARD_PCI_T0 : SCARD_PCI_T1;
    check(SCardTransmit(card, pci, cmd, len, NULL, rx, &rxlen), "SCardTransmit");
    while (rxlen >= 2 && rx[rxlen - 2] == 0x61) {
        unsigned char get[5] = {0x00, 0xC0, 0x00, 0x00, rx[rxlen - 1]};
        rxlen = sizeof rx;
        check(SCardTransmit(card, pci, get, 5, NULL, rx, &rxlen), "SCardTransmit");
    }
    return rxlen >= 2 ? (unsigned)(rx[rxlen - 2] << 8 | rx[rxlen - 1]) : 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: baseline READER TAPS AID...\n");
        return 64;
    }
    const char *reader = argv[1];
    int taps = atoi(argv[2]);
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
        unsigned char uid[5] = {0xFF, 0xCA, 0x00, 0x00, 0x00};
        transmit(card, proto, uid, 5);
        for (int i = 3; i < argc; i++) {
            unsigned char cmd[5 + 16 + 1] = {0x00, 0xA4, 0x04, 0x00};
            size_t n = strlen(argv[i]) / 2;
            cmd[4] = (unsigned char)n;
            for (size_t k = 0; k < n; k++) cmd[5 + k] = (unsigned char)(hexval(argv[i][2 * k]) << 4 | hexval(argv[i][2 * k + 1]));
            cmd[5 + n] = 0x00;
            if (transmit(card, proto, cmd, (DWORD)(6 + n)) == 0x9000) break;
        }
        long long done = now_ns();
        printf("{\"tap\":%d,\"done_ns\":%lld}\n", tap, done);
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
    return 0;
}
