/**
 * What one requirements.toml file sets, and the error a bad one raises: shared by the loader
 * (requirements.ts, no zod) and the file's schema (requirements-schema.ts, zod).
 */
import type { ApprovalPolicy, SandboxMode } from "../protocol/policy.js";
import { ConfigError } from "./errors.js";

/** What one requirements.toml file sets (absent: that file leaves the setting unbounded). */
export interface RequirementsFile {
  /** The file's absolute path, named in every refusal it causes. */
  path: string;
  allowedSandboxModes?: SandboxMode[];
  allowedApprovalPolicies?: ApprovalPolicy[];
  /** Profile id (built-ins like `:workspace` included) → allowed; an id not listed is denied. */
  allowedPermissionProfiles?: Record<string, boolean>;
}

/** A requirements file that cannot be read or is invalid; the message names the file. */
export class RequirementsError extends ConfigError {
  override name = "RequirementsError";
}

/** What every list given allows, in the first one's order; null when no list is given. */
export function intersection<T>(lists: readonly (readonly T[] | undefined)[]): T[] | null {
  const given = lists.filter((list): list is readonly T[] => list !== undefined);
  const [first, ...rest] = given;
  if (!first) return null;
  return first.filter((item) => rest.every((list) => list.includes(item)));
}
