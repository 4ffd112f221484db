/**
 * `tscodex doctor`'s report, in Codex 0.171's shape (cli-parity.md Part 1 §7): `--json` prints
 * `{schemaVersion, generatedAt, overallStatus, codexVersion, checks}` with `checks` an object keyed
 * by check id (each value repeating its id); the human view lists each check with a mark.
 * Exit status: 1 when a check failed, else 0 (warnings included).
 */

export type CheckStatus = "ok" | "warning" | "fail";

/** One check's result, as Codex reports it. */
export interface DoctorCheck {
  id: string;
  category: string;
  status: CheckStatus;
  summary: string;
  /** Strings, occasionally a list (Codex's own values are either). */
  details: Record<string, string | string[]>;
  remediation: string | null;
  durationMs: number;
}

export interface DoctorReport {
  schemaVersion: 1;
  /** Codex's odd but exact spelling: `"<seconds>s since unix epoch"`. */
  generatedAt: string;
  overallStatus: CheckStatus;
  codexVersion: string;
  checks: Record<string, DoctorCheck>;
}

export function doctorReport(checks: DoctorCheck[], version: string, now = Date.now()): DoctorReport {
  const statuses = checks.map((check) => check.status);
  const overallStatus: CheckStatus = statuses.includes("fail")
    ? "fail"
    : statuses.includes("warning")
      ? "warning"
      : "ok";
  const sorted = [...checks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    schemaVersion: 1,
    generatedAt: `${Math.floor(now / 1000)}s since unix epoch`,
    overallStatus,
    codexVersion: version,
    checks: Object.fromEntries(sorted.map((check) => [check.id, check])),
  };
}

/** The exit status: 1 when the report failed, else 0. */
export function doctorExitCode(report: DoctorReport): number {
  return report.overallStatus === "fail" ? 1 : 0;
}

const MARKS: Record<CheckStatus, string> = { ok: "✓", warning: "⚠", fail: "✗" };

/** The human view: a title, one row per check (its details indented below), a count line. */
export function renderDoctor(report: DoctorReport, platform: string): string {
  const lines = [`tscodex doctor v${report.codexVersion} · ${platform}`, ""];
  const checks = Object.values(report.checks);
  for (const check of checks) {
    lines.push(`${MARKS[check.status]} ${check.id}: ${check.summary}`);
    for (const [key, value] of Object.entries(check.details)) {
      lines.push(`    ${key}: ${Array.isArray(value) ? value.join(", ") : value}`);
    }
    if (check.remediation && check.status !== "ok") lines.push(`    → ${check.remediation}`);
  }
  const count = (status: CheckStatus) => checks.filter((check) => check.status === status).length;
  lines.push(
    "",
    `${count("ok")} ok · ${count("warning")} warn · ${count("fail")} fail${report.overallStatus === "ok" ? "" : report.overallStatus === "warning" ? " degraded" : " failing"}`,
  );
  return `${lines.join("\n")}\n`;
}
