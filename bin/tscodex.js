#!/usr/bin/env node
// CommonJS (bin/package.json), like the bundle it loads: no ES module loader at start-up.
// Node >= 22.1 keeps the bundle's compiled code between runs; older Nodes compile it each start.
require("node:module").enableCompileCache?.();
const { main } = require("../dist/cli.cjs");
main(process.argv.slice(2)).then((code) => {
  // Exit once stdout is flushed, even if a stray handle (keep-alive socket) is still open.
  process.stdout.write("", () => process.exit(code));
});
