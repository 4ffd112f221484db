/** A configuration that cannot be used: the message names the file or flag, the key and the problem. */
export class ConfigError extends Error {
  override name = "ConfigError";
}
