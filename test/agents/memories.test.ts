/**
 * Memories end to end: added with the CLI, listed in the prompt's context, loaded by get_memory;
 * a project memory beside a global one; removed again.
 */
import { describe, expect, it } from "vitest";
import { messageText } from "../../src/protocol/items.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";

const h = useExecHarness();

describe("memories", () => {
  it("round trip: tscodex memories add → summaries in the prompt → get_memory loads the body", async () => {
    const added = await h.cli([
      "memories",
      "add",
      "deploy",
      "# How we deploy\nRun `make ship`, never on Fridays.",
    ]);
    expect(added.code).toBe(0);
    const project = await h.cli(["memories", "add", "--project", "style"], {
      stdin: "Code style\nTabs, not spaces.\n",
    });
    expect(project.code).toBe(0);
    const listed = await h.cli(["memories", "list"]);
    expect(listed.stdout).toBe("deploy\tglobal\tHow we deploy\nstyle\tproject\tCode style\n");

    h.server.enqueue(
      turn(
        functionCall("get_memory", { id: "deploy" }, "m1"),
        functionCall("get_memory", { id: "nope" }, "m2"),
      ),
      turn(message("noted")),
    );
    expect((await h.exec(["how do we deploy?"])).code).toBe(0);
    const first = h.server.requests[0];
    expect(first?.toolNames).toContain("get_memory");
    const context = (first?.input ?? []).map((item) => (item.type === "message" ? messageText(item) : ""));
    expect(context).toContain(
      [
        "<memories>",
        "Notes kept from earlier work. Load one with get_memory when its summary is relevant to the task:",
        "- deploy (global): How we deploy",
        "- style (project): Code style",
        "</memories>",
      ].join("\n"),
    );
    expect(h.outputOf(1, "m1")).toBe("# How we deploy\nRun `make ship`, never on Fridays.\n");
    expect(h.outputOf(1, "m2")).toBe("no memory with id 'nope'");

    expect((await h.cli(["memories", "show", "style"])).stdout).toBe("Code style\nTabs, not spaces.\n");
    expect((await h.cli(["memories", "rm", "deploy"])).code).toBe(0);
    const missing = await h.cli(["memories", "rm", "deploy"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("tscodex: no global memory with id 'deploy'\n");
  });

  it("without memories there is no get_memory tool and no memories message", async () => {
    h.server.enqueue(turn(message("ok")));
    await h.exec(["hi"]);
    expect(h.server.requests[0]?.toolNames).not.toContain("get_memory");
    expect(h.server.requests[0]?.rawBody).not.toContain("<memories>");
  });
});
