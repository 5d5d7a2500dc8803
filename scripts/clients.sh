#!/usr/bin/env bash
# The client libraries under clients/ (docs/clients.md), generated from the
# committed OpenAPI document clients/openapi.json:
#   bash scripts/clients.sh install    the generators, when missing: a venv
#                                      (target/clients-venv) with
#                                      openapi-python-client, and
#                                      clients/typescript/node_modules
#                                      (npm ci: openapi-typescript, openapi-fetch,
#                                      TypeScript)
#   bash scripts/clients.sh generate   regenerates the generated parts into clients/
#   bash scripts/clients.sh update     after a change to the API: writes
#                                      clients/openapi.json from the code (the
#                                      api suite's document test with
#                                      SVC_WRITE_OPENAPI=1), then generate
#   bash scripts/clients.sh check      generates into a temporary folder and fails
#                                      when that differs from clients/ (CI)
# The document itself is checked against the code by the api suite's
# `clients::the_committed_document_is_the_one_the_code_serves`.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=target/clients-venv
# ruff formats what openapi-python-client writes: pinned too, or a new ruff
# could reformat the generated code and fail the check.
PY_GENERATOR=(openapi-python-client==0.29.1 ruff==0.17.6)
# The generated Python client needs httpx and attrs, which come with the
# generator: the api suite's client test runs with this venv's Python.
TS=clients/typescript

install() {
    if ! "$VENV/bin/python" -c 'import importlib.metadata as m; assert (m.version("openapi-python-client"), m.version("ruff")) == ("0.29.1", "0.17.6")' 2>/dev/null; then
        python3 -m venv "$VENV" || { apt-get install -y -qq python3-venv >/dev/null && python3 -m venv "$VENV"; }
        "$VENV/bin/pip" install -q "${PY_GENERATOR[@]}"
    fi
    # npm ci when node_modules was not installed from this very lock file.
    if ! cmp -s "$TS/package-lock.json" "$TS/node_modules/.svc-installed-lock" 2>/dev/null; then
        command -v npm >/dev/null 2>&1 || {
            echo "clients: npm is missing: install Node.js 20 or later and npm (Debian: bash scripts/setup.sh nodejs npm)" >&2
            exit 1
        }
        (cd "$TS" && npm ci --no-audit --no-fund --loglevel=error)
        cp "$TS/package-lock.json" "$TS/node_modules/.svc-installed-lock"
    fi
}

# generate OUT: the generated parts under OUT, laid out as under clients/.
generate_into() {
    local out=$1
    mkdir -p "$out/python" "$out/typescript/src"
    RUFF_NO_CACHE=true PATH="$PWD/$VENV/bin:$PATH" "$VENV/bin/openapi-python-client" generate --path clients/openapi.json \
        --config clients/python/generator.yml --meta none \
        --output-path "$out/python/svc_client" --overwrite >/dev/null
    "$TS/node_modules/.bin/openapi-typescript" clients/openapi.json \
        -o "$out/typescript/src/schema.d.ts" --silent
}

regenerate() {
    install
    local tmp
    tmp=$(mktemp -d)
    generate_into "$tmp"
    rm -rf clients/python/svc_client
    cp -r "$tmp/python/svc_client" clients/python/svc_client
    cp "$tmp/typescript/src/schema.d.ts" "$TS/src/schema.d.ts"
    rm -rf "$tmp"
    echo "regenerated clients/python/svc_client and $TS/src/schema.d.ts" >&2
}

case "${1:-}" in
install)
    install
    ;;
generate)
    regenerate
    ;;
update)
    SVC_WRITE_OPENAPI=1 cargo test --workspace --locked --test api -- \
        clients::the_committed_document_is_the_one_the_code_serves --exact
    regenerate
    ;;
check)
    install
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    generate_into "$tmp"
    failed=0
    diff -r "$tmp/python/svc_client" clients/python/svc_client || failed=1
    diff "$tmp/typescript/src/schema.d.ts" "$TS/src/schema.d.ts" || failed=1
    if [ "$failed" = 1 ]; then
        echo "== the clients under clients/ are not what clients/openapi.json generates (diff above): run bash scripts/clients.sh generate and commit" >&2
        exit 1
    fi
    echo "== the clients under clients/ are what clients/openapi.json generates" >&2
    ;;
*)
    echo "usage: bash scripts/clients.sh install|generate|check|update" >&2
    exit 2
    ;;
esac
