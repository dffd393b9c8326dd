# Sourced by the tools that make Debian roots (packaging/build-debs, tests/package/deb-install):
# the archive to make them from, and how a command runs inside one.

# debian_root_run ROOT COMMAND...: COMMAND in the root, as root, with a clean environment (none of
# this machine's variables reach apt or the build there).
debian_root_run() {
    local root=$1
    shift
    chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# debian_root_unsafe_io ROOT: dpkg in the root stops syncing each file it unpacks. A root made
# for a check is thrown away after it; one kept for builds is made anew when its installs were cut
# short (packaging/build-debs). The syncs made its package installs take many times as long on a
# busy machine (install-deps: over 14 minutes beside the test suite).
debian_root_unsafe_io() {
    mkdir -p "$1/etc/dpkg/dpkg.cfg.d"
    echo force-unsafe-io >"$1/etc/dpkg/dpkg.cfg.d/code-sandbox-unsafe-io"
}

# The Debian archive this machine's apt uses, as containers/build-images finds it: never a
# hard-coded host where the machine has its own.

# The archive of this machine's apt sources that serves SUITE (deb822 first, then one-line
# lists); nothing when none does.
debian_mirror_of_suite() {
    local suite=$1
    local f uri
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        uri=$(awk -v suite="$suite" '
            function flush() {
                if (deb && has_suite && uri != "" && uri !~ /security/) { print uri; found = 1; exit }
                deb = 0; has_suite = 0; uri = ""
            }
            /^[ \t]*$/ { flush(); next }
            /^[ \t]*#/ { next }
            { key = tolower($1); sub(/:$/, "", key) }
            key == "types"  { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
            key == "suites" { for (i = 2; i <= NF; i++) if ($i == suite) has_suite = 1 }
            key == "uris"   { uri = $2 }
            END { if (!found) flush() }
        ' "$f")
        [ -n "$uri" ] && { echo "$uri"; return; }
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -r "$f" ] || continue
        uri=$(awk -v suite="$suite" '$1 == "deb" && $2 !~ /security/ && $3 == suite { print $2; exit }' "$f")
        [ -n "$uri" ] && { echo "$uri"; return; }
    done
}


# debian_mirror SUITE: the archive to fetch SUITE from. The one this machine's sources name for
# it; else, on Debian, the http(s) archive they name for this machine's own release (a Debian
# mirror carries every release; a derivative's archive or an apt method like mirror+file: would
# not do); else Debian's own.
debian_mirror() {
    local uri="" id="" codename=""
    uri=$(debian_mirror_of_suite "$1")
    if [ -z "$uri" ] && [ -r /etc/os-release ]; then
        # shellcheck disable=SC1091
        id=$(. /etc/os-release && echo "${ID:-}")
        # shellcheck disable=SC1091
        codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
        if [ "$id" = debian ] && [ -n "$codename" ]; then
            uri=$(debian_mirror_of_suite "$codename")
            [[ $uri == http://* || $uri == https://* ]] || uri=""
        fi
    fi
    echo "${uri:-http://deb.debian.org/debian}"
}
