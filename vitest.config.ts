import { defineConfig } from "vitest/config";

// TSCODEX_TEST_REPORT=FILE also writes vitest's JSON report there (scripts/fresh-clone-check.sh
// reads the counts from it: passed, failed, skipped).
const report = process.env.TSCODEX_TEST_REPORT;

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The app-server suite's schema rule: a test fails when its conversation left Codex's schemas.
    setupFiles: ["test/support/schema-rule-setup.ts"],
    // Integration tests spawn real processes; two cores, so keep the pool small.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    ...(report ? { reporters: ["default", "json"], outputFile: { json: report } } : {}),
  },
});
