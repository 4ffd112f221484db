// Summarises vitest's JSON report (written when TSCODEX_TEST_REPORT names a file, see
// vitest.config.ts): `node scripts/test-report.mjs FILE [--no-skips]`. Prints the counts; exits 1
// when a test failed or, with --no-skips (CI, where bubblewrap and a C compiler are installed),
// when any test was skipped, naming each.
import { readFileSync } from "node:fs";

const [file, flag] = process.argv.slice(2);
if (!file || (flag !== undefined && flag !== "--no-skips")) {
  console.error("usage: node scripts/test-report.mjs REPORT.json [--no-skips]");
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, "utf8"));
const skipped = report.numPendingTests + report.numTodoTests;
console.log(
  `test-report: ${report.numTotalTests} tests in ${report.testResults.length} files: ` +
    `${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`,
);
let ok = report.success && report.numFailedTests === 0;
if (flag === "--no-skips" && skipped > 0) {
  for (const suite of report.testResults) {
    for (const test of suite.assertionResults) {
      if (test.status !== "passed" && test.status !== "failed") {
        console.error(`test-report: skipped: ${suite.name} > ${test.fullName}`);
      }
    }
  }
  console.error("test-report: CI installs everything the tests need, so nothing may be skipped");
  ok = false;
}
process.exit(ok ? 0 : 1);
