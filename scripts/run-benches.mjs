// `npm run bench`: every bench/*.ts in name order, each as its own process (so one
// benchmark's memory and timers never skew the next). `npm run bench -- NAME` runs one.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

const only = process.argv[2];
const files = readdirSync("bench")
  .filter((name) => name.endsWith(".ts") && (!only || name === only || name === `${only}.ts`))
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${only}`);
  process.exit(2);
}
for (const file of files) {
  console.log(`\n=== bench/${file}`);
  const result = spawnSync(process.execPath, ["scripts/run-ts.mjs", `bench/${file}`], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
