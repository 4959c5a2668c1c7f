# Sourced by scripts/test (smoke size) and scripts/bench/all (full size), after
# scripts/lib/phases.bash: the seven benches both run, each at both sizes, with its budgets. One
# list, so that a bench added here runs in CI at smoke size and by hand at full size.
#
#   run_benches smoke|full DIR [--write]
#
# DIR holds the binaries measured: passtapd and vas-bench (the package's release build,
# .build-package/release, the binaries the .deb ships). --write (full size only) lets each bench
# that can replace its own section of docs/performance.md. Missed aims are reported, not failed;
# a bench fails only when its measurement is broken (a lost event, a wrong decryption...).

# One line a bench: name | smoke budget (s) | smoke arguments | full budget (s) | full arguments.
# The full sizes were CI's before its 30-minute budget; the smoke sizes keep every part of each
# bench running.
bench_table=(
    # passtapd against its floor (scripts/bench/baseline.c: the same APDUs through raw pcsc-lite
    # and the same read.result line to a socket client), then idle CPU and RSS.
    "run|65|--taps 30 --idle 5|420|--taps 200 --idle 30"
    # VAS decryption, our Swift against OpenSSL 3 on one core: fails if either cannot decrypt the
    # §8.2 vector; the Swift/OpenSSL ratio (aim >= 0.8) is reported.
    "vas|10|--rounds 2 --seconds 1|60|--rounds 5 --seconds 2"
    # libnfc's pn532_uart on the emulated PN532 with a virtual iPhone that needs ECP: phone in the
    # field -> read.result for the two-cycle and fourth-poll phones, passtapd against raw libnfc
    # calls doing the same (scripts/bench/nfc_baseline.c), and one polling device's idle CPU.
    "nfc|35|--taps 10 --idle 5|180|--taps 50 --idle 20"
    # One read.result to many subscribers of the real passtapd, all in one epoll process
    # (scripts/bench/fanout_receiver.c): fails if any misses a read.result or gets
    # events.dropped; the spread and CPU (aim <= 10 ms p99 at 1000) are reported.
    "fanout|15|--subscribers 10,1000 --taps 5|180|--subscribers 10,100,1000 --taps 10"
    # The web listener: a tap's read.result at a WebSocket client against a socket client of the
    # same passtapd, then one read.result to 100 WebSocket and 100 socket clients; fails if any
    # client misses a read.result.
    "web|25|--taps 10 --fanout-taps 5 --clients 100|120|--taps 30 --fanout-taps 10 --clients 100"
    # Forwarding (a private PostgreSQL, the HTTPS webhook receiver, two virtual iPhones): a tap to
    # its PostgreSQL row through the outbox against a direct INSERT, a seeded backlog's drain
    # against psql and a Python client, the row size, RSS with a backlog and the receiver down;
    # fails if an event is missing from (or twice in) a table, or never reaches the receiver.
    "forward|40|--taps 10 --backlog 500 --rss-backlog 5000|300|--taps 20 --backlog 2000 --rss-backlog 20000"
    # Smart Tap against VAS (the virtual Android phone and the virtual iPhone on two readers of one
    # pcscd and one passtapd, alternating): APDUs per tap, exchange and first APDU -> read.result;
    # fails only if a read does not give its pass. It has no --write: its figures are copied.
    "smarttap|22|--taps 10|60|--taps 20"
)

run_benches() {  # smoke|full DIR [--write]
    local size=$1 dir=$2 write=${3:-} line name smoke_budget smoke_args full_budget full_args budget args binary
    for line in "${bench_table[@]}"; do
        IFS='|' read -r name smoke_budget smoke_args full_budget full_args <<< "$line"
        if [[ $size == smoke ]]; then budget=$smoke_budget args=$smoke_args; else budget=$full_budget args=$full_args; fi
        if [[ $name == vas ]]; then binary=(--swift-binary "$dir/vas-bench"); else binary=(--passtapd "$dir/passtapd"); fi
        local extra=()
        [[ -n "$write" && $name != smarttap ]] && extra=(--write)
        # shellcheck disable=SC2086 # the arguments are words of the table above
        phase "bench: $name" "$budget" "scripts/bench/$name" "${binary[@]}" $args ${extra[@]+"${extra[@]}"}
    done
}
