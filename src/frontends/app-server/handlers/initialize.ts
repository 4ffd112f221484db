/**
 * initialize: who we are. Kept apart from the other handlers, which load on the first request
 * after it, so the handshake does not wait for them.
 */
import { arch, type as osType, release } from "node:os";
import { VERSION } from "../../../version.js";
import { configNotices, sendNotices } from "../config-notices.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import type { HandlerContext } from "./context.js";

export async function initialize(
  params: ParamsOf<"initialize">,
  context: HandlerContext,
): Promise<ResultOf<"initialize">> {
  const { name, version } = params.clientInfo;
  context.session.clientInfo = params.clientInfo;
  context.session.experimentalApi = params.capabilities?.experimentalApi ?? false;
  // What is wrong with the configuration, as the CLI says it on stderr (keys nobody reads, a
  // provider without its key, deprecated spellings): told once the handshake is answered.
  const notices = configNotices(context.runtime.config);
  context.after(() => sendNotices((text) => context.session.send(text), notices));
  const cpu = arch() === "x64" ? "x86_64" : arch() === "arm64" ? "aarch64" : arch();
  return {
    userAgent: `${name}/${VERSION} (${osType()} ${release()}; ${cpu}) node/${process.versions.node} (${name}; ${version})`,
    codexHome: context.runtime.config.home,
    platformFamily: process.platform === "win32" ? "windows" : "unix",
    platformOs:
      process.platform === "darwin" ? "macos" : process.platform === "win32" ? "windows" : process.platform,
  };
}
