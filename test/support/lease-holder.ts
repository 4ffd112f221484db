/**
 * A separate process that takes one thread's lease on a store and keeps it until it is killed
 * (the contract suite kills it with SIGKILL and checks the lease comes free).
 * Usage: node scripts/run-ts.mjs test/support/lease-holder.ts KIND TARGET THREAD_ID
 * Prints "held" once it holds the lease.
 */
import { openPostgresStore } from "../../src/store/postgres-store.js";
import { FileThreadLeases, type ThreadLeases } from "../../src/store/thread-lock.js";
import type { StoreKind } from "../../src/store/thread-store.js";

/** Where a child process finds the same store: its kind and its home directory or URL. */
export interface StoreAddress {
  kind: StoreKind;
  target: string;
}

async function leasesOf(address: StoreAddress): Promise<ThreadLeases> {
  switch (address.kind) {
    case "postgres":
      return (await openPostgresStore(address.target)).leases;
    case "jsonl":
      return new FileThreadLeases(address.target);
  }
}

const [kind, target, threadId] = process.argv.slice(2);
if ((kind !== "postgres" && kind !== "jsonl") || !target || !threadId) {
  console.error("usage: lease-holder.ts postgres|jsonl TARGET THREAD_ID");
  process.exit(2);
}
const leases = await leasesOf({ kind, target });
await leases.acquire(threadId);
process.stdout.write("held\n");
// Hold on until killed.
setInterval(() => {}, 60_000);
