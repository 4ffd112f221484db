/** A tool call's hooks: the `execute_tool {name}` span, `codex.tool_decision` / `codex.tool_result`, their metrics. */
import type { ToolCallInfo, ToolTelemetry } from "../protocol/telemetry.js";
import { spanCarrier, type TurnState } from "./hook-parts.js";
import { type Attributes, capBytes, clean } from "./records.js";

/** Lines in `text`, a last line without its newline included. */
function lineCount(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

export function toolCall(turn: TurnState, call: ToolCallInfo): ToolTelemetry {
  const { parts } = turn;
  const { api, settings, instruments } = parts;
  const started = performance.now();
  const toolType = call.origin === "mcp" ? "extension" : "function";
  const maxBytes = settings.toolResultMaxBytes;
  const span = parts.tracer.startSpan(
    `execute_tool ${call.name}`,
    {
      kind: api.SpanKind.INTERNAL,
      attributes: clean({
        ...settings.spanAttributes,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.call.id": call.callId,
        "gen_ai.tool.type": toolType,
        tool_origin: call.origin,
        mcp_server: call.mcpServer,
        "gen_ai.tool.call.arguments":
          maxBytes === undefined ? undefined : capBytes(call.arguments, maxBytes).text,
      }),
    },
    turn.context,
  );
  turn.onToolCall();
  let decided = false;
  let ended = false;
  return {
    carrier: () => spanCarrier(span),
    decision(decision, source) {
      if (decided) return;
      decided = true;
      parts.events.emit(
        "codex.tool_decision",
        turn.common,
        { tool_name: call.name, call_id: call.callId, decision, source },
        span,
      );
    },
    end({ success, output }) {
      if (ended) return;
      ended = true;
      const elapsed = performance.now() - started;
      const content: Attributes = {};
      if (maxBytes !== undefined) {
        const args = capBytes(call.arguments, maxBytes);
        const out = capBytes(output, maxBytes);
        Object.assign(content, {
          arguments: args.text,
          output: out.text,
          output_truncated: args.truncated || out.truncated,
        });
        span.setAttribute("gen_ai.tool.call.result", out.text);
      }
      parts.events.emit(
        "codex.tool_result",
        turn.common,
        {
          tool_name: call.name,
          call_id: call.callId,
          duration_ms: Math.round(elapsed),
          success,
          tool_origin: call.origin,
          mcp_server: call.mcpServer ?? "",
          output_length: output.length,
          output_line_count: lineCount(output),
          ...content,
        },
        span,
      );
      const tags = { ...turn.tags, tool: call.name, success: String(success) };
      instruments.toolCall.add(1, tags);
      instruments.toolCallDuration.record(elapsed, tags);
      if (call.origin === "mcp") {
        const mcpTags = { ...tags, server: call.mcpServer ?? "" };
        instruments.mcpCall.add(1, mcpTags);
        instruments.mcpCallDuration.record(elapsed, mcpTags);
        if (!success)
          instruments.mcpCallError.add(1, { ...turn.tags, tool: call.name, server: call.mcpServer ?? "" });
      }
      instruments.genAiExecuteToolDuration.record(
        elapsed / 1000,
        clean({
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": call.name,
          "gen_ai.tool.type": toolType,
          "error.type": success ? undefined : "_OTHER",
        }),
      );
      if (!success) {
        span.setAttribute("error.type", "_OTHER");
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}
