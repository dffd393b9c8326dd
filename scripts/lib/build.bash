# Sourced by scripts/setup and scripts/test: the one build that both README commands use.
#
# build/release is configured the same way by both (Release, the same compile flags); the set-up
# command builds and installs the product from it, and the test command adds the tests and the
# benchmarks to it and tests that very build. So the second command compiles only what the first
# did not, and the tests run the binaries a user installs.
#
# Compiler warnings are no error for a user's build, but they are for a test run and in CI: with
# CSM_WARNINGS_AS_ERRORS=1 in the environment (scripts/test sets it, .ci/run exports it), a build
# that printed any warning fails after it ends, listing them. It is checked on the build's output
# rather than with -Werror, which would give the two commands different flags.

# build_release ROOT [CMAKE_OPTION...]
build_release() {
    local root=$1
    shift
    local dir="$root/build/release"
    cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
    local output="$dir/last-build-output.txt"
    local status=0
    cmake --build "$dir" 2>&1 | tee "$output" || status=${PIPESTATUS[0]}
    [ "$status" -eq 0 ] || return "$status"
    local warnings
    warnings=$(grep -c ': warning: ' "$output" || true)
    if [ "$warnings" -gt 0 ]; then
        printf '\nbuild: %s compiler warning(s):\n' "$warnings" >&2
        grep ': warning: ' "$output" >&2
        if [ "${CSM_WARNINGS_AS_ERRORS:-0}" = 1 ]; then
            printf 'build: warnings fail this build (CSM_WARNINGS_AS_ERRORS=1)\n' >&2
            return 1
        fi
    fi
}
