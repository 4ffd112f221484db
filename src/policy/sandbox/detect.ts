/**
 * Which backends work on this machine, probed once per process and cached: bubblewrap by
 * running it with the flags we use, the helper by its `--probe` (which applies Landlock and
 * seccomp for real), and whether the helper's process containment (its keeper) is there.
 * Nothing here runs per command.
 */
import { execFile } from "node:child_process";
import { findOnPath, isExecutable } from "../../util/files.js";
import { findNativeHelper, HELPER_RELATIVE } from "../../util/native-helper.js";
import { bwrapArgv } from "./bwrap.js";
import { HELPER_EXIT_NO_LANDLOCK } from "./landlock.js";
import type { SandboxBackend } from "./types.js";

const PROBE_TIMEOUT_MS = 5_000;

/** One backend's verdict. `path` is the executable to run; `reason` says why it is unusable. */
export type BackendStatus =
  | { available: true; path: string; notes: string[] }
  | { available: false; reason: string };

/**
 * The helper's status adds what the kernel supports, whether commands get a PID namespace, and
 * whether it can make a network namespace (needed for proxy routes).
 */
export type LandlockStatus =
  | {
      available: true;
      path: string;
      notes: string[];
      abi: number;
      pidNamespace: boolean;
      netNamespace: boolean;
    }
  | { available: false; reason: string };

let bwrapStatus: Promise<BackendStatus> | undefined;
let landlockStatus: Promise<LandlockStatus> | undefined;
let helperPath: Promise<string | null> | undefined;
let detected: Promise<SandboxBackend> | undefined;
let containment: Promise<BackendStatus> | undefined;

/** bubblewrap's status (cached). */
export function bwrapBackendStatus(): Promise<BackendStatus> {
  bwrapStatus ??= probeBwrap();
  return bwrapStatus;
}

/**
 * The built helper (cached), whatever the kernel's Landlock: bwrap runs it in seccomp-only
 * mode (its seccomp layer and .git guard). Null when it is not built.
 */
export function sandboxHelperPath(): Promise<string | null> {
  helperPath ??= findNativeHelper();
  return helperPath;
}

/** The Landlock helper's status (cached). */
export function landlockBackendStatus(): Promise<LandlockStatus> {
  landlockStatus ??= probeLandlock();
  return landlockStatus;
}

/**
 * Whether the helper's keeper can contain unsandboxed commands here (cached). Unavailable
 * without the helper (not built, not Linux).
 */
export function containmentStatus(): Promise<BackendStatus> {
  containment ??= probeContainment();
  return containment;
}

/**
 * The backend "auto" picks: bwrap when it works, else the Landlock helper, else "none"
 * (meaning nothing can sandbox here). Computed once, cached.
 */
export function detectSandboxBackend(): Promise<SandboxBackend> {
  detected ??= (async () => {
    if ((await bwrapBackendStatus()).available) return "bwrap";
    if ((await landlockBackendStatus()).available) return "landlock";
    return "none";
  })();
  return detected;
}

async function probeBwrap(): Promise<BackendStatus> {
  if (process.platform !== "linux") return { available: false, reason: "bubblewrap is Linux only" };
  // $TSCODEX_SANDBOX_BWRAP names the binary (or, pointing nowhere, disables bwrap).
  const override = process.env.TSCODEX_SANDBOX_BWRAP;
  const found = override ?? (await findOnPath("bwrap", ["/usr/bin", "/bin"]));
  const bwrap = found && (await isExecutable(found)) ? found : null;
  if (!bwrap) return { available: false, reason: "bubblewrap (bwrap) is not installed" };
  // The flags of a real workspace-write run, on a command that does nothing.
  const argv = bwrapArgv(bwrap, ["true"], "/", {
    layout: { writable: ["/tmp"], readOnly: [] },
    networkAccess: false,
  });
  const run = await runProbe(argv);
  if (run.code !== 0) {
    return { available: false, reason: `${bwrap} does not work here: ${firstLine(run.output)}` };
  }
  return { available: true, path: bwrap, notes: [] };
}

async function probeLandlock(): Promise<LandlockStatus> {
  if (process.platform !== "linux") return { available: false, reason: "Landlock is Linux only" };
  const helper = await sandboxHelperPath();
  if (!helper) {
    return {
      available: false,
      reason: `the Landlock helper is not built (${HELPER_RELATIVE}; \`npm run build\` compiles it with cc)`,
    };
  }
  // With a PID namespace (as root directly, else through a user namespace) when the kernel
  // allows one; the plain probe then tells whether the rest works.
  let run = await runProbe([helper, "--probe", "--pid-namespace"]);
  const contained = run.code === 0;
  if (!contained) run = await runProbe([helper, "--probe"]);
  if (run.code === HELPER_EXIT_NO_LANDLOCK) {
    return { available: false, reason: `this kernel has no Landlock: ${firstLine(run.output)}` };
  }
  const match = /landlock-abi=(\d+) mount-namespace=([01])(?: net-namespace=([01]))?/.exec(run.output);
  if (run.code !== 0 || !match) {
    return { available: false, reason: `${helper} does not work here: ${firstLine(run.output)}` };
  }
  const abi = Number(match[1]);
  // Landlock has no right for chmod/chown/utimes/setxattr: without read-only mounts the mode
  // cannot be enforced, so the backend is refused rather than half applied.
  if (match[2] !== "1") {
    return {
      available: false,
      reason: `${helper} cannot make the file system read-only in a private mount namespace here (user namespaces disabled?), so metadata changes outside the writable roots would not be confined`,
    };
  }
  const notes: string[] = [];
  if (abi < 6) {
    notes.push(`Landlock ABI ${abi} < 6: commands can signal processes outside the sandbox`);
  }
  if (!contained) {
    notes.push("no PID namespace: a daemon a command starts (setsid) can outlive it");
  }
  const netNamespace = match[3] === "1";
  if (!netNamespace) notes.push("no network namespace: profiles with network domain rules cannot run");
  return { available: true, path: helper, notes, abi, pidNamespace: contained, netNamespace };
}

async function probeContainment(): Promise<BackendStatus> {
  if (process.platform !== "linux") return { available: false, reason: "the helper is Linux only" };
  const helper = await sandboxHelperPath();
  if (!helper) {
    return { available: false, reason: `the helper is not built (${HELPER_RELATIVE})` };
  }
  // The keeper needs no privilege (a subreaper, a session, /proc): the built helper is enough,
  // and no probe run delays the first command.
  return { available: true, path: helper, notes: [] };
}

interface ProbeRun {
  code: number | null;
  output: string;
}

function runProbe(argv: string[]): Promise<ProbeRun> {
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    execFile(file ?? "", args, { timeout: PROBE_TIMEOUT_MS, encoding: "utf8" }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`.trim() || (error?.message ?? "");
      if (!error) return resolve({ code: 0, output });
      const code = typeof error.code === "number" ? error.code : null;
      resolve({ code, output });
    });
  });
}

function firstLine(text: string): string {
  return text.split("\n", 1)[0]?.trim() || "no output";
}
