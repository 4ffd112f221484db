#!/usr/bin/env bash
# A new user's first steps, checked: clone HEAD into an empty temp dir (no ../shared beside it,
# no node_modules, no dist, no config home), then run the README's two commands there, read
# from the README itself:
#   1. npm install && npm run build && node bin/tscodex.js exec ...  Without an API key (none is
#      passed) it must end with its documented one-line "no API key" message; that counts as success.
#   2. npm install && npm run check && npm test                        Must pass; the counts are printed.
# Usage: scripts/fresh-clone-check.sh [--no-skips] [--keep]
#   --no-skips  a skipped test fails the check (CI: .ci/run installs what every test needs)
#   --keep      leave the temp dir for inspection
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
no_skips=()
keep=false
for arg in "$@"; do
  case $arg in
    --no-skips) no_skips=(--no-skips) ;;
    --keep) keep=true ;;
    *) echo "usage: $0 [--no-skips] [--keep]" >&2; exit 2 ;;
  esac
done
say() { echo "fresh-clone-check: $*"; }

head=$(git -C "$root" rev-parse HEAD)
if [ -n "$(git -C "$root" status --porcelain)" ]; then
  say "note: uncommitted changes are left out; checking HEAD $head"
fi
mapfile -t commands < <(grep -E '^npm install && ' "$root/README.md")
if [ ${#commands[@]} -ne 2 ]; then
  say "README.md should show exactly two 'npm install && ...' commands, found ${#commands[@]}" >&2
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tscodex-fresh-XXXXXX")
cleanup() { if $keep; then say "kept $tmp"; else rm -rf "$tmp"; fi; }
trap cleanup EXIT
clone=$tmp/tscodex
git clone --quiet --no-checkout "$root" "$clone"
git -C "$clone" cat-file -e "$head^{commit}" 2>/dev/null || git -C "$clone" fetch --quiet origin "$head"
git -C "$clone" -c advice.detachedHead=false checkout --quiet --detach "$head"
cd "$clone"

# A new user: no API key in the environment, an empty config home.
unset OPENAI_API_KEY
export TSCODEX_HOME=$tmp/home

# Command 1: its set-up part, then the run, whose stderr must be exactly the one-line message.
say "command 1: ${commands[0]}"
setup=${commands[0]% && node bin/tscodex.js *}
run=${commands[0]#"$setup && "}
if [ "$setup" = "${commands[0]}" ]; then
  say "command 1 does not end with 'node bin/tscodex.js ...'" >&2
  exit 1
fi
bash -c "$setup"
# Installing and building must leave the clone as it was (no rewritten lock file, no build output
# outside .gitignore).
if [ -n "$(git status --porcelain)" ]; then
  say "command 1's set-up changed the clone:" >&2
  git status --short >&2
  exit 1
fi
status=0
bash -c "$run" >"$tmp/run.out" 2>"$tmp/run.err" || status=$?
message=$(cat "$tmp/run.err")
if [ "$status" -eq 0 ]; then
  say "command 1 ran the agent: $(head -c 200 "$tmp/run.out")"
elif [ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/run.err")" -le 1 ] &&
  [[ $message == "tscodex: no API key for model provider 'openai': set OPENAI_API_KEY "* ]]; then
  say "command 1 ended with the documented message: $message"
else
  say "command 1 failed (exit $status) other than with the one-line no-API-key message:" >&2
  cat "$tmp/run.out" "$tmp/run.err" >&2
  exit 1
fi

# Command 2, with vitest's JSON report on the side for the counts.
say "command 2: ${commands[1]}"
TSCODEX_TEST_REPORT=$tmp/report.json bash -c "${commands[1]}"
node scripts/test-report.mjs "$tmp/report.json" "${no_skips[@]}"
say "passed for $head"
