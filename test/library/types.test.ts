/**
 * The package's type declarations as a TypeScript user meets them: a small consumer that
 * imports "tscodex" (node_modules/tscodex → this repository, so package.json's "types" and
 * "exports" are what resolve) type-checks against dist/types, written by `npm run build`.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");

const CONSUMER = `import { type Event, Tscodex, type TurnResult, VERSION } from "tscodex";

const agent = new Tscodex({ config: { model: "gpt-5.2-codex" }, persist: false });
const thread = agent.startThread({ cwd: "/tmp", sandboxMode: "read-only", approvalPolicy: "never" });

export async function answer(prompt: string): Promise<string> {
  const seen: Event["type"][] = [];
  for await (const event of thread.runStreamed(prompt)) {
    seen.push(event.type);
    if (event.type === "agent_message") console.log(event.message);
  }
  const result: TurnResult = await thread.run("and again");
  return \`\${VERSION} \${thread.id}: \${result.finalResponse ?? result.error ?? seen.join(",")}\`;
}

// The declarations are real types, not \`any\`: each misuse below must be an error.
// @ts-expect-error: the prompt is text or a UserInput, not a number
void thread.run(42);
// @ts-expect-error: not a sandbox mode
agent.startThread({ sandboxMode: "everything" });
// @ts-expect-error: finalResponse may be null
export const text: (r: TurnResult) => string = (r) => r.finalResponse;
`;

let dir: TempDir | undefined;
afterAll(() => dir?.cleanup());

function tsc(project: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSC, "-p", project], { encoding: "utf8" }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe("type declarations", () => {
  it("a consumer of `tscodex` type-checks against the built dist/types (strict, lib check on)", async () => {
    expect(
      existsSync(join(ROOT, "dist/types/index.d.ts")),
      "dist/types/index.d.ts: run `npm run build`",
    ).toBe(true);
    dir = await tmpdir("tscodex-consumer-");
    await mkdir(join(dir.path, "node_modules/@types"), { recursive: true });
    await symlink(ROOT, join(dir.path, "node_modules/tscodex"));
    await symlink(join(ROOT, "node_modules/@types/node"), join(dir.path, "node_modules/@types/node"));
    await writeFile(join(dir.path, "package.json"), JSON.stringify({ name: "consumer", type: "module" }));
    await writeFile(
      join(dir.path, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
        },
        files: ["main.ts"],
      }),
    );
    await writeFile(join(dir.path, "main.ts"), CONSUMER);
    const result = await tsc(dir.path);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  });
});
