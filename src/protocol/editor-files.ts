/**
 * The client's view of the files (an ACP editor's `fs/read_text_file` / `fs/write_text_file`):
 * when a turn has it, the edit tool reads a file as the editor holds it (unsaved changes
 * included) and writes through the editor, so the user sees the change in the buffer they have
 * open. Policy is unchanged: the same paths are checked and asked about before anything is
 * written. Deleting and moving files stay on disk (the editor protocol has no such calls).
 */
export interface EditorFiles {
  /** The text of `path` (absolute) as the editor has it; null when the editor cannot say (read the disk). */
  read(path: string): Promise<string | null>;
  /** Write `text` to `path` (absolute) through the editor; rejects when the editor refused. */
  write(path: string, text: string): Promise<void>;
}
