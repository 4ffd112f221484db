/**
 * `npm run bench -- auto-review`: the latency automatic approval review adds to an approval
 * (issue 43). One long-lived `tscodex app-server` (stdio), two threads, turns alternating between
 * them, each an escalated command then a message, against the fake model (which answers at once):
 * - `approvalsReviewer: "user"`: the client answers `accept` the moment it is asked (an instant
 *   person: the floor of any approval);
 * - `approvalsReviewer: "auto_review"`: the reviewer model is asked (its prompt built from the
 *   thread, one streamed request, the verdict validated) and allows.
 * The difference of the median turn times is what a review costs beyond the model's own latency.
 * Target: <= 15 ms.
 */
import { StdioAppClient } from "../test/support/app-server-client.js";
import { functionCall, message, type RecordedRequest, turn } from "../test/support/fake-model-server.js";
import {
  benchRuns,
  fakeProviderToml,
  makeAgents,
  median,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";

const TURNS = benchRuns(30);

await withTempDirAndServer("tscodex-bench-auto-review-", async (dir, server) => {
  const [agent] = await makeAgents(dir, fakeProviderToml(server.url));
  if (!agent) throw new Error("no tscodex agent");
  const client = new StdioAppClient(
    { home: agent.home, cwd: dir, env: { FAKE_KEY: "bench", ...agent.env } },
    [],
    agent.argv(["app-server"]),
  );
  client.onRequest = () => ({ result: { decision: "accept" } });
  try {
    await client.initialize({});
    const open = async (approvalsReviewer: string) =>
      (
        await client.call("thread/start", {
          cwd: dir,
          approvalPolicy: "on-request",
          sandbox: "workspace-write",
          approvalsReviewer,
        })
      ).thread.id as string;
    const threads = { user: await open("user"), auto_review: await open("auto_review") };
    const times: Record<keyof typeof threads, number[]> = { user: [], auto_review: [] };
    for (let index = 0; index <= TURNS; index++) {
      for (const kind of ["user", "auto_review"] as const) {
        server.reset();
        const call = functionCall(
          "shell_command",
          { command: "true", sandbox_permissions: "require_escalated", justification: "bench" },
          `c${index}`,
        );
        const agentTurns = [turn(call), turn(message("done"))];
        const reviewer = [turn(message('{"outcome":"allow"}'))];
        server.enqueue(
          ...Array.from(
            { length: 3 },
            () => (request: RecordedRequest) =>
              (request.headers["x-openai-subagent"] === "guardian" ? reviewer.shift() : agentTurns.shift()) ??
              turn(message("(unscripted)")),
          ),
        );
        const from = client.received.length;
        const started = performance.now();
        const { turn: begun } = await client.call("turn/start", {
          threadId: threads[kind],
          input: [{ type: "text", text: `turn ${index}`, text_elements: [] }],
        });
        const done = await client.turnCompleted(begun.id, from, 30_000);
        if (done.params.turn.status !== "completed")
          throw new Error(`turn ended ${JSON.stringify(done.params.turn)}`);
        // Turn 0 loads the tool's and the reviewer's code: dropped.
        if (index > 0) times[kind].push(performance.now() - started);
      }
    }
    const user = median(times.user);
    const reviewed = median(times.auto_review);
    console.log(
      `turn with an approval answered at once by the client: ${user.toFixed(2)} ms (median of ${TURNS})`,
    );
    console.log(`turn with the approval reviewed (allow):              ${reviewed.toFixed(2)} ms`);
    console.log(
      `a review adds ${(reviewed - user).toFixed(2)} ms beyond the reviewer model's own latency (target <= 15 ms)`,
    );
    await writeResults("auto-review", {
      turns: TURNS,
      userMs: user,
      reviewedMs: reviewed,
      addedMs: reviewed - user,
    });
  } finally {
    await client.close();
  }
});
