// Builds the fallback sandbox helper (native/*.c → native/build/tscodex-sandbox)
// with the system C compiler. Never fails the build: without a compiler, or off Linux, it
// prints one line and tscodex uses bubblewrap alone (or refuses to sandbox, saying why).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const sources = ["tscodex-sandbox.c", "contain.c", "git-guard.c", "git-guard-calls.c"].map((name) =>
  fileURLToPath(new URL(`../native/${name}`, import.meta.url)),
);
const headers = ["contain.h", "git-guard.h", "git-guard-calls.h"].map((name) =>
  fileURLToPath(new URL(`../native/${name}`, import.meta.url)),
);
const outDir = fileURLToPath(new URL("../native/build/", import.meta.url));
const output = `${outDir}tscodex-sandbox`;

function note(message) {
  console.log(`build-native: ${message}`);
  process.exit(0);
}

if (process.platform !== "linux") note("not Linux: the Landlock sandbox helper is not built");
const newestInput = Math.max(...[...sources, ...headers].map((path) => statSync(path).mtimeMs));
if (existsSync(output) && statSync(output).mtimeMs >= newestInput) process.exit(0);

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
  execFileSync(compiler, ["-O2", "-Wall", "-Wextra", "-std=c11", "-pthread", "-o", temp, ...sources], {
    stdio: "pipe",
  });
  // Rename so a running helper is never overwritten in place.
  renameSync(temp, output);
} catch (error) {
  rmSync(temp, { force: true });
  const detail = String(error.stderr ?? error.message)
    .trim()
    .split("\n")[0];
  note(`could not compile the Landlock sandbox helper (${detail}); bubblewrap is still used`);
}
