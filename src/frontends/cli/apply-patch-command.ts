/**
 * `tscodex apply-patch [--cd DIR]`: apply a patch read from stdin, without a model. Prints the
 * same summary the model would see; on failure prints the error to stderr and exits 1, with
 * the tree unchanged.
 */
import { applyPatch, PatchError } from "../../apply-patch/index.js";
import { errorMessage } from "../../util/errors.js";

export interface ApplyPatchCommandOptions {
  /** Directory the patch's relative paths resolve against. */
  cwd: string;
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Run the command; resolves to the exit code (0 applied, 1 not applied). */
export async function runApplyPatchCommand(opts: ApplyPatchCommandOptions): Promise<number> {
  let text: string;
  try {
    text = await readAll(opts.stdin);
  } catch (error) {
    opts.stderr.write(`failed to read the patch from stdin: ${errorMessage(error)}\n`);
    return 1;
  }
  try {
    const { summary } = await applyPatch(text, opts.cwd);
    opts.stdout.write(summary);
    return 0;
  } catch (error) {
    // PatchError messages are complete; anything else (an unexpected I/O error) gets its text.
    opts.stderr.write(`${error instanceof PatchError ? error.message : errorMessage(error)}\n`);
    return 1;
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}
