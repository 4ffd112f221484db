#!/usr/bin/env bash
# A new user's first steps, checked: clone HEAD into an empty temp dir (no ../shared beside it,
# no node_modules, no dist, no config home), then run the README's two commands there, read
# from the README itself:
#   1. npm install && npm run build && node bin/tscodex.js exec ...  Without an API key (none is
#      passed) it must end with its documented one-line "no API key" message; that counts as success.
#   2. npm install && npm run check && npm test                        Must pass; the counts are printed.
# Usage: scripts/fresh-clone-check.sh [--no-skips] [--keep] [--without LIST] [--only TEST_FILE]...
#   --no-skips      a skipped test fails the check (CI: .ci/run installs what every test needs)
#   --keep          leave the temp dir for inspection
#   --without LIST  check as on a machine without these system packages (comma-separated):
#                   unifont, bubblewrap, cc (every C compiler), tmux, python3, curl, postgresql;
#                   "new-user" means unifont,bubblewrap,cc (what a fresh Debian lacks). Tests that
#                   need one must skip with a reason, not fail. Nothing is uninstalled: the check
#                   re-runs itself in a private mount namespace (unshare, so it needs root) where
#                   each package's programs are covered by /dev/null (not executable) and its data
#                   directories by an empty tmpfs; no other process sees a change.
#   --only FILE     command 2 runs only this test file (repeatable): a quick partial check
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
no_skips=()
keep=false
without=()
only=()
args=("$@")
usage() { echo "usage: $0 [--no-skips] [--keep] [--without LIST] [--only TEST_FILE]..." >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --no-skips) no_skips=(--no-skips) ;;
    --keep) keep=true ;;
    --without) [ $# -ge 2 ] || usage; IFS=, read -ra listed <<<"${2/new-user/unifont,bubblewrap,cc}"; without+=("${listed[@]}"); shift ;;
    --only) [ $# -ge 2 ] || usage; only+=("$2"); shift ;;
    *) usage ;;
  esac
  shift
done
say() { echo "fresh-clone-check: $*"; }

# --without: into a private mount namespace first, then cover each package there.
if [ ${#without[@]} -gt 0 ] && [ -z "${FRESH_CLONE_HIDING:-}" ]; then
  if ! unshare --mount --propagation private true 2>/dev/null; then
    say "--without needs a private mount namespace (unshare --mount, as root)" >&2
    exit 2
  fi
  exec unshare --mount --propagation private env FRESH_CLONE_HIDING=1 bash "$0" "${args[@]}"
fi
hidden=()
cover_file() { # a program's real file becomes /dev/null: found, but not executable
  local real
  real=$(readlink -f "$1") || return 0
  [ -f "$real" ] || return 0
  [[ " ${hidden[*]} " == *" $real "* ]] && return 0
  mount --bind /dev/null "$real"
  hidden+=("$real")
}
cover_programs() { # every program on PATH (and in /usr/bin, /bin) whose name matches the pattern
  local name dir
  for dir in ${PATH//:/ } /usr/bin /bin /usr/local/bin; do
    for name in "$dir"/*; do
      [[ ${name##*/} =~ ^($1)$ ]] && cover_file "$name"
    done
  done
  return 0
}
cover_dir() {
  if [ -d "$1" ]; then mount -t tmpfs -o size=16k,mode=755 none "$1"; hidden+=("$1/"); fi
}
for package in "${without[@]}"; do
  case $package in
    unifont) cover_dir /usr/share/unifont ;;
    bubblewrap) cover_programs 'bwrap' ;;
    cc) cover_programs '(x86_64-linux-gnu-|aarch64-linux-gnu-)?(cc|c89|c99|gcc|clang|tcc)(-[0-9.]+)?' ;;
    tmux) cover_programs 'tmux' ;;
    python3) cover_programs 'python3(\.[0-9]+)?' ;;
    curl) cover_programs 'curl' ;;
    postgresql) cover_dir /usr/lib/postgresql; cover_programs 'psql|pg_config|initdb|postgres|pg_ctl' ;;
    *) say "--without: unknown package '$package'" >&2; exit 2 ;;
  esac
done
if [ ${#without[@]} -gt 0 ]; then say "without ${without[*]}: covered ${hidden[*]:-nothing}"; fi

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
command2=${commands[1]}
if [ ${#only[@]} -gt 0 ]; then
  [[ $command2 == *" && npm test" ]] || { say "command 2 does not end with 'npm test'" >&2; exit 1; }
  command2+=" -- ${only[*]}"
  say "only: ${only[*]}"
fi
TSCODEX_TEST_REPORT=$tmp/report.json bash -c "$command2"
node scripts/test-report.mjs "$tmp/report.json" "${no_skips[@]}"
say "passed for $head"
