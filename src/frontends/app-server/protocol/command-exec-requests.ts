/**
 * `command/exec` and its controls (Codex 0.169 shapes): one command outside any thread, buffered
 * or streamed (`command/exec/outputDelta`, base64), with stdin writes, a terminal size and
 * termination addressed by the client's `processId`.
 */
import { z } from "zod";
import { sandboxPolicy } from "./common.js";
import { emptyResult as empty, lazy, methodSpec as v2 } from "./method-spec.js";

const terminalSize = lazy(() =>
  z
    .object({ cols: z.number().int().min(1).max(65_535), rows: z.number().int().min(1).max(65_535) })
    .meta({ id: "CommandExecTerminalSize" }),
);

const processId = lazy(() => z.string());

const commandExecParams = lazy(() =>
  z.object({
    command: z.array(z.string()).min(1, "command must name a program"),
    /** Connection-scoped id; needed for streaming and for write / resize / terminate. */
    processId: processId().nullish(),
    /** A pseudo-terminal; implies streamStdin and streamStdoutStderr. */
    tty: z.boolean().optional(),
    streamStdin: z.boolean().optional(),
    streamStdoutStderr: z.boolean().optional(),
    /** Per stream; default 1 MiB. */
    outputBytesCap: z.number().int().nonnegative().nullish(),
    disableOutputCap: z.boolean().optional(),
    disableTimeout: z.boolean().optional(),
    timeoutMs: z.number().int().nonnegative().nullish(),
    cwd: z.string().nullish(),
    /** Merged over the shell environment policy's result; `null` unsets a variable. */
    env: z.record(z.string(), z.string().nullable()).nullish(),
    size: terminalSize().nullish(),
    sandboxPolicy: sandboxPolicy.nullish(),
    permissionProfile: z.string().nullish(),
  }),
);

const commandExecResponse = lazy(() =>
  z.object({ exitCode: z.number().int(), stdout: z.string(), stderr: z.string() }),
);

export const commandExecRequests = {
  "command/exec": v2(commandExecParams, commandExecResponse, "CommandExecParams", "CommandExecResponse"),
  "command/exec/write": v2(
    () =>
      z.object({
        processId: processId(),
        deltaBase64: z.string().nullish(),
        closeStdin: z.boolean().optional(),
      }),
    empty,
    "CommandExecWriteParams",
    "CommandExecWriteResponse",
  ),
  "command/exec/resize": v2(
    () => z.object({ processId: processId(), size: terminalSize() }),
    empty,
    "CommandExecResizeParams",
    "CommandExecResizeResponse",
  ),
  "command/exec/terminate": v2(
    () => z.object({ processId: processId() }),
    empty,
    "CommandExecTerminateParams",
    "CommandExecTerminateResponse",
  ),
};

export const commandExecNotifications = {
  "command/exec/outputDelta": {
    params: z.object({
      processId: processId(),
      stream: z.enum(["stdout", "stderr"]).meta({ id: "CommandExecOutputStream" }),
      deltaBase64: z.string(),
      /** True on a stream's last chunk when the cap cut it; later output of that stream is dropped. */
      capReached: z.boolean(),
    }),
    name: "CommandExecOutputDeltaNotification",
  },
};
