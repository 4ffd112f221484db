/**
 * Process containment (issue 15 item 15), part of the sandbox escape suite: a daemon a command
 * starts (setsid, its own session and group) is gone when the call ends, normally or by
 * timeout, under bubblewrap and the Landlock helper (their PID namespaces) and in
 * danger-full-access (the helper's keeper); and the command's exit status comes through the
 * containment unchanged.
 *
 * Each daemon runs `sleep 1000.<marker>`; the marker only exists once the shell expands it
 * ($T), so the script's own command line never matches it.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/exec/spawn.js";
import {
  containmentStatus,
  prepareSandboxedCommand,
  type SandboxBackendChoice,
  type SandboxPolicy,
} from "../../src/policy/sandbox/index.js";
import { renderCaptured } from "../../src/tools/truncate.js";
import { runCli } from "../support/cli.js";
import { waitFor, withMarker } from "../support/processes.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing } from "../support/skips.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

type Mode = SandboxPolicy["mode"];

const containment = await containmentStatus();
const backends = await sandboxBackends();

/** Every way a command runs: each backend in each sandboxed mode, and danger-full-access. */
const cases: { label: string; backend: SandboxBackendChoice; mode: Mode; available: boolean }[] = [
  ...backends.flatMap(({ name, status }) =>
    (["read-only", "workspace-write"] as const).map((mode) => ({
      label: `${name} ${mode}`,
      backend: name,
      mode,
      available: !missing(status, `containment under ${name}`),
    })),
  ),
  {
    label: "danger-full-access",
    backend: "auto",
    mode: "danger-full-access",
    available: !missing(containment, "containment of unsandboxed commands"),
  },
];

/** Starts a setsid daemon and waits (in the script) until it runs; `then` follows. */
function daemonScript(then: string): string {
  return `setsid sh -c 'exec sleep "$0"' "1000.$T" </dev/null >/dev/null 2>&1 &
until pgrep -f "1000.$T" >/dev/null; do sleep 0.01; done
echo daemon-up
${then}`;
}

async function run(c: (typeof cases)[number], script: string, timeoutMs = 20_000) {
  const marker = `${Date.now() % 100_000}${Math.random().toString().slice(2, 10)}`;
  const policy: SandboxPolicy = {
    mode: c.mode,
    writableRoots: c.mode === "workspace-write" ? ["/tmp"] : [],
    networkAccess: false,
  };
  const prepared = await prepareSandboxedCommand(["bash", "-c", script], "/tmp", policy, {
    backend: c.backend,
  });
  const result = await runCommand({
    argv: prepared.argv,
    cwd: "/tmp",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", T: marker },
    timeoutMs,
  });
  return { result, output: renderCaptured(result.aggregated), marker: `1000.${marker}` };
}

async function noneLeft(marker: string): Promise<boolean> {
  return (await withMarker(marker)).length === 0;
}

describe.each(cases)("process containment: $label", (c) => {
  it.skipIf(!c.available)("ends a setsid daemon when the command ends", async () => {
    const { result, output, marker } = await run(c, daemonScript("exit 0"));
    expect(output).toContain("daemon-up");
    expect(result.exitCode, output).toBe(0);
    try {
      await waitFor(() => noneLeft(marker), 3000);
    } finally {
      for (const pid of await withMarker(marker)) process.kill(pid, "SIGKILL");
    }
  });

  it.skipIf(!c.available)("ends a setsid daemon when the command times out", async () => {
    const { result, output, marker } = await run(c, daemonScript("exec sleep 1000"), 1500);
    expect(output).toContain("daemon-up");
    expect(result.timedOut).toBe(true);
    try {
      await waitFor(() => noneLeft(marker), 3000);
    } finally {
      for (const pid of await withMarker(marker)) process.kill(pid, "SIGKILL");
    }
  });

  it.skipIf(!c.available)("passes the command's exit code and fatal signal through", async () => {
    const exited = await run(c, "exit 7");
    expect(exited.result.exitCode, exited.output).toBe(7);
    expect(exited.result.killedBySignal).toBeNull();
    const signalled = await run(c, "kill -TERM $$");
    expect(signalled.result.exitCode, signalled.output).toBe(143);
    // bwrap reports a signal death as exit code 128+n (its own behaviour); the helper re-raises it.
    expect(signalled.result.killedBySignal).toBe(c.backend === "bwrap" ? null : "SIGTERM");
  });
});

describe("the helper's stand-in", () => {
  const helper = containment.available ? containment.path : "";
  const landlock = backends.find((backend) => backend.name === "landlock")?.status;
  const landlockPidNamespace =
    landlock?.available && !landlock.pidNamespace
      ? ({ available: false, reason: "the Landlock helper gets no PID namespace here" } as const)
      : (landlock ?? { available: false as const, reason: "no Landlock status" });
  const shapes = [
    {
      label: "keeper (danger-full-access)",
      flags: ["--contain-only"],
      available: !missing(containment, "the keeper's stand-in"),
    },
    {
      label: "PID namespace (Landlock)",
      flags: ["--pid-namespace", "--writable", "/tmp"],
      available: !missing(landlockPidNamespace, "the PID namespace stand-in"),
    },
  ];

  // Spawned in our own process group, as `tscodex sandbox` runs it: a signal sent to the
  // helper alone must reach the command (once), which decides how to end.
  for (const shape of shapes) {
    it.skipIf(!shape.available)(
      `passes a signal sent to it alone on to the command: ${shape.label}`,
      async () => {
        const trap = 'trap "echo got-term; exit 5" TERM; echo ready; while :; do sleep 0.05; done';
        const child = spawn(helper, [...shape.flags, "--", "bash", "-c", trap], {
          cwd: "/tmp",
          stdio: ["ignore", "pipe", "pipe"],
        });
        let output = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          output += chunk;
        });
        await waitFor(() => output.includes("ready"));
        child.kill("SIGTERM");
        const [code] = (await once(child, "exit")) as [number | null];
        expect(output).toBe("ready\ngot-term\n");
        expect(code).toBe(5);
      },
    );
  }
});

describe("without the helper", () => {
  let home: TempDir;
  beforeAll(async () => {
    home = await tmpdir("tscodex-contain-home-");
  });
  afterAll(() => home.cleanup());

  it("runs danger-full-access commands uncontained, saying so once on stderr", async () => {
    const run = await runCli(["sandbox", "-s", "danger-full-access", "--", "sh", "-c", "echo ran; exit 4"], {
      cwd: home.path,
      home: home.path,
      env: { TSCODEX_SANDBOX_HELPER: "/nonexistent/tscodex-sandbox" },
    });
    expect(run.code).toBe(4);
    expect(run.stdout).toBe("ran\n");
    const warnings = run.stderr.split("\n").filter((line) => line.includes("cannot be contained"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^tscodex: warning: commands cannot be contained here \(.*\); a daemon/);
  });
});
