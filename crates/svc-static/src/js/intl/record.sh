#!/bin/bash
# Records data.json: runs record.js in Chromium's headless shell (the
# browser svc runs) and keeps its answer, each locale that formats exactly
# as another one stored as that one's alias.
#   bash crates/svc-static/src/js/intl/record.sh [/path/to/chromium-headless-shell]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
browser="${1:-/usr/lib/chromium/chromium-headless-shell}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
{
  echo '<!doctype html><meta charset=utf-8><pre id=out></pre><script>let out;'
  cat "$here/record.js"
  echo ';document.getElementById("out").textContent = JSON.stringify(out);</script>'
} > "$work/record.html"
"$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" --dump-dom "file://$work/record.html" 2>/dev/null > "$work/dom.html"
python3 - "$work/dom.html" "$here/data.json" "$("$browser" --version 2>/dev/null || echo unknown)" <<'PY'
import html, json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
data = json.loads(html.unescape(re.search(r'<pre id="out">(.*?)</pre>', dom, re.S).group(1)))
digits = data.pop("*currencyDigits")
# The option sets' keys once; each locale's patterns as a list in their order.
keys = sorted({k for entry in data.values() for k in entry["date"]["patterns"]})
for entry in data.values():
    patterns = entry["date"]["patterns"]
    entry["date"]["patterns"] = [patterns.get(k) for k in keys]
    assert all(k in patterns for k in keys), "every locale records the same option sets"
locales, seen = {}, {}
for tag, entry in data.items():
    body = json.dumps({k: v for k, v in entry.items() if k != "locale"}, sort_keys=True, ensure_ascii=False)
    if body in seen:
        locales[tag] = {"locale": entry["locale"], "as": seen[body]}
    else:
        seen[body] = tag
        locales[tag] = entry
out = {"recordedWith": sys.argv[3].strip(), "currencyDigits": digits, "keys": keys, "locales": locales}
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
    f.write("\n")
PY
echo "wrote $here/data.json"
