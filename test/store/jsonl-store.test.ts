/**
 * The embedded JSONL thread store runs the same ThreadStore contract suite as PostgreSQL
 * (test/support/thread-store-contract.ts), in a fresh home per test.
 */
import { JsonlThreadStore } from "../../src/store/jsonl-store.js";
import { describeThreadStoreContract } from "../support/thread-store-contract.js";
import { tmpdir } from "../support/tmpdir.js";

describeThreadStoreContract("JSONL", async () => {
  const home = await tmpdir("tscodex-jsonl-store-");
  return {
    store: new JsonlThreadStore(home.path),
    address: { kind: "jsonl", target: home.path },
    cleanup: () => home.cleanup(),
  };
});
