/**
 * The exec command, with V8 tuned for a one-shot process whose peak RSS is what a box running
 * many agents counts: no optimizing compiler (at start-up nothing is hot enough to gain from it,
 * and its compile zones left ~4 MB in malloc's arenas) and a young generation that stays at its
 * first 1 MB semi-spaces instead of doubling (~2 MB). Both may be set at run time; the servers
 * keep V8's defaults, which their per-call throughput needs.
 */
export async function loadExec(): Promise<typeof import("./exec.js")> {
  const { setFlagsFromString } = await import("node:v8");
  setFlagsFromString("--no-opt");
  setFlagsFromString("--semi-space-growth-factor=1");
  return import("./exec.js");
}
