#!/usr/bin/env node
// Node >= 22.1 keeps the bundle's compiled code between runs; older Nodes compile it each start.
// (process.getBuiltinModule, not an ES import: that makes Node build an ES facade of the builtin.)
process.getBuiltinModule("node:module").enableCompileCache?.();
const { main } = await import("../dist/cli.js");
const code = await main(process.argv.slice(2));
// Exit once stdout is flushed, even if a stray handle (keep-alive socket) is still open.
process.stdout.write("", () => process.exit(code));
