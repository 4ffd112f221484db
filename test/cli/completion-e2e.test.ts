/**
 * `tscodex completion bash|zsh|fish` through the built CLI: the bash script, loaded into a real
 * bash, offers the subcommands and flags of the command path typed so far; zsh and fish scripts
 * name the same words (those shells are not installed here, so their scripts are read, not run).
 */
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let home: TempDir;
beforeEach(async () => {
  home = await tmpdir("tscodex-completion-");
});
afterEach(() => home.cleanup());

const script = async (shell: string) => {
  const result = await runCli(["completion", shell], { cwd: home.path, home: home.path });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};

/** What bash offers after `tscodex <words>` (the last word is the one being completed). */
function bashOffers(scriptPath: string, words: string[]): string[] {
  const line = ["tscodex", ...words];
  const program = [
    `source ${JSON.stringify(scriptPath)}`,
    `COMP_WORDS=(${line.map((word) => JSON.stringify(word)).join(" ")})`,
    `COMP_CWORD=${line.length - 1}`,
    "_tscodex",
    `printf "%s\\n" "\${COMPREPLY[@]}"`,
  ].join("\n");
  return execFileSync("bash", ["-c", program], { encoding: "utf8" }).split("\n").filter(Boolean);
}

describe("tscodex completion", () => {
  it("bash: subcommands and flags of the command path typed so far", async () => {
    const path = join(home.path, "tscodex.bash");
    await writeFile(path, await script("bash"));
    expect(bashOffers(path, ["ex"])).toEqual(["exec"]);
    expect(bashOffers(path, ["exec", "fo"])).toEqual(["fork"]);
    expect(bashOffers(path, ["exec", "--js"])).toEqual(["--json"]);
    expect(bashOffers(path, ["features", ""])).toEqual(expect.arrayContaining(["list", "enable", "disable"]));
    expect(bashOffers(path, ["exec", "resume", "--la"])).toEqual(["--last"]);
    // Flags of a subcommand are not offered elsewhere.
    expect(bashOffers(path, ["--la"])).toEqual([]);
    expect(bashOffers(path, ["completion", "z"])).toEqual(["zsh"]);
  });

  it("zsh loads the bash function through bashcompinit; fish names commands and flags", async () => {
    const zsh = await script("zsh");
    expect(zsh.startsWith("#compdef tscodex\n")).toBe(true);
    expect(zsh).toContain("bashcompinit");
    expect(zsh).toContain("complete -o default -F _tscodex tscodex");
    const fish = await script("fish");
    expect(fish).toContain("complete -c tscodex -n '__fish_use_subcommand' -a exec");
    expect(fish).toContain("-a fork");
    expect(fish).toContain("-l json");
  });

  it("an unknown shell is a usage error", async () => {
    const result = await runCli(["completion", "tcsh"], { cwd: home.path, home: home.path });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
  });
});
