/**
 * tools/list's entries as the build computed them: scripts/build.mjs replaces this module's
 * source with the list, so the bundled stdio server answers tools/list without loading its tools.
 * Run from source (tests), there is none and tool-list.ts computes it.
 */
import type { ListedTool } from "./tool-list.js";

export const builtToolList: readonly ListedTool[] | undefined = undefined;
