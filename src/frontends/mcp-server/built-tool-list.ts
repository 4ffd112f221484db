/**
 * tools/list's entries as the build computed them: scripts/build.mjs replaces this module's
 * source with the list, so the bundled stdio server answers tools/list without loading its tools.
 * Run from source (tests), there is none and tool-list.ts computes it.
 */
/** One tool as tools/list shows it. */
export interface ListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  outputSchema?: { type: "object"; [key: string]: unknown };
}

export const builtToolList: readonly ListedTool[] | undefined = undefined;
