/**
 * Errors in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}` with the status
 * OpenAI uses for the same problem. Handlers throw ApiError; the app turns it into the response.
 */
import type { z } from "zod";
import { StoreUnavailableError } from "../../store/index.js";
import { errorMessage } from "../../util/errors.js";

export type ApiErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "not_found_error"
  | "rate_limit_error"
  | "server_error";

export interface ApiErrorBody {
  error: { message: string; type: ApiErrorType; param: string | null; code: string | null };
}

export class ApiError extends Error {
  override name = "ApiError";

  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 500 | 503,
    message: string,
    readonly type: ApiErrorType,
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }

  get body(): ApiErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }

  static invalid(message: string, param: string | null = null, code: string | null = null): ApiError {
    return new ApiError(400, message, "invalid_request_error", param, code);
  }
}

/** A 400 naming the first problem zod found, with its path as `param`. */
export function fromZod(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const param = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : null;
  const where = param ? `'${param}': ` : "";
  return ApiError.invalid(
    `Invalid request body: ${where}${issue?.message ?? "malformed"}`,
    param,
    "invalid_value",
  );
}

/** A thrown error as the API's error: 503 when the thread store is unreachable, else a 500. */
export function fromUnexpected(error: unknown): ApiError {
  if (error instanceof StoreUnavailableError)
    return new ApiError(503, error.message, "server_error", null, "store_unavailable");
  return internalError(errorMessage(error));
}

/** The body of an unexpected failure (500). */
export function internalError(message: string): ApiError {
  return new ApiError(500, message, "server_error");
}
