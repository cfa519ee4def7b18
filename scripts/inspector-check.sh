#!/usr/bin/env bash
# The official MCP Inspector CLI lists the built server's tools with --strict: it must exit 0, list
# exactly three tools, and print no schema finding (warnings included) on stderr.
# Usage: scripts/inspector-check.sh <node >= 22> <inspector launcher index.js>
set -euo pipefail
node=$1
inspector=$2
cd "$(dirname "$0")/.."
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
# The inspector's launcher starts the server with the `node` on PATH.
PATH="$(dirname "$node"):$PATH" "$node" "$inspector" --cli --strict --method tools/list \
  -e MODEL_FEED_API_KEY=inspector-check-key -e MODEL_FEED_BASE_URL=https://feed.invalid \
  "$node" bin/model-feed-mcp.cjs >"$out" 2>"$err" || { cat "$err" >&2; echo "inspector failed" >&2; exit 1; }
if [ -s "$err" ]; then
  cat "$err" >&2
  echo "inspector reported schema findings" >&2
  exit 1
fi
count=$("$node" -e 'const t=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).tools;console.log(t.length)' "$out")
if [ "$count" != 3 ]; then
  echo "inspector listed $count tools, expected 3" >&2
  exit 1
fi
echo "inspector --strict: 3 tools, no schema findings"
