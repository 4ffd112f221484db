/**
 * A patch's file changes as ACP diff content: one `{type: "diff", path, oldText, newText}` per
 * file, and the files as follow-along locations. An update carries only its unified diff, so its
 * old and new texts are rebuilt from the hunks (context and changed lines, as codex-acp does):
 * the client shows the changed region, not the whole file.
 */
import { resolve } from "node:path";
import type { ToolCallContent, ToolCallLocation } from "@agentclientprotocol/sdk";
import type { FileChange } from "../../protocol/events.js";

/** The diff content and locations of `changes` (paths resolved against `cwd`: ACP wants them absolute). */
export function diffContentOf(
  changes: Record<string, FileChange>,
  cwd: string,
): { content: ToolCallContent[]; locations: ToolCallLocation[] } {
  const content: ToolCallContent[] = [];
  const locations: ToolCallLocation[] = [];
  for (const [key, change] of Object.entries(changes)) {
    const path = resolve(cwd, key);
    switch (change.type) {
      case "add":
        content.push({ type: "diff", path, oldText: null, newText: change.content, _meta: { kind: "add" } });
        locations.push({ path });
        break;
      case "delete":
        content.push({ type: "diff", path, oldText: change.content, newText: "", _meta: { kind: "delete" } });
        locations.push({ path });
        break;
      case "update": {
        const { oldText, newText } = textsOfUnifiedDiff(change.unified_diff);
        const moved = change.move_path ? resolve(cwd, change.move_path) : null;
        // A moved file's new text lives at its new path; the old path is shown as where it came from.
        content.push({
          type: "diff",
          path: moved ?? path,
          oldText,
          newText,
          _meta: moved ? { kind: "update", move_from: path } : { kind: "update" },
        });
        locations.push({ path: moved ?? path });
        break;
      }
    }
  }
  return { content, locations };
}

/**
 * The old and new text a unified diff's hunks show: context lines in both, `-` lines in the old,
 * `+` lines in the new; headers and "\ No newline" markers left out. Hunks are joined as they come.
 */
export function textsOfUnifiedDiff(diff: string): { oldText: string; newText: string } {
  const before: string[] = [];
  const after: string[] = [];
  let inHunk = false;
  for (const line of diff.split("\n")) {
    if (line.startsWith("@@")) {
      inHunk = true;
      continue;
    }
    if (!inHunk) continue; // `---` / `+++` file headers before the first hunk
    const body = line.slice(1);
    if (line.startsWith(" ")) {
      before.push(body);
      after.push(body);
    } else if (line.startsWith("-")) before.push(body);
    else if (line.startsWith("+")) after.push(body);
  }
  return { oldText: joinLines(before), newText: joinLines(after) };
}

function joinLines(lines: string[]): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
