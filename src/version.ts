/** Kept in step with package.json by hand; read at build time would cost a file read at start-up. */
export const VERSION = "0.1.0";
