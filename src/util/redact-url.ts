/** A URL without its password, for messages and listings (`postgres://user@host/db`). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "";
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, "@");
  }
}
