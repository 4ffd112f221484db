#!/usr/bin/env node
import { main } from "../dist/cli.js";

const code = await main(process.argv.slice(2));
// Exit once stdout is flushed, even if a stray handle (keep-alive socket) is still open.
process.stdout.write("", () => process.exit(code));
