# Sourced by scripts/setup and scripts/test: `step NAME [HINT]` announces a step and times it; if
# the script fails during it, it says which step failed and HINT (what to run to see why), and at
# the end it prints how long each step took. With CSM_STEP_TIMES=FILE (.ci/run sets it) the steps
# go to FILE instead, so that both commands' steps end up in one table.
#
# The caller sets `set -euo pipefail` and `step_script` (its name in the table) before sourcing.
: "${step_script:?set step_script before sourcing steps.bash}"

step_current=""
step_started=0
step_hint=""
step_times=${CSM_STEP_TIMES:-}
step_own_table=0
if [ -z "$step_times" ]; then
    step_times=$(mktemp)
    step_own_table=1
fi

step_now() { printf '%s' "${EPOCHREALTIME/,/.}"; }

# Records the step that is ending: seconds, TAB, name, TAB, ok|failed.
step_close() {
    local outcome=$1
    [ -n "$step_current" ] || return 0
    awk -v start="$step_started" -v end="$(step_now)" -v name="$step_script: $step_current" \
        -v outcome="$outcome" 'BEGIN { printf "%.1f\t%s\t%s\n", end - start, name, outcome }' \
        >>"$step_times"
    step_current=""
}

# step NAME [HINT]: starts the step NAME; HINT, if given, is what to run when it fails.
step() {
    step_close ok
    step_current=$1
    step_hint=${2:-}
    step_started=$(step_now)
    printf '\n== %s\n' "$step_current" >&2
}

# `step_beside NAME COMMAND...` starts COMMAND now, in the background with its output kept aside,
# to run beside the steps that follow (a step that mostly waits for the network or the disk,
# beside one that keeps the processors busy). `step_await NAME` is the step that waits for it to
# end: it prints COMMAND's output then (with how long COMMAND took), and fails as COMMAND
# failed. The table counts only the wait, so that its total stays the script's own time.
declare -A step_beside_pid=() step_beside_log=()
step_beside() {
    local name=$1
    shift
    step_beside_log[$name]=$(mktemp)
    # In the script's own process group, not one of its own: a sudo inside it can still ask for
    # a password on the terminal (a background group reading it would be stopped).
    (
        start=$(step_now)
        status=0
        "$@" || status=$?
        awk -v start="$start" -v end="$(step_now)" \
            'BEGIN { printf "(took %.1f s, beside the steps after it started)\n", end - start }'
        exit "$status"
    ) >"${step_beside_log[$name]}" 2>&1 &
    step_beside_pid[$name]=$!
    printf '\n== %s: started, beside the next steps\n' "$name" >&2
}

# step_await NAME [HINT]: see step_beside.
step_await() {
    local name=$1 status=0
    step "$name" "${2:-}"
    wait "${step_beside_pid[$name]}" || status=$?
    unset 'step_beside_pid[$name]'
    cat "${step_beside_log[$name]}" >&2
    rm -f "${step_beside_log[$name]}"
    return "$status"
}

# Prints this script's own table (not when the steps go to the caller's CSM_STEP_TIMES).
step_own_table_print() {
    [ "$step_own_table" -eq 1 ] || return 0
    "$(dirname "${BASH_SOURCE[0]}")/step-table" "$step_times" || true
    rm -f "$step_times"
}

# The last step ended well: closes it and prints the table now (before, say, an exec).
step_finish() {
    step_close ok
    trap - EXIT
    step_own_table_print
}

# step_stop_tree PID: stops PID and its descendants (found before PID stops, so that none is
# left behind with another parent; PID first, so that it starts no more). What this account may
# not stop (a sudo's root child) goes on.
step_stop_tree() {
    local children
    children=$(pgrep -P "$1" || true)
    kill "$1" 2>/dev/null || true
    local child
    for child in $children; do
        step_stop_tree "$child"
    done
}

step_exit() {
    local status=$?
    # A command still running beside the steps (step_beside) ends with the script, with every
    # process it started.
    local name
    for name in "${!step_beside_pid[@]}"; do
        # Only while it is still this script's child: an ended one's pid may be another's now.
        [ "$(ps -o ppid= -p "${step_beside_pid[$name]}" | tr -d ' ')" != "$$" ] ||
            step_stop_tree "${step_beside_pid[$name]}"
        rm -f "${step_beside_log[$name]}"
    done
    if [ -n "$step_current" ]; then
        if [ "$status" -ne 0 ]; then
            printf '\n%s: the step "%s" failed (exit %s).\n' "$step_script" "$step_current" \
                "$status" >&2
            [ -z "$step_hint" ] || printf '%s: %s\n' "$step_script" "$step_hint" >&2
        fi
        step_close "$([ "$status" -eq 0 ] && echo ok || echo failed)"
    fi
    step_own_table_print
    return "$status"
}
trap step_exit EXIT
