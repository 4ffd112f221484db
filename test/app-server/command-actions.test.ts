import { describe, expect, it } from "vitest";
import { commandActions, proposedAmendment } from "../../src/frontends/app-server/command-actions.js";

const bash = (script: string) => ["/bin/bash", "-lc", script];

describe("commandActions", () => {
  it("reads scripts as Codex's transcript shows them", () => {
    // reference session-089.jsonl: `echo app-server && ls` shows only `ls`.
    expect(commandActions(bash("echo app-server && ls"))).toEqual([
      { type: "listFiles", command: "ls", path: null },
    ]);
    // …but helpers stay when nothing else is recognised.
    expect(commandActions(bash("touch approved-by-app.txt && echo ok"))).toEqual([
      { type: "unknown", command: "touch approved-by-app.txt" },
      { type: "unknown", command: "echo ok" },
    ]);
  });

  it("classifies reads, listings and searches", () => {
    expect(commandActions(bash("cat src/a.ts | head -5"))).toEqual([
      { type: "read", command: "cat src/a.ts", name: "a.ts", path: "src/a.ts" },
      { type: "unknown", command: "head -5" },
    ]);
    expect(commandActions(bash("sed -n 1,20p README.md"))).toEqual([
      { type: "read", command: "sed -n 1,20p README.md", name: "README.md", path: "README.md" },
    ]);
    expect(commandActions(bash("rg -n TODO src"))).toEqual([
      { type: "search", command: "rg -n TODO src", query: "TODO", path: "src" },
    ]);
    expect(commandActions(bash("rg --files"))).toEqual([
      { type: "listFiles", command: "rg --files", path: null },
    ]);
    expect(commandActions(bash("find . -name '*.ts'"))).toEqual([
      { type: "search", command: "find . -name '*.ts'", query: "*.ts", path: "." },
    ]);
    expect(commandActions(bash("find . -name x -delete"))).toEqual([
      { type: "unknown", command: "find . -name x -delete" },
    ]);
    expect(commandActions(["ls", "-la", "dir"])).toEqual([
      { type: "listFiles", command: "ls -la dir", path: "dir" },
    ]);
  });

  it("shows an unreadable script whole", () => {
    expect(commandActions(bash("echo $(whoami) > out"))).toEqual([
      { type: "unknown", command: "echo $(whoami) > out" },
    ]);
  });

  it("proposes the first command's words as the amendment", () => {
    expect(proposedAmendment(bash("touch cancel-me.txt"))).toEqual(["touch", "cancel-me.txt"]);
    expect(proposedAmendment(bash("git add -A && git commit -m x"))).toEqual(["git", "add", "-A"]);
    expect(proposedAmendment(bash("cat <<EOF"))).toBeNull();
  });
});
