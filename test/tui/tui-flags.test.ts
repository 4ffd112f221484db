/**
 * Codex's global flags on the terminal UI (tmux, fake model): `-i` attaches an image to the
 * first prompt (and only to it), `--oss` talks to the local open-source provider with its
 * default model, `-p` applies a config.toml profile.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { TINY_PNG } from "../support/mcp-fixture-server.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();

const open = useTmuxTerminal(h);

const imageUrl = `data:image/png;base64,${TINY_PNG}`;

describe("global flags of the terminal UI", () => {
  it("-i attaches the image to the command-line prompt only", async () => {
    await writeFile(join(h.work, "pic.png"), Buffer.from(TINY_PNG, "base64"));
    h.server.enqueue(turn(message("a tiny picture")), turn(message("no picture now")));
    const t = await open(["-i", "pic.png", "what is this?"]);
    await t.waitFor("a tiny picture");
    const first = JSON.stringify(h.server.requests[0]?.input.at(-1));
    expect(first).toContain("what is this?");
    expect(first).toContain(imageUrl);
    await t.type("and now?");
    await t.send("Enter");
    await t.waitFor("no picture now");
    expect(JSON.stringify(h.server.requests[1]?.input.at(-1))).not.toContain("input_image");
  });

  it("-i without a prompt waits for the first typed one", async () => {
    await writeFile(join(h.work, "pic.png"), Buffer.from(TINY_PNG, "base64"));
    h.server.enqueue(turn(message("seen")));
    const t = await open(["--image", "pic.png"]);
    await t.waitFor(`the next prompt carries ${join(h.work, "pic.png")}`);
    await t.type("look");
    await t.send("Enter");
    await t.waitFor("seen");
    expect(JSON.stringify(h.server.requests[0]?.input.at(-1))).toContain(imageUrl);
  });

  it("--oss uses the local provider (chat wire) and gpt-oss:20b", async () => {
    h.server.enqueue(turn(message("hello from oss")));
    const t = await open(["--oss", "hi"], { env: { CODEX_OSS_BASE_URL: h.server.url } });
    const screen = await t.waitFor("hello from oss");
    expect(screen).toMatch(/gpt-oss:20b · sandbox/);
    expect(h.server.requests[0]?.wire).toBe("chat");
    expect(h.server.requests[0]?.body.model).toBe("gpt-oss:20b");
  });

  it("-p applies a config.toml profile", async () => {
    await h.writeConfig({ extra: '[profiles.quick]\nmodel = "gpt-profile-model"\n' });
    h.server.enqueue(turn(message("profiled")));
    const t = await open(["-p", "quick", "hi"]);
    const screen = await t.waitFor("profiled");
    expect(screen).toMatch(/gpt-profile-model · sandbox/);
    expect(h.server.requests[0]?.body.model).toBe("gpt-profile-model");
  });
});
