import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadProjectDocs, projectDocsMessage } from "../../src/prompt/agents-md.js";
import { permissionsMessage } from "../../src/prompt/permissions.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let dir: TempDir;
afterEach(() => dir?.cleanup());

describe("AGENTS.md discovery", () => {
  it("joins docs from the git root down to cwd, override winning in its directory", async () => {
    dir = await tmpdir();
    const root = dir.path;
    const sub = join(root, "pkg", "app");
    await mkdir(join(root, ".git"), { recursive: true });
    await mkdir(sub, { recursive: true });
    await writeFile(join(root, "AGENTS.md"), "root rules\n");
    await writeFile(join(root, "pkg", "AGENTS.md"), "pkg rules\n");
    await writeFile(join(root, "pkg", "AGENTS.override.md"), "pkg override\n");
    await writeFile(join(sub, "AGENTS.md"), "app rules");
    const docs = await loadProjectDocs(sub, 32768);
    expect(docs?.text).toBe("root rules\n\npkg override\n\napp rules\n");
    expect(projectDocsMessage(sub, docs!)).toBe(
      `# AGENTS.md instructions for ${sub}\n\n<INSTRUCTIONS>\nroot rules\n\npkg override\n\napp rules\n\n</INSTRUCTIONS>`,
    );
  });

  it("stays in cwd outside a git repo, cuts at the byte cap, and is absent without docs", async () => {
    dir = await tmpdir();
    expect(await loadProjectDocs(dir.path, 32768)).toBeNull();
    await writeFile(join(dir.path, "AGENTS.md"), "é".repeat(10));
    expect((await loadProjectDocs(dir.path, 5))?.text).toBe("éé");
    expect(await loadProjectDocs(dir.path, 0)).toBeNull();
  });
});

describe("permissions message", () => {
  it("states mode, policy (untrusted spelled unless-trusted), network and roots", () => {
    const text = permissionsMessage({
      sandboxMode: "workspace-write",
      approvalPolicy: "untrusted",
      networkAccess: false,
      writableRoots: ["/extra", "/repo", "/tmp"],
    });
    expect(text).toMatch(/^<permissions instructions>\n/);
    expect(text).toContain("Writable roots: `/extra`, `/repo`, `/tmp`.");
    expect(text).toContain(
      "[sandbox_mode=workspace-write; approval_policy=unless-trusted; network=restricted]",
    );
    expect(
      permissionsMessage({
        sandboxMode: "read-only",
        approvalPolicy: "never",
        networkAccess: false,
        writableRoots: ["/r"],
      }),
    ).not.toContain("Writable roots");
  });
});
