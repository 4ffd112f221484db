// Builds the fallback sandbox helper (native/*.c → native/build/tscodex-sandbox) with the
// system C compiler. $TSCODEX_NATIVE_BUILD picks the build:
// - unset: the default; never fails `npm run build`. Without a compiler, or off Linux, it
//   prints one line and tscodex uses bubblewrap alone (or refuses to sandbox, saying why).
// - strict: every warning (-Wall -Wextra -Wconversion) is an error, and so is a failed build.
// - sanitize: strict, plus AddressSanitizer and UndefinedBehaviorSanitizer. Their reports go
//   to native/build/sanitizer.log (see native/sanitizer.c); CI fails when it is not empty.
//   LeakSanitizer stops the process with ptrace at exit and dies ("does not work under
//   ptrace") where ptrace is denied (a seccomp profile, strace, gdb); TSCODEX_NATIVE_LEAKS=0
//   builds without leak checks for such machines.
// The flags are recorded beside the binary, so switching builds recompiles.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const sources = [
  "tscodex-sandbox.c",
  "contain.c",
  "fs-rules.c",
  "git-guard.c",
  "git-guard-calls.c",
  "proxy-bridge.c",
  "sanitizer.c",
].map((name) => fileURLToPath(new URL(`../native/${name}`, import.meta.url)));
const headers = ["contain.h", "fs-rules.h", "git-guard.h", "git-guard-calls.h", "proxy-bridge.h"].map(
  (name) => fileURLToPath(new URL(`../native/${name}`, import.meta.url)),
);
const outDir = fileURLToPath(new URL("../native/build/", import.meta.url));
const output = `${outDir}tscodex-sandbox`;
const flagsFile = `${output}.flags`;
const SANITIZER_LOG = `${outDir}sanitizer.log`;

const mode = process.env.TSCODEX_NATIVE_BUILD || "default";
if (!["default", "strict", "sanitize"].includes(mode)) {
  console.error(`build-native: TSCODEX_NATIVE_BUILD must be strict or sanitize, not '${mode}'`);
  process.exit(1);
}
const warnings = ["-Wall", "-Wextra", "-Wconversion"];
const flags = {
  default: ["-O2", ...warnings],
  strict: ["-O2", ...warnings, "-Werror"],
  sanitize: [
    "-O1",
    "-g",
    "-fno-omit-frame-pointer",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    ...warnings,
    "-Werror",
    `-DTSCODEX_SANITIZER_LOG="${SANITIZER_LOG}"`,
    `-DTSCODEX_DETECT_LEAKS="${process.env.TSCODEX_NATIVE_LEAKS === "0" ? 0 : 1}"`,
  ],
}[mode];
const args = [...flags, "-std=c11", "-pthread", "-o"];

/** In the default build a problem is one line and exit 0; in the others it fails the build. */
function note(message, detail = "") {
  if (mode === "default") {
    console.log(`build-native: ${message}`);
    process.exit(0);
  }
  console.error(`build-native (${mode}): ${message}${detail ? `\n${detail}` : ""}`);
  process.exit(1);
}

if (process.platform !== "linux") note("not Linux: the Landlock sandbox helper is not built");
const newestInput = Math.max(...[...sources, ...headers].map((path) => statSync(path).mtimeMs));
const builtWith = existsSync(flagsFile) ? readFileSync(flagsFile, "utf8") : "";
if (existsSync(output) && statSync(output).mtimeMs >= newestInput && builtWith === JSON.stringify(args)) {
  process.exit(0);
}

const compiler = [process.env.CC, "cc", "gcc", "clang"].find((cc) => {
  if (!cc) return false;
  return spawnSync(cc, ["--version"], { stdio: "ignore" }).status === 0;
});
if (!compiler) {
  note("no C compiler (cc/gcc/clang): the Landlock sandbox helper is not built; bubblewrap is still used");
}

mkdirSync(outDir, { recursive: true });
const temp = `${output}.tmp-${process.pid}`;
try {
  execFileSync(compiler, [...args, temp, ...sources], { stdio: "pipe" });
  // Rename so a running helper is never overwritten in place.
  renameSync(temp, output);
  writeFileSync(flagsFile, JSON.stringify(args));
  if (mode !== "default") console.log(`build-native: ${mode} build of ${output}`);
} catch (error) {
  rmSync(temp, { force: true });
  const detail = String(error.stderr ?? error.message).trim();
  note(
    `could not compile the Landlock sandbox helper (${detail.split("\n")[0]}); bubblewrap is still used`,
    detail,
  );
}
