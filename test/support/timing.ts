/**
 * Zero the timing in a tool output so exact-string assertions hold on a loaded machine,
 * while still checking the format Codex prints (`0`, `0.5`, `12`; legacy JSON `0.0`).
 */
export function zeroTiming(output: unknown): unknown {
  if (typeof output !== "string") return output;
  return output
    .replace(/^Wall time: (?:0|[1-9]\d*)(?:\.[1-9])? seconds$/m, "Wall time: 0 seconds")
    .replace(/"duration_seconds":\d+\.\d\}/, '"duration_seconds":0.0}');
}
