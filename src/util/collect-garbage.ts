let collect: (() => void) | null | undefined;

/**
 * One full, blocking V8 collection, for a one-shot process at a moment it knows most of what it
 * has allocated so far is dead (load-exec.ts). Node has no call for it without `--expose-gc` on
 * its command line, so this compiles V8's own %CollectGarbage with natives syntax allowed for
 * that one compile only. Returns false, collecting nothing, where this V8 refuses it.
 */
export function collectGarbage(): boolean {
  if (collect === undefined) {
    const { setFlagsFromString } = process.getBuiltinModule("node:v8");
    try {
      setFlagsFromString("--allow-natives-syntax");
      collect = new Function("%CollectGarbage(null)") as () => void;
    } catch {
      collect = null;
    } finally {
      setFlagsFromString("--no-allow-natives-syntax");
    }
  }
  if (!collect) return false;
  collect();
  return true;
}
