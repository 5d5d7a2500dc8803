#!/usr/bin/env bash
# The project's test command: installs what the tests need (Debian's
# Chromium, its headless shell and PostgreSQL), starts a throwaway PostgreSQL
# on 127.0.0.1, and runs every test on SQLite, then the storage suite and the
# HTTP suite on PostgreSQL, then the run suites on the headless shell.
set -euo pipefail
cd "$(dirname "$0")/.."

# The headless shell (svc's default browser) and Chromium (the run suites
# run again on it, below).
bash scripts/setup.sh
SVC_TEST_POSTGRES_URL="$(bash scripts/start-test-postgres.sh)"
export SVC_TEST_POSTGRES_URL

# The official Python MCP SDK, for the MCP interoperability test.
MCP_VENV=target/mcp-venv
if [ ! -x "$MCP_VENV/bin/python" ] || ! "$MCP_VENV/bin/python" -c 'import mcp' 2>/dev/null; then
    python3 -m venv "$MCP_VENV" || { apt-get install -y -qq python3-venv >/dev/null && python3 -m venv "$MCP_VENV"; }
    "$MCP_VENV/bin/pip" install -q "mcp==2.3.0"
fi
export SVC_TEST_MCP_PYTHON="$PWD/$MCP_VENV/bin/python"

# Schemathesis, for the test that checks the OpenAPI document against the server.
ST_VENV=target/schemathesis-venv
if [ ! -x "$ST_VENV/bin/st" ] || ! "$ST_VENV/bin/python" -c 'import schemathesis' 2>/dev/null; then
    python3 -m venv "$ST_VENV" || { apt-get install -y -qq python3-venv >/dev/null && python3 -m venv "$ST_VENV"; }
    "$ST_VENV/bin/pip" install -q "schemathesis==4.32.5"
fi
export SVC_TEST_SCHEMATHESIS="$PWD/$ST_VENV/bin/st"

echo "== all tests (HTTP suites on SQLite; storage suite on SQLite and PostgreSQL)" >&2
cargo test --workspace --locked --no-fail-fast
# The later passes select the whole workspace and name svc-server's test
# binary: with `-p svc-server` Cargo would unify dependency features for that
# package alone and compile about 30 crates a second time.
echo "== HTTP suites on PostgreSQL" >&2
SVC_TEST_BACKEND=postgres cargo test --workspace --locked --no-fail-fast --test api

# Debian's full Chromium, the browser svc falls back to without the headless
# shell (README, Configuration): the run suites again on it. The binary, not
# the /usr/bin wrapper script.
echo "== run suites on Chromium" >&2
SVC_TEST_CHROMIUM=/usr/lib/chromium/chromium \
    cargo test --workspace --locked --no-fail-fast --test api -- runs:: run_faults:: warm_pages::
