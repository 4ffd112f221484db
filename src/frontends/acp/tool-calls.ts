/**
 * The core's tool items as ACP tool calls: `toolCallOf` is the `tool_call` an item's start
 * announces, `toolCallDone` the `tool_call_update` its completion sends (status, output, diffs).
 * The tool call id is the item id, which is the model's call id: approval questions
 * (approvals.ts) and a replay name the same call.
 *
 * A command's output goes out three ways, so every client shows it: as text content (a fenced
 * block), as `rawOutput {exit_code, output}`, and as Zed's terminal extension that codex-acp
 * uses (`_meta.terminal_info` on start, `_meta.terminal_output_delta` / `terminal_exit` after).
 */
import type { ToolCall, ToolCallContent, ToolCallStatus, ToolCallUpdate } from "@agentclientprotocol/sdk";
import type { ItemStatus, TurnItem } from "../../protocol/turn-items.js";
import { commandView } from "./command-view.js";
import { diffContentOf } from "./diff-content.js";

/** The `tool_call` that announces `item`; null for items that are not tool calls (messages, plans). */
export function toolCallOf(item: TurnItem, cwd: string): ToolCall | null {
  const status = acpStatus(item.status);
  const base = { toolCallId: item.id, status };
  switch (item.type) {
    case "command_execution": {
      const view = commandView(item.command, item.cwd);
      return {
        ...base,
        title: view.title,
        kind: view.kind,
        rawInput: { command: view.commandLine, cwd: item.cwd },
        locations: view.locations,
        ...(view.kind === "execute"
          ? { _meta: { terminal_info: { terminal_id: item.id, cwd: item.cwd } } }
          : {}),
      };
    }
    case "file_change": {
      const { content, locations } = diffContentOf(item.changes, cwd);
      return {
        ...base,
        title: editTitle(
          locations.map((l) => l.path),
          cwd,
        ),
        kind: "edit",
        content,
        locations,
      };
    }
    case "mcp_tool_call": {
      const { server, tool, arguments: args } = item.invocation;
      return {
        ...base,
        title: `mcp.${server}.${tool}`,
        kind: "other",
        rawInput: { server, tool, arguments: args },
      };
    }
    case "web_search":
      return { ...base, title: item.query || "Web search", kind: "fetch", rawInput: { query: item.query } };
    case "client_tool_call":
      return { ...base, title: item.tool, kind: "other", rawInput: item.arguments };
    case "sub_agent":
      return {
        ...base,
        title: `Sub-agent${item.agent_type ? ` (${item.agent_type})` : ""}`,
        kind: "other",
        rawInput: { message: item.message },
        _meta: subAgentMeta(item),
      };
    case "review":
      return { ...base, title: "Review", kind: "think", rawInput: { prompt: item.prompt } };
    case "context_compaction":
      return { ...base, title: "Compacting the conversation", kind: "think" };
    default:
      return null;
  }
}

/** The `tool_call_update` that `item`'s completion (or a snapshot update) sends. */
export function toolCallDone(item: TurnItem, cwd: string): ToolCallUpdate {
  const base = { toolCallId: item.id, status: acpStatus(item.status) };
  switch (item.type) {
    case "command_execution": {
      const output = item.aggregated_output;
      const update: ToolCallUpdate = { ...base, rawOutput: { exit_code: item.exit_code, output } };
      if (output) update.content = [textContent(fenced(output))];
      return update;
    }
    case "file_change": {
      // The changes as applied (the start showed what was proposed; they may differ once moved).
      const { content, locations } = diffContentOf(item.changes, cwd);
      return { ...base, content, locations, ...(item.output ? { rawOutput: { output: item.output } } : {}) };
    }
    case "mcp_tool_call": {
      const result = item.result;
      if (!result) return base;
      if ("Err" in result)
        return { ...base, content: [textContent(result.Err)], rawOutput: { error: result.Err } };
      const content = result.Ok.content.flatMap((block) => {
        // MCP's text and image blocks are ACP content blocks as they are.
        if (block.type === "text" && typeof block.text === "string") return [textContent(block.text)];
        if (block.type === "image" && typeof block.data === "string" && typeof block.mimeType === "string")
          return [
            {
              type: "content" as const,
              content: { type: "image" as const, data: block.data, mimeType: block.mimeType },
            },
          ];
        return [];
      });
      return { ...base, content, rawOutput: result.Ok };
    }
    case "web_search":
      return {
        ...base,
        title: item.query || "Web search",
        rawInput: { query: item.query },
        rawOutput: item.action,
      };
    case "client_tool_call": {
      const texts = (item.result?.contentItems ?? []).flatMap((part) =>
        part.type === "inputText" ? [textContent(part.text)] : [],
      );
      return { ...base, content: texts, rawOutput: item.result };
    }
    case "sub_agent":
      return { ...base, _meta: subAgentMeta(item) };
    case "review":
      return item.review ? { ...base, content: [textContent(item.review)] } : base;
    default:
      return base;
  }
}

/** ACP's status of an item: a declined call failed (it did not run). */
export function acpStatus(status: ItemStatus): ToolCallStatus {
  return status === "declined" ? "failed" : status;
}

export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/** `text` in a Markdown code fence longer than any backtick run inside it. */
export function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}\n${text.endsWith("\n") ? text.slice(0, -1) : text}\n${fence}`;
}

/** "Edit a.ts, src/b.ts": the files relative to the session's cwd when they are inside it. */
export function editTitle(paths: readonly string[], cwd: string): string {
  const prefix = cwd.endsWith("/") ? cwd : `${cwd}/`;
  const shown = paths.map((path) => (path.startsWith(prefix) ? path.slice(prefix.length) : path));
  return shown.length === 0 ? "Edit" : `Edit ${shown.join(", ")}`;
}

function subAgentMeta(item: Extract<TurnItem, { type: "sub_agent" }>) {
  return {
    tscodex: {
      subAgent: {
        agentId: item.agent_id,
        agentType: item.agent_type,
        message: item.message,
        status: item.agent_status,
      },
    },
  };
}
