/**
 * What a package consumer gets: `npm pack` of a copy of the sources with nothing built (its
 * `prepack` builds), then the tarball installed into a new project with install scripts on (the
 * postinstall compiles the sandbox helper from the shipped sources), then `npx tscodex`.
 * One test: packing and installing take a while.
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, test } from "vitest";
import { VERSION } from "../../src/version.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
let temp: TempDir | undefined;
afterEach(async () => {
  await temp?.cleanup();
});

function run(command: string, args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd,
        env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" },
        maxBuffer: 64 << 20,
      },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`${command} ${args.join(" ")} failed in ${cwd}: ${error.message}\n${stderr}`));
        else resolve({ stdout, stderr });
      },
    );
  });
}

test("npm pack of an unbuilt copy installs into a new project and runs", { timeout: 600_000 }, async () => {
  temp = await tmpdir("tscodex-pack-");
  // The sources as a clone has them (tracked and new files, nothing ignored: no dist, no
  // native/build), with this checkout's node_modules for the build tools.
  const source = join(temp.path, "source");
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\0")
    .filter((file) => file && existsSync(join(root, file)));
  for (const file of files) await cp(join(root, file), join(source, file), { recursive: false });
  await symlink(join(root, "node_modules"), join(source, "node_modules"), "dir");
  expect(existsSync(join(source, "dist"))).toBe(false);

  const packs = join(temp.path, "packs");
  await mkdir(packs);
  await run("npm", ["pack", "--pack-destination", packs], source);
  const [tarball] = await readdir(packs);
  expect(tarball).toBe(`tscodex-${VERSION}.tgz`);

  const project = join(temp.path, "project");
  await mkdir(project);
  await writeFile(join(project, "package.json"), `${JSON.stringify({ name: "consumer", private: true })}\n`);
  // --foreground-scripts: the postinstall's own lines are part of the output checked below.
  const install = await run("npm", ["install", "--foreground-scripts", join(packs, tarball ?? "")], project);
  const installOutput = install.stdout + install.stderr;
  expect(installOutput).not.toMatch(/ENOENT|could not compile/);
  const installed = join(project, "node_modules", "tscodex");
  if (spawnSync("cc", ["--version"], { stdio: "ignore" }).status === 0) {
    expect(existsSync(join(installed, "native", "build", "tscodex-sandbox"))).toBe(true);
  }

  const version = await run("npx", ["--no-install", "tscodex", "--version"], project);
  expect(version.stdout.trim()).toContain(VERSION);
  const help = await run("npx", ["--no-install", "tscodex", "exec", "--help"], project);
  expect(help.stdout).toContain("Usage: tscodex exec");
});
