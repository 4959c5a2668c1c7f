/* scripts/bench/nfc's baseline: passtapd's libnfc polling cycle and a tap's APDUs, straight through
 * libnfc, with nothing else around them (no session engine, no decryption, no JSON, no socket).
 *
 *   nfc_baseline CONNSTRING TAPS INTERVAL_MS REARM_MS ECP_HEX APDU_HEX...
 *
 * Opens CONNSTRING (nfc_init, nfc_open, nfc_initiator_init, NP_INFINITE_SELECT false,
 * NP_TIMEOUT_COM 5 ms as passtapd sets it) and prints {"ready":true}. Then, TAPS times:
 *   - polls as passtapd's NFCReaderDriver does: a cycle starts every INTERVAL_MS (the next one is
 *     due INTERVAL_MS after the last one was due, or at once when that has passed); a cycle is
 *     the ECP frame ECP_HEX with easy framing off (InCommunicateThru; the chip's timeout is the
 *     expected answer and ignored), then easy framing on and one
 *     nfc_initiator_select_passive_target(ISO14443A, 106);
 *   - when a target answers, sends each APDU_HEX in order (nfc_initiator_transceive_bytes, easy
 *     framing on, 1500 ms timeout, answers up to 259 bytes), and prints
 *     {"tap":N,"done_ns":T,"sw":"9000"} with T = CLOCK_MONOTONIC after the last response and
 *     sw the last response's status word;
 *   - lets the target go as passtapd in VAS-only mode (nfc_initiator_target_is_present, its
 *     answer unused; nfc_initiator_deselect_target; NP_ACTIVATE_FIELD false, 10 ms, true);
 *   - polls on with the same cycle; a target that answers is the same tap (field off/on again);
 *     once no target has answered for REARM_MS it prints {"removed":N}.
 * Exit 0 after TAPS taps; 1 (with a message on stderr) when a libnfc call fails or an APDU gets
 * no answer. Build: cc -O2 -o nfc_baseline nfc_baseline.c -lnfc */
#define _GNU_SOURCE
#include <nfc/nfc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_APDUS 32
#define MAX_APDU 262
#define MAX_ANSWER 259 /* passtapd's channel: 258 bytes and one more to see a longer answer */
#define APDU_TIMEOUT_MS 1500
#define ECP_TIMEOUT_MS 50
#define CHIP_TIMEOUT_MS 5
#define FIELD_OFF_MS 10 /* passtapd's NFCPolling.fieldOffMilliseconds */

static nfc_device *device;
static long long interval_ns, next_cycle_ns;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void fail(const char *what) {
    fprintf(stderr, "nfc_baseline: %s failed: %s\n", what, device ? nfc_strerror(device) : "no device");
    exit(1);
}

static void check(int rv, const char *what) {
    if (rv < 0) fail(what);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Hex text to bytes; exits on anything that is not whole bytes of hex. */
static size_t parse_hex(const char *text, uint8_t *out, size_t capacity) {
    size_t length = strlen(text);
    if (length % 2 != 0 || length / 2 > capacity) {
        fprintf(stderr, "nfc_baseline: not hex of at most %zu bytes: %s\n", capacity, text);
        exit(64);
    }
    for (size_t i = 0; i < length / 2; i++) {
        int high = hexval(text[2 * i]), low = hexval(text[2 * i + 1]);
        if (high < 0 || low < 0) {
            fprintf(stderr, "nfc_baseline: not hex: %s\n", text);
            exit(64);
        }
        out[i] = (uint8_t)(high << 4 | low);
    }
    return length / 2;
}

/* passtapd's sleepUntilNextCycle: sleep until the cycle is due; the next one is due an interval
 * later, or now if that has passed already. */
static void sleep_until_next_cycle(void) {
    struct timespec due = {.tv_sec = next_cycle_ns / 1000000000LL, .tv_nsec = next_cycle_ns % 1000000000LL};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) != 0) {
    }
    long long now = now_ns();
    next_cycle_ns += interval_ns;
    if (next_cycle_ns < now) next_cycle_ns = now;
}

/* One poll cycle: the ECP frame in raw framing (its non-answer ignored), then one select. */
static bool poll_cycle(const uint8_t *ecp, size_t ecp_length) {
    uint8_t answer[64];
    check(nfc_device_set_property_bool(device, NP_EASY_FRAMING, false), "NP_EASY_FRAMING false");
    int rv = nfc_initiator_transceive_bytes(device, ecp, ecp_length, answer, sizeof answer, ECP_TIMEOUT_MS);
    if (rv < 0 && rv != NFC_ETIMEOUT && rv != NFC_ERFTRANS) fail("the ECP frame");
    check(nfc_device_set_property_bool(device, NP_EASY_FRAMING, true), "NP_EASY_FRAMING true");
    nfc_target target;
    const nfc_modulation modulation = {.nmt = NMT_ISO14443A, .nbr = NBR_106};
    rv = nfc_initiator_select_passive_target(device, modulation, NULL, 0, &target);
    check(rv, "nfc_initiator_select_passive_target");
    return rv > 0;
}

/* The field off for FIELD_OFF_MS, then on again, as passtapd's NFCDevice.cycleField. */
static void cycle_field(void) {
    check(nfc_device_set_property_bool(device, NP_ACTIVATE_FIELD, false), "NP_ACTIVATE_FIELD false");
    struct timespec off = {.tv_sec = 0, .tv_nsec = FIELD_OFF_MS * 1000000L};
    while (nanosleep(&off, &off) != 0) {
    }
    check(nfc_device_set_property_bool(device, NP_ACTIVATE_FIELD, true), "NP_ACTIVATE_FIELD true");
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: nfc_baseline CONNSTRING TAPS INTERVAL_MS REARM_MS ECP_HEX APDU_HEX...\n");
        return 64;
    }
    int taps = atoi(argv[2]);
    interval_ns = atoll(argv[3]) * 1000000LL;
    long long rearm_ns = atoll(argv[4]) * 1000000LL;
    uint8_t ecp[16];
    size_t ecp_length = parse_hex(argv[5], ecp, sizeof ecp);
    int apdu_count = argc - 6;
    if (apdu_count > MAX_APDUS) {
        fprintf(stderr, "nfc_baseline: at most %d APDUs\n", MAX_APDUS);
        return 64;
    }
    static uint8_t apdus[MAX_APDUS][MAX_APDU];
    size_t apdu_lengths[MAX_APDUS];
    for (int i = 0; i < apdu_count; i++) apdu_lengths[i] = parse_hex(argv[6 + i], apdus[i], MAX_APDU);

    nfc_context *context;
    nfc_init(&context);
    if (!context) {
        fprintf(stderr, "nfc_baseline: nfc_init failed\n");
        return 1;
    }
    device = nfc_open(context, argv[1]);
    if (!device) {
        fprintf(stderr, "nfc_baseline: nfc_open(%s) failed\n", argv[1]);
        return 1;
    }
    check(nfc_initiator_init(device), "nfc_initiator_init");
    check(nfc_device_set_property_bool(device, NP_INFINITE_SELECT, false), "NP_INFINITE_SELECT false");
    check(nfc_device_set_property_int(device, NP_TIMEOUT_COM, CHIP_TIMEOUT_MS), "NP_TIMEOUT_COM");
    printf("{\"ready\":true}\n");
    fflush(stdout);

    next_cycle_ns = now_ns();
    for (int tap = 1; tap <= taps; tap++) {
        do sleep_until_next_cycle();
        while (!poll_cycle(ecp, ecp_length));

        uint8_t answer[MAX_ANSWER];
        int length = 0;
        for (int i = 0; i < apdu_count; i++) {
            length = nfc_initiator_transceive_bytes(device, apdus[i], apdu_lengths[i], answer, sizeof answer, APDU_TIMEOUT_MS);
            if (length < 2) {
                if (length >= 0) fprintf(stderr, "nfc_baseline: APDU %d got %d bytes\n", i + 1, length);
                fail("an APDU");
            }
        }
        long long done = now_ns();
        unsigned sw = length >= 2 ? (unsigned)(answer[length - 2] << 8 | answer[length - 1]) : 0;
        printf("{\"tap\":%d,\"done_ns\":%lld,\"sw\":\"%04X\"}\n", tap, done, sw);
        fflush(stdout);

        /* Let it go as passtapd does in VAS-only mode: whether the target is still there (passtapd
         * skips the DESELECT for a target that left, in the VAS-and-payment modes only), then
         * S(DESELECT), then a field drop. */
        (void)nfc_initiator_target_is_present(device, NULL);
        check(nfc_initiator_deselect_target(device), "nfc_initiator_deselect_target");
        cycle_field();
        /* Rearm: no target for REARM_MS. */
        long long last_seen = now_ns();
        for (;;) {
            sleep_until_next_cycle();
            if (poll_cycle(ecp, ecp_length)) {
                last_seen = now_ns();
                cycle_field();
            } else if (now_ns() - last_seen >= rearm_ns) {
                break;
            }
        }
        printf("{\"removed\":%d}\n", tap);
        fflush(stdout);
    }
    nfc_close(device);
    nfc_exit(context);
    return 0;
}
