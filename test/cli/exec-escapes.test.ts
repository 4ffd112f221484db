/**
 * `tscodex exec`'s human output shows terminal escapes from outside instead of writing them
 * (issue 37): model text, reasoning, command output and an approval's command reach stderr in
 * caret notation; the final message on stdout is exact when redirected and shown visibly on a
 * terminal (a pty, made by python3's pty module); `--json` stays exact JSON.
 */
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, reasoning, turn } from "../support/fake-model-server.js";
import { cliStdoutOnPty } from "../support/pty.js";

const h = useExecHarness({ key: "k" });

const ESC = "\u001b";
const TITLE = `${ESC}]2;pwned\u0007`;
const CLIPBOARD = `${ESC}]52;c;aGk=\u0007`;
const LINK = `${ESC}]8;;http://evil.example/${ESC}\\click${ESC}]8;;${ESC}\\`;
const ANSWER = `answer${TITLE} ${CLIPBOARD} ${LINK} \u202eevil \u009b2J`;
const ANSWER_SHOWN =
  "answer^[]2;pwned^G ^[]52;c;aGk=^G ^[]8;;http://evil.example/^[\\click^[]8;;^[\\ <U+202E>evil <U+009B>2J";

function stdoutOnPty(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return cliStdoutOnPty(args, { cwd: h.work, env: { HOME: h.home, TSCODEX_HOME: h.home, FAKE_KEY: "k" } });
}

describe("terminal escapes in exec's output", () => {
  it("human output shows the escapes of model text, reasoning and command output; redirected stdout is exact", async () => {
    const script = `printf '\\033]2;pwned-output\\007 secret\\rcover\\n'`;
    h.server.enqueue(
      turn(reasoning(`thinking${TITLE}`), functionCall("shell_command", { command: script }, "c1")),
      turn(message(ANSWER)),
    );
    const result = await h.exec(["-s", "danger-full-access", "go"]);
    expect(result.code, result.stderr).toBe(0);
    // Colour is off on a pipe: no ESC at all may reach stderr.
    expect(result.stderr).not.toContain(ESC);
    expect(result.stderr).not.toContain("\r");
    expect(result.stderr).toContain("thinking^[]2;pwned^G");
    expect(result.stderr).toContain("^[]2;pwned-output^G secret^Mcover");
    expect(result.stderr).toContain(ANSWER_SHOWN);
    expect(result.stdout).toBe(`${ANSWER}\n`);
  });

  it("sessions list and show print a stored thread's escapes visibly; --json stays exact", async () => {
    h.server.enqueue(turn(message(ANSWER)));
    expect((await h.exec(["-s", "read-only", `prompt${TITLE}`])).code).toBe(0);
    const list = await h.cli(["sessions", "list"]);
    expect(list.stdout).not.toContain(ESC);
    expect(list.stdout).toContain("prompt^[]2;pwned^G");
    const id = /^([0-9a-f-]{36})/m.exec(list.stdout)?.[1] ?? "";
    const show = await h.cli(["sessions", "show", id]);
    expect(show.stdout).not.toContain(ESC);
    expect(show.stdout).toContain("<U+202E>evil");
    const json = await h.cli(["sessions", "show", id, "--json"]);
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain(JSON.stringify(ANSWER).slice(1, -1));
  });

  it("an approval's command is shown whole, its CR and erase-line visible", async () => {
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "touch X #\r\u001b[2KRun ls -la" }, "c1")),
      turn(message("done")),
    );
    const result = await h.exec(["-s", "workspace-write", "-a", "untrusted", "go"]);
    expect(result.stderr).not.toContain(ESC);
    expect(result.stderr).toContain("touch X #^M^[[2KRun ls -la");
  });

  it("the final message on a terminal shows its escapes; --json stays exact", async () => {
    h.server.enqueue(turn(message(ANSWER)));
    const onPty = await stdoutOnPty(["exec", "-s", "read-only", "go"]);
    expect(onPty.code).toBe(0);
    expect(onPty.stdout).not.toContain(ESC);
    expect(onPty.stdout).toContain(ANSWER_SHOWN);

    h.server.enqueue(turn(message(ANSWER)));
    const json = await h.exec(["--json", "-s", "read-only", "go"]);
    const texts = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { item?: { type?: string; text?: string } })
      .flatMap((event) => (event.item?.type === "agent_message" ? [event.item.text] : []));
    expect(texts).toContain(ANSWER);
  });
});
