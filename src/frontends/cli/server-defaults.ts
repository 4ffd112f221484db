/** Option defaults shared by the parser (program.ts) and main.ts's short cut for bare servers. */

/** `mcp-server --host`: where `--http` listens. */
export const MCP_SERVER_HOST = "127.0.0.1";

/** `app-server --listen`. */
export const APP_SERVER_LISTEN = "stdio://";
