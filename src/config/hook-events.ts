/**
 * The hook event names, as Codex 0.169 spells them. Here, below hooks/, so config.toml's schema
 * knows `[[hooks.<Event>]]` (schema.ts); hooks/events.ts re-exports it.
 */
export const HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "Stop",
  "SessionEnd",
  "PreCompact",
  "PostCompact",
  "SubagentStart",
  "SubagentStop",
] as const;
