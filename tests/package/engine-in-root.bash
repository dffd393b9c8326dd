# Sourced by deb-install (--e2e) once the package is installed in its fresh root: that release's
# Podman runs both tools end to end through the MCP SDK client, as a user of that release would
# run them. Uses deb-install's root, work, log, fail and in_root.
# shellcheck disable=SC2154  # root and work are deb-install's

# engine_in_root_e2e E2E_DIR SETUP_ENGINES: SETUP_ENGINES is the source's scripts/setup-engines.
engine_in_root_e2e() {
    local e2e_dir=$1 setup_engines=$2
    local images=${XDG_CACHE_HOME:-$HOME/.cache}/code-sandbox/images
    [ -n "$(find "$images" -maxdepth 1 -name 'code-sandbox-*-rootfs-*.tar' 2>/dev/null)" ] ||
        fail "no cached sandbox rootfs in $images: build the images here first (containers/build-images)"

    # What an engine needs of a machine that a package root lacks: /sys (cgroups; a slave of this
    # machine's, so that unmounting it here unmounts nothing there) and a /run of its own. The
    # images' rootfs tarballs and the SDK client come from this machine, read-only.
    mount --rbind --make-rslave /sys "$root/sys"
    mount -t tmpfs tmpfs "$root/run"
    mkdir -p "$root/var/cache/code-sandbox-images" "$root/src/e2e"
    mount --bind -o ro "$images" "$root/var/cache/code-sandbox-images"
    mount --bind -o ro "$e2e_dir" "$root/src/e2e"
    mount --make-rslave "$root"

    log "apt-get install nodejs debootstrap (the SDK client's runtime; the image builder's tool)"
    in_root apt-get install -y -q nodejs debootstrap >"$work/apt-node.log" 2>&1 ||
        { tail -n 40 "$work/apt-node.log"; fail "apt-get install nodejs debootstrap failed"; }
    # The engine as the set-up command installs and configures it on a machine of this release.
    # Here it runs on this machine's kernel, whose cgroups are hybrid (v1 with a v2 tree beside):
    # crun, Debian 13's default runtime, refuses them, so setup-engines' runc is what works.
    log "scripts/setup-engines --podman --install"
    cp "$setup_engines" "$root/tmp/setup-engines"
    in_root /tmp/setup-engines --podman --install >"$work/setup-engines.log" 2>&1 ||
        { tail -n 40 "$work/setup-engines.log"; fail "setup-engines --podman --install failed"; }
    log "$(in_root podman --version), $(in_root runc --version | head -n 1), node $(in_root node --version)"

    # The installed builder imports the same rootfs a Debian 12 machine's images are made of
    # (its recipe names Debian 12 on every release): reading a tarball another release's
    # builder cached proves the recipe and its cache key are the same.
    log "the installed build-images, into $(in_root podman --version)"
    in_root /usr/share/code-sandbox/containers/build-images --engine podman \
        --cache-dir /var/cache/code-sandbox-images >"$work/build-images.log" 2>&1 ||
        { tail -n 30 "$work/build-images.log"; fail "the installed build-images failed"; }
    grep -F 'import ->' "$work/build-images.log" || true
    # And one image built from nothing there, as a machine of this release builds it: its apt
    # sources name this release's archive only, which then serves Debian 12's packages too.
    log "the installed build-images --only js --force: Debian 12's packages, from this root"
    in_root /usr/share/code-sandbox/containers/build-images --engine podman --only js --force \
        --cache-dir /var/tmp/code-sandbox-images >"$work/build-js.log" 2>&1 ||
        { tail -n 30 "$work/build-js.log"; fail "the installed build-images could not build the JavaScript image"; }
    grep -E 'mirror |import ->|done in' "$work/build-js.log" || true

    local out status
    set +e
    out=$(in_root code-sandbox-mcp doctor 2>&1)
    status=$?
    set -e
    printf 'code-sandbox-mcp doctor, with Podman (exit %d):\n%s\n' "$status" "$out"
    grep -qE '^ok +engine +podman ' <<<"$out" || fail "doctor did not find the root's Podman usable"
    grep -qE '^ok +image python ' <<<"$out" || fail "doctor did not find the Python image"
    grep -qE '^ok +sandbox ' <<<"$out" || fail "doctor's sandbox did not run on the root's Podman"

    # Pooled (the server's default) and cold, each through the proxy and with no network.
    local pool egress
    for pool in "" 0; do
        for egress in open none; do
            log "MCP SDK client, stdio: --pool ${pool:-default}, --egress $egress"
            in_root env CSM_SERVER_BINARY=/usr/bin/code-sandbox-mcp CSM_TEST_ENGINE=podman \
                CSM_TEST_POOL="$pool" CSM_TEST_EGRESS="$egress" \
                node --test /src/e2e/stdio_client.test.mjs >"$work/e2e.log" 2>&1 ||
                { cat "$work/e2e.log"; fail "end to end on the root's Podman (--pool ${pool:-default}, --egress $egress)"; }
            { grep -E '^# (pass|fail|skipped) ' "$work/e2e.log" || true; } | paste -sd' '
        done
    done
    # Nothing the server started is left running or stored.
    out=$(in_root podman ps -a --format '{{.Names}}') || fail "podman ps -a failed in the root: $out"
    [ -z "$out" ] || fail "containers left behind in the root's Podman: $out"
}
