#!/usr/bin/env bash
# The project's test command. Installs what the tests need (Debian's
# Chromium, its headless shell and PostgreSQL; the Python MCP SDK,
# Schemathesis, openpyxl and feedparser; Node.js and the client libraries'
# generators; mdBook), starts a throwaway PostgreSQL on 127.0.0.1 and checks
# that the client libraries are what their OpenAPI document generates (all
# of which overlaps the build), builds every test binary once, and runs, in
# this order:
#   1. every test, with the HTTP suites on SQLite and the storage suite on
#      SQLite and PostgreSQL;
#   2. side by side: the HTTP suites that exercise storage again on
#      PostgreSQL, and the run suites again on Debian's full Chromium;
#   3. the book's build and link check;
#   4. each fuzz target, briefly (uninstrumented: docs/fuzzing.md).
# Each step prints how long it took. Tests run under cargo-nextest when it is
# installed (several test binaries at once), else under cargo test.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
last=$SECONDS
step() {
    local now=$SECONDS
    echo "== [$((now - started)) s, the step before took $((now - last)) s] $*" >&2
    last=$now
}

step "setup, in the background while the build runs: Debian packages, PostgreSQL, the Python MCP SDK, Schemathesis, openpyxl and feedparser, the client libraries' check, mdBook"
# None of it is needed to compile (the build needs only the toolchain), so
# it overlaps the build, which is CPU-bound, rather than precede it (27 s).
mkdir -p target
MCP_VENV=target/mcp-venv
ST_VENV=target/schemathesis-venv
READERS_VENV=target/readers-venv
# venv DIR IMPORTS PACKAGES...: a virtual environment with PACKAGES, unless
# one that imports IMPORTS is already there.
venv() {
    local dir=$1 imports=$2
    shift 2
    if [ ! -x "$dir/bin/python" ] || ! "$dir/bin/python" -c "import $imports" 2>/dev/null; then
        python3 -m venv "$dir" || { apt-get install -y -qq python3-venv >/dev/null && python3 -m venv "$dir"; }
        "$dir/bin/pip" install -q "$@"
    fi
}
setup_log=target/setup.log
(
    set -euo pipefail
    # The headless shell (svc's default browser) and Chromium (the run
    # suites run again on it, below); Node.js and npm for the TypeScript
    # client when missing.
    if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
        bash scripts/setup.sh
    else
        bash scripts/setup.sh nodejs npm
    fi
    bash scripts/start-test-postgres.sh >target/postgres-url
    # The official Python MCP SDK, for the MCP interoperability test.
    venv "$MCP_VENV" mcp "mcp==2.3.0"
    # Schemathesis, for the test that checks the OpenAPI document against the server.
    venv "$ST_VENV" schemathesis "schemathesis==4.32.5"
    # Real readers of svc's exports and feeds: openpyxl opens the XLSX
    # export and feedparser parses the Atom and RSS feeds (the api suite's
    # `exports::` and `feeds::` tests). Both are small, pure-Python wheels.
    venv "$READERS_VENV" "openpyxl, feedparser" "openpyxl==3.1.5" "feedparser==6.0.12"
    # The client libraries (docs/clients.md): their generators and
    # dependencies when missing (target/clients-venv,
    # clients/typescript/node_modules), then the check that regenerating
    # them from clients/openapi.json changes nothing (seconds). The api
    # suite's `clients::` tests then run each client's tests against the
    # in-process server.
    bash scripts/clients.sh check
) >"$setup_log" 2>&1 &
setup=$!
export SVC_TEST_MCP_PYTHON="$PWD/$MCP_VENV/bin/python"
export SVC_TEST_SCHEMATHESIS="$PWD/$ST_VENV/bin/st"
export SVC_TEST_READERS_PYTHON="$PWD/$READERS_VENV/bin/python"
export SVC_TEST_CLIENTS_PYTHON="$PWD/target/clients-venv/bin/python"

# mdBook compiles from crates.io when missing: in the background, niced, so
# that it takes the cores the build and the browser-bound tests leave idle.
book_install_log=target/book-install.log
bash scripts/book.sh --install-only >"$book_install_log" 2>&1 &
book_install=$!

step "build: every test binary and the fuzz targets, once"
# One command for both: tests turn on dev-dependencies' features, and a
# separate `cargo build` of the fuzz targets, without them, compiled
# chromiumoxide, rmcp, reqwest and six workspace crates a second time (68 s
# on a fresh clone). Later passes select the whole workspace too: with
# `-p svc-server` Cargo would unify features for that package alone.
FUZZ_TARGETS=(cron url_text private_hosts webhook_signature mcp_jsonrpc csv config)
cargo build --workspace --locked --lib --tests $(printf -- '--bin %s ' "${FUZZ_TARGETS[@]}")
cargo test --workspace --locked --no-run

# run_tests LOG THREADS [cargo-test args...] -- [test filters...]
# Runs the workspace's tests with at most THREADS at once; with a LOG, the
# output goes there (for passes that run side by side).
if command -v cargo-nextest >/dev/null 2>&1; then
    runner=(cargo nextest run --workspace --locked --no-fail-fast --failure-output final --status-level fail)
else
    runner=(cargo test --workspace --locked --no-fail-fast)
fi
run_tests() {
    local threads=$1
    shift
    if [ "${runner[1]}" = nextest ]; then
        "${runner[@]}" -j "$threads" "$@"
    else
        RUST_TEST_THREADS=$threads "${runner[@]}" "$@"
    fi
}

step "the setup's end (above: it ran during the build)"
wait "$setup" || { cat "$setup_log" >&2; echo "== the setup failed (above)" >&2; exit 1; }
cat "$setup_log" >&2
SVC_TEST_POSTGRES_URL="$(cat target/postgres-url)"
export SVC_TEST_POSTGRES_URL
# Node.js may have come with the setup.
SVC_TEST_CLIENTS_NODE="$(command -v node)" || { echo "== node is missing after the setup" >&2; exit 1; }
export SVC_TEST_CLIENTS_NODE

step "all tests (HTTP suites on SQLite; storage suite on SQLite and PostgreSQL)"
run_tests 4

step "side by side: HTTP suites on PostgreSQL, run suites on Chromium"
# On PostgreSQL: every HTTP suite but those about engines, crawls and screens,
# whose storage calls are the ones the other suites make (the storage suite
# covers every store method on both backends), and the OpenAPI document's
# Schemathesis check (90 s; the document does not depend on the backend),
# the client libraries' tests (their routes are covered here by the other
# suites), and the outage test, which is on PostgreSQL in the first pass
# already.
SVC_TEST_BACKEND=postgres run_tests 2 --test api -- \
    --skip runs:: --skip run_faults:: --skip warm_pages:: --skip static_engine:: \
    --skip test_runs:: --skip crawl:: --skip web:: --skip schemathesis:: --skip clients:: \
    --skip outage::a_database_outage_answers_503 >target/pass-postgres.log 2>&1 &
postgres_pass=$!
# Debian's full Chromium, the browser svc falls back to without the headless
# shell (docs/engines.md): the run suites again on it. The binary, not the
# /usr/bin wrapper script.
SVC_TEST_CHROMIUM=/usr/lib/chromium/chromium run_tests 2 --test api -- runs:: run_faults:: warm_pages:: \
    >target/pass-chromium.log 2>&1 &
chromium_pass=$!
failed=0
wait "$postgres_pass" || failed=1
echo "== HTTP suites on PostgreSQL" >&2
cat target/pass-postgres.log
wait "$chromium_pass" || failed=1
echo "== run suites on Chromium" >&2
cat target/pass-chromium.log
[ "$failed" = 0 ] || { echo "== a side-by-side pass failed (above)" >&2; exit 1; }

step "the book: build and link check"
wait "$book_install" || { cat "$book_install_log" >&2; exit 1; }
bash scripts/book.sh

step "fuzz targets, 5 s each, uninstrumented (docs/fuzzing.md)"
bash scripts/fuzz-smoke.sh 5 "${FUZZ_TARGETS[@]}"

step "done"
