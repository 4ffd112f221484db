/**
 * `new Date(ms).toISOString()`, from the UTC getters. V8's own toISOString reaches into
 * Node's date/ICU tables, which a one-turn `exec` otherwise never touches: writing its rollout
 * timestamps with it cost ~0.4 MB of peak RSS (issue 26). Years outside 0-9999, which
 * toISOString writes with a sign and six digits, are left to it.
 */
export function isoTimestamp(ms: number = Date.now()): string {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) return date.toISOString();
  const two = (value: number) => (value < 10 ? `0${value}` : `${value}`);
  const millis = date.getUTCMilliseconds();
  return (
    `${String(year).padStart(4, "0")}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}` +
    `T${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}` +
    `.${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`
  );
}
