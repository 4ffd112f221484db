#!/usr/bin/env node
import module from "node:module";

// Node >= 22.1 keeps the bundle's compiled code between runs; older Nodes compile it each start.
module.enableCompileCache?.();
const { main } = await import("../dist/cli.js");
const code = await main(process.argv.slice(2));
// Exit once stdout is flushed, even if a stray handle (keep-alive socket) is still open.
process.stdout.write("", () => process.exit(code));
