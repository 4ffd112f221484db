/**
 * Codex 0.171's account methods for API-key accounts (tscodex keeps no ChatGPT login),
 * `permissionProfile/list` and `modelProvider/default/set`. Params and results as 0.171's schema
 * has them; a login type other than `apiKey` is parsed and then refused by its handler.
 */
import { z } from "zod";
import { emptyResult, lazy, method } from "./method-spec.js";

/** 0.171's Account, as tscodex can have it: an API key (or none: `null`). */
const apiKeyAccount = lazy(() => z.object({ type: z.literal("apiKey") }));

const getAccountResponse = lazy(() =>
  z.object({
    account: apiKeyAccount().nullable(),
    requiresOpenaiAuth: z.boolean(),
    userId: z.null(),
  }),
);

/** Every 0.171 login type is named so that the others get a clear refusal, not "unknown variant". */
const loginAccountParams = lazy(() =>
  z.union([
    z.object({ type: z.literal("apiKey"), apiKey: z.string() }),
    z.object({
      type: z.enum([
        "chatgpt",
        "chatgptDeviceCode",
        "chatgptAuthTokens",
        "amazonBedrock",
        "amazonBedrockAccessKeys",
      ]),
    }),
  ]),
);

const rateLimitSnapshot = lazy(() =>
  z.object({
    limitId: z.string().nullable(),
    limitName: z.string().nullable(),
    primary: z.null(),
    secondary: z.null(),
    credits: z.null(),
    planType: z.null(),
  }),
);

const permissionProfileSummary = lazy(() =>
  z.object({ id: z.string(), description: z.string().nullable(), allowed: z.boolean() }),
);

export const accountRequests = {
  "account/read": method(
    () => z.object({ refreshToken: z.boolean().nullish() }),
    getAccountResponse,
    "GetAccountParams",
    "GetAccountResponse",
  ),
  "account/login/start": method(
    loginAccountParams,
    () => z.object({ type: z.literal("apiKey") }),
    "LoginAccountParams",
    "LoginAccountResponse",
  ),
  "account/login/cancel": method(
    () => z.object({ loginId: z.string() }),
    () => z.object({ status: z.enum(["canceled", "notFound"]) }),
    "CancelLoginAccountParams",
    "CancelLoginAccountResponse",
  ),
  "account/logout": method(emptyResult, emptyResult, null, "LogoutAccountResponse"),
  "account/rateLimits/read": method(
    () => z.object({}).nullish(),
    () => z.object({ rateLimits: rateLimitSnapshot(), rateLimitsByLimitId: z.null() }),
    null,
    "GetAccountRateLimitsResponse",
  ),
  "permissionProfile/list": method(
    () =>
      z.object({
        cursor: z.string().nullish(),
        cwd: z.string().nullish(),
        limit: z.number().int().nonnegative().nullish(),
      }),
    () => z.object({ data: z.array(permissionProfileSummary()), nextCursor: z.string().nullable() }),
    "PermissionProfileListParams",
    "PermissionProfileListResponse",
  ),
  "modelProvider/default/set": method(
    () => z.object({ providerId: z.string() }),
    emptyResult,
    "ModelProviderDefaultSetParams",
    "ModelProviderDefaultSetResponse",
  ),
};
