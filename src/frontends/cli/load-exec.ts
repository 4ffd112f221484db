import { collectGarbage } from "../../util/collect-garbage.js";

/**
 * The exec command, with V8 tuned for a one-shot process whose peak RSS is what a box running
 * many agents counts: no optimizing compiler (at start-up nothing is hot enough to gain from it,
 * and its compile zones left ~4 MB in malloc's arenas), no baseline compiler either (Sparkplug:
 * -0.2 MB on a one-turn exec, -1 MB on 50 tool calls, whose wall time it did not measurably
 * change: issue 26), and a young generation that stays at its first 1 MB semi-spaces instead of
 * doubling (~2 MB). All may be set at run time; the servers keep V8's defaults, which their
 * per-call throughput needs.
 *
 * Once the code is loaded, one full collection: loading leaves ~0.6 MB of dead objects in the
 * old generation (each module's top-level code, run once, and the loader's temporaries, promoted
 * by the young-generation collections loading itself causes), which V8 would not reclaim before a
 * one-turn exec exits. Collected here, the turn reuses that space instead of growing the heap:
 * -0.7 MB peak RSS on a one-turn exec, for a ~8 ms pause (issue 26).
 */
export async function loadExec(): Promise<typeof import("./exec.js")> {
  const { setFlagsFromString } = process.getBuiltinModule("node:v8");
  setFlagsFromString("--no-opt");
  setFlagsFromString("--semi-space-growth-factor=1");
  setFlagsFromString("--no-sparkplug");
  const exec = await import("./exec.js");
  collectGarbage();
  return exec;
}
