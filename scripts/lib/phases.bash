# Sourced by scripts/test (and scripts/bench/all): times each phase of a run against its budget
# and prints one table at the end, and on failure up to the phase that failed.
#
#   phase NAME BUDGET_SECONDS COMMAND [ARG...]
#
# runs COMMAND, records its wall-clock seconds, and exits the script with COMMAND's status if it
# fails (after the table); with phase_keep_going=1 it returns that status instead, so that a
# repeated run counts every failure. A phase over its budget is reported in the table, never
# failed: the machines are noisy. PASSTAP_PHASES_FILE=FILE also writes the table there
# (tab-separated).

# Now, in seconds with microseconds (bash's EPOCHREALTIME, whose decimal mark follows the locale).
phase_now() { local now=$EPOCHREALTIME; echo "${now/,/.}"; }

phase_names=()
phase_seconds=()
phase_budgets=()
phase_results=()
phase_run_started=$(phase_now)

phase() {
    local name=$1 budget=$2
    shift 2
    local began status=0
    began=$(phase_now)
    echo "phase: $name (budget ${budget} s)" >&2
    "$@" || status=$?
    local seconds
    seconds=$(awk -v a="$began" -v b="$(phase_now)" 'BEGIN { printf "%.1f", b - a }')
    phase_names+=("$name")
    phase_seconds+=("$seconds")
    phase_budgets+=("$budget")
    if (( status != 0 )); then
        phase_results+=("FAILED ($status)")
        echo "phase: $name failed with status $status after $seconds s" >&2
        [[ "${phase_keep_going:-0}" == 1 ]] && return "$status"
        exit "$status"
    fi
    if awk -v s="$seconds" -v b="$budget" 'BEGIN { exit !(s > b) }'; then
        phase_results+=("over budget")
    else
        phase_results+=("ok")
    fi
}

phase_table() {
    local i total_seconds total_budget out
    total_seconds=$(awk -v a="$phase_run_started" -v b="$(phase_now)" 'BEGIN { printf "%.1f", b - a }')
    total_budget=0
    for i in "${!phase_budgets[@]}"; do total_budget=$((total_budget + phase_budgets[i])); done
    out=$(
        printf '%-44s %9s %8s  %s\n' phase seconds budget result
        for i in "${!phase_names[@]}"; do
            printf '%-44s %9s %8s  %s\n' "${phase_names[i]}" "${phase_seconds[i]}" "${phase_budgets[i]}" "${phase_results[i]}"
        done
        printf '%-44s %9s %8s  %s\n' "total (wall clock, $(printf '%d' "${#phase_names[@]}") phases)" "$total_seconds" "$total_budget" \
            "$(awk -v s="$total_seconds" -v b="$total_budget" 'BEGIN { printf "%d min %02d s of %d min", s / 60, s % 60, b / 60 }')"
    )
    printf '\n%s\n' "$out" >&2
    if [[ -n "${PASSTAP_PHASES_FILE:-}" ]]; then
        for i in "${!phase_names[@]}"; do
            printf '%s\t%s\t%s\t%s\n' "${phase_names[i]}" "${phase_seconds[i]}" "${phase_budgets[i]}" "${phase_results[i]}"
        done > "$PASSTAP_PHASES_FILE"
        printf 'total\t%s\t%s\t-\n' "$total_seconds" "$total_budget" >> "$PASSTAP_PHASES_FILE"
    fi
}
trap phase_table EXIT
