/**
 * `tscodex doctor [--json]`: checks of the config, the provider, the sandbox backends, the MCP
 * servers and the thread store (doctor-checks.ts), reported in Codex's shape (doctor-report.ts).
 * The work is loaded when the command runs.
 */
import type { CommandHost } from "./command-options.js";

export function registerDoctorCommand({ program, globals, setExitCode }: CommandHost): void {
  program
    .command("doctor")
    .description(
      "Check the config, provider, sandbox, MCP servers and thread store; exit 1 when a check fails",
    )
    .option("--json", "print the report as JSON (Codex's shape)")
    .action(async (options: { json?: boolean }) => {
      const [{ runDoctorChecks }, report, { globalConfig }, { parseOverride }, { VERSION }] =
        await Promise.all([
          import("./doctor-checks.js"),
          import("./doctor-report.js"),
          import("./command-options.js"),
          import("../../config/overrides.js"),
          import("../../version.js"),
        ]);
      // -c values that do not parse are the config check's to report, not a crash.
      const overrides = [];
      for (const raw of globalConfig(globals())) {
        try {
          overrides.push(parseOverride(raw));
        } catch (error) {
          process.stderr.write(`tscodex: ${(error as Error).message}\n`);
          setExitCode(2);
          return;
        }
      }
      const checks = await runDoctorChecks({ cwd: process.cwd(), overrides });
      const result = report.doctorReport(checks, VERSION);
      process.stdout.write(
        options.json
          ? `${JSON.stringify(result, null, 2)}\n`
          : report.renderDoctor(result, `${process.platform}-${process.arch}`),
      );
      setExitCode(report.doctorExitCode(result));
    });
}
