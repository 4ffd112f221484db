/**
 * The editor's files (ACP `fs/read_text_file` / `fs/write_text_file`), when the client offers
 * both: a turn's edits read the editor's text (unsaved changes included) and write through the
 * editor, so the user sees them in the buffer they have open. A read the editor cannot answer
 * (no such file) falls back to the disk; a refused write fails the edit, as a disk error would.
 */
import type { EditorFiles } from "../../protocol/editor-files.js";
import type { SessionHost } from "./host.js";

export function editorFilesOf(host: SessionHost, sessionId: string): EditorFiles | undefined {
  const fs = host.capabilities.fs;
  if (!fs?.readTextFile || !fs.writeTextFile) return undefined;
  return {
    async read(path) {
      try {
        return (await host.client.request("fs/read_text_file", { sessionId, path })).content;
      } catch {
        return null;
      }
    },
    async write(path, text) {
      await host.client.request("fs/write_text_file", { sessionId, path, content: text });
    },
  };
}
