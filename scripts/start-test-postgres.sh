#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for the test suites and prints, on
# stdout and nothing else, the url to export as SVC_TEST_POSTGRES_URL:
#
#   export SVC_TEST_POSTGRES_URL=$(bash scripts/start-test-postgres.sh)
#   cargo test -p svc-storage --test storage
#
# Usage: start-test-postgres.sh [DATA_DIR]
#
#   DATA_DIR       cluster directory (also $SVC_TEST_PG_DATA); created with
#                  initdb when empty or missing, reused when it already holds
#                  a cluster. Default: a new folder under ${TMPDIR:-/tmp}.
#   PGPORT         TCP port, default 55432; the server listens on 127.0.0.1
#                  only, with trust authentication (never expose it).
#   PG_START_TIMEOUT  seconds to wait for readiness, default 60.
#
# Meant for Debian 12 as root: installs the `postgresql` package when no
# /usr/lib/postgresql/<ver>/bin/initdb exists, and runs the server as the
# `postgres` user. Run as a non-root user, it runs the server as that user
# (PostgreSQL must then already be installed).
#
# Running it again while the server answers on the port only prints the url.
# Stop the server with: pg_ctl -D DATA_DIR stop (as its owner).
set -euo pipefail

PGPORT="${PGPORT:-55432}"
PG_START_TIMEOUT="${PG_START_TIMEOUT:-60}"
HOST=127.0.0.1
URL="postgres://postgres@${HOST}:${PGPORT}/postgres"

log() { printf 'start-test-postgres: %s\n' "$*" >&2; }
die() {
    log "error: $*"
    exit 1
}

[[ "$PGPORT" =~ ^[0-9]+$ ]] || die "PGPORT must be a port number, not '$PGPORT'"
[[ "$PG_START_TIMEOUT" =~ ^[0-9]+$ ]] || die "PG_START_TIMEOUT must be a number of seconds"

# The newest versioned binary folder (not /usr/local/bin, which may hold
# other wrappers, nor /usr/bin, where Debian puts pg_wrapper).
find_bindir() {
    local candidates=() dir
    for dir in /usr/lib/postgresql/*/bin; do
        [[ -x "$dir/initdb" && -x "$dir/pg_ctl" && -x "$dir/pg_isready" ]] && candidates+=("$dir")
    done
    ((${#candidates[@]})) || return 1
    printf '%s\n' "${candidates[@]}" | sort -V | tail -n 1
}

if ! BINDIR="$(find_bindir)"; then
    [[ $EUID -eq 0 ]] || die "PostgreSQL is not installed and installing it needs root"
    log "installing PostgreSQL from the Debian packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update >&2
    apt-get install -y --no-install-recommends postgresql >&2
    BINDIR="$(find_bindir)" || die "no /usr/lib/postgresql/<ver>/bin/initdb after installing postgresql"
fi

# Runs a command as the user who owns the cluster.
if [[ $EUID -eq 0 ]]; then
    RUN_USER=postgres
    id -u "$RUN_USER" >/dev/null 2>&1 || die "no '$RUN_USER' user (is the postgresql package installed?)"
    if command -v runuser >/dev/null 2>&1; then
        as_owner() { (cd / && runuser -u "$RUN_USER" -- "$@"); }
    else
        as_owner() { (cd / && su -s /bin/sh "$RUN_USER" -c "$(printf '%q ' "$@")"); }
    fi
else
    RUN_USER="$(id -un)"
    as_owner() { (cd / && "$@"); }
fi

# 0: accepting connections, 1: starting up or shutting down, 2: no answer.
probe() {
    local rc=0
    "$BINDIR/pg_isready" -q -h "$HOST" -p "$PGPORT" -d postgres -U postgres -t 2 || rc=$?
    return "$rc"
}

# Polls pg_isready until the server accepts connections or the deadline passes.
wait_ready() {
    local deadline=$((SECONDS + PG_START_TIMEOUT)) rc
    while true; do
        rc=0
        probe || rc=$?
        ((rc == 0)) && return 0
        ((SECONDS < deadline)) || {
            log "no answer on $HOST:$PGPORT after ${PG_START_TIMEOUT}s"
            return 1
        }
        sleep 0.1
    done
}

# Checks that what answers is a server we can use with that url.
check_usable() {
    "$BINDIR/psql" -X -q -At -d "$URL" -c 'SELECT 1' >/dev/null 2>&1 ||
        die "a server answers on $HOST:$PGPORT but '$URL' cannot log in (another server on that port?); set PGPORT"
}

rc=0
probe || rc=$?
if ((rc == 0 || rc == 1)); then
    wait_ready || die "the server on $HOST:$PGPORT did not become ready"
    check_usable
    log "already running on $HOST:$PGPORT"
    printf '%s\n' "$URL"
    exit 0
fi

DATA="${1:-${SVC_TEST_PG_DATA:-}}"
if [[ -z "$DATA" ]]; then
    base="$(mktemp -d "${TMPDIR:-/tmp}/svc-test-postgres.XXXXXX")"
    chmod 755 "$base"
    DATA="$base/data"
fi
mkdir -p "$DATA"
DATA="$(cd "$DATA" && pwd)"
if [[ -f "$DATA/PG_VERSION" ]]; then
    fresh=0
elif [[ -z "$(ls -A "$DATA")" ]]; then
    fresh=1
    if [[ $EUID -eq 0 ]]; then chown "$RUN_USER": "$DATA"; fi
    chmod 700 "$DATA"
else
    die "$DATA is neither empty nor a PostgreSQL cluster"
fi
as_owner test -w "$DATA" || die "$RUN_USER cannot write to $DATA (check its owner and the permissions of its parents)"

if ((fresh == 0)); then
    log "reusing the cluster in $DATA"
else
    log "creating a cluster in $DATA with $BINDIR/initdb"
    locale_opts=(--no-locale)
    if locale -a 2>/dev/null | grep -qixE 'c\.utf-?8'; then
        locale_opts=(--locale=C.UTF-8)
    fi
    as_owner "$BINDIR/initdb" -D "$DATA" -U postgres -A trust -E UTF8 "${locale_opts[@]}" >&2
    # Included last, so these win over postgresql.conf; rewritten on reuse.
    echo "include_if_exists = 'svc-test.conf'" | as_owner tee -a "$DATA/postgresql.conf" >/dev/null
fi

# Local-only (TCP on 127.0.0.1, no Unix socket), throwaway settings: no
# durability, room for the connection pools of parallel tests.
as_owner tee "$DATA/svc-test.conf" >/dev/null <<EOF
listen_addresses = '$HOST'
port = $PGPORT
unix_socket_directories = ''
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
EOF

log "starting the server on $HOST:$PGPORT (log: $DATA/server.log)"
# pg_ctl -w returns as soon as the postmaster reports ready or exits (for
# instance when the port is taken), so a failed start is reported at once;
# pg_isready then confirms that it answers on the TCP address.
if ! as_owner "$BINDIR/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -t "$PG_START_TIMEOUT" start >&2 ||
    ! wait_ready; then
    tail -n 30 "$DATA/server.log" >&2 || true
    die "the server did not start"
fi
check_usable
stop_cmd="$BINDIR/pg_ctl -D $DATA stop"
if [[ $EUID -eq 0 ]]; then stop_cmd="runuser -u $RUN_USER -- $stop_cmd"; fi
log "ready; stop it with: $stop_cmd"
printf '%s\n' "$URL"
