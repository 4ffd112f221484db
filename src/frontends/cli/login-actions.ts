/**
 * The work behind `tscodex login …` / `logout`. auth.json is Codex's file:
 * `{"auth_mode": "apikey", "OPENAI_API_KEY": "…"}`, pretty-printed, mode 0600, in the home.
 * Messages go to stderr, as Codex prints them.
 */
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { authFilePath, savedApiKey } from "../../config/auth-file.js";
import { tscodexHome } from "../../config/load.js";

const CHECKED_LATER = "Authentication is checked when you send a request.";

/** A key as `login status` shows it: its first 8 and last 5 characters (short keys: `***`). */
export function maskedKey(key: string): string {
  return key.length <= 13 ? "***" : `${key.slice(0, 8)}***${key.slice(-5)}`;
}

export async function login(options: { withApiKey?: boolean }): Promise<number> {
  if (!options.withApiKey) {
    process.stderr.write(
      "tscodex: only API keys can be saved: `printenv OPENAI_API_KEY | tscodex login --with-api-key`\n",
    );
    return 1;
  }
  process.stderr.write("Reading API key from stdin...\n");
  const key = (await readStdin()).trim();
  if (key === "") {
    process.stderr.write("No API key provided via stdin.\n");
    return 1;
  }
  const home = tscodexHome();
  await mkdir(home, { recursive: true });
  const path = authFilePath(home);
  await writeFile(path, `${JSON.stringify({ auth_mode: "apikey", OPENAI_API_KEY: key }, null, 2)}\n`, {
    mode: 0o600,
  });
  // An existing file keeps its mode on write: the key is a secret whatever it was before.
  await chmod(path, 0o600);
  process.stderr.write(`API key saved. ${CHECKED_LATER}\n`);
  return 0;
}

export async function loginStatus(): Promise<number> {
  const key = await savedApiKey(tscodexHome());
  if (key === undefined) {
    process.stderr.write("Not logged in\n");
    return 1;
  }
  process.stderr.write(`API key configured - ${maskedKey(key)}\n${CHECKED_LATER}\n`);
  return 0;
}

export async function logout(): Promise<number> {
  const path = authFilePath(tscodexHome());
  const present = await readFile(path).then(
    () => true,
    () => false,
  );
  if (!present) {
    process.stderr.write("Not logged in\n");
    return 0;
  }
  await rm(path, { force: true });
  process.stderr.write("Successfully logged out\n");
  return 0;
}

async function readStdin(): Promise<string> {
  let text = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) text += chunk;
  return text;
}
