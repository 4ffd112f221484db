/**
 * Local time without V8's local-time functions. The first `getHours()`/`getTimezoneOffset()` in a
 * process makes V8 load ICU's time-zone data from the node binary (~0.5 MB of resident memory;
 * toISOString() does too in Node 20, hence util/iso-time.ts). A one-turn `exec` needs local time
 * only for its rollout's file name. So: read the zone the way glibc does (TZ, else
 * /etc/localtime), parse its TZif file (RFC 8536), and apply UTC getters to `ms + offset`. A
 * zone we cannot read (no file, a bare POSIX rule such as "EST5EDT", a damaged file, leap-second
 * "right/" zones) falls back to V8's getters: correct, only costlier.
 */
import { readFileSync } from "node:fs";

/** Calendar fields of an instant in local time (month 1-12). */
export interface LocalDateParts {
  year: number;
  month: number;
  day: number;
  hours: number;
  minutes: number;
  seconds: number;
}

/** The local calendar date and time of `ms` (epoch milliseconds). Never throws. */
export function localDateParts(ms: number): LocalDateParts {
  const zone = systemZone();
  const local = new Date(zone ? ms + offsetAt(zone, Math.floor(ms / 1000)) * 1000 : localAsUtc(ms));
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hours: local.getUTCHours(),
    minutes: local.getUTCMinutes(),
    seconds: local.getUTCSeconds(),
  };
}

/** Seconds local time is ahead of UTC at `ms` (New York in winter: -18000). Never throws. */
export function localOffsetSeconds(ms: number): number {
  const zone = systemZone();
  if (zone) return offsetAt(zone, Math.floor(ms / 1000));
  return Math.round((localAsUtc(ms) - ms) / 1000);
}

/** V8's local time of `ms` as if it were UTC. (Not getTimezoneOffset(): it drops an LMT offset's seconds.) */
function localAsUtc(ms: number): number {
  const d = new Date(ms);
  const day = Date.UTC(d.getFullYear(), d.getMonth(), d.getDate());
  return day + ((d.getHours() * 60 + d.getMinutes()) * 60 + d.getSeconds()) * 1000 + d.getMilliseconds();
}

/** A parsed TZif file: transitions (UTC seconds, ascending), each with its offset, and the footer rule. */
export interface Zone {
  transitions: number[];
  /** Offset in effect from transitions[i] on. */
  offsets: number[];
  /** Offset before the first transition (time type 0). */
  initial: number;
  /** The footer's rule for instants after the last transition; null when the footer is empty. */
  rule: PosixRule | null;
}

/** A POSIX TZ rule: offsets east of UTC, in seconds; `dst` absent for a zone without DST. */
export interface PosixRule {
  std: number;
  dst?: { offset: number; start: RuleDate; end: RuleDate };
}

/** `Jn` (julian, no Feb 29), `n` (day of year from 0), `Mm.w.d`; `time` is seconds past local midnight. */
type RuleDate =
  | { kind: "julian" | "day"; day: number; time: number }
  | { kind: "month"; month: number; week: number; weekday: number; time: number };

const zones = new Map<string, Zone | null>();

/** The zone glibc would use for this process's TZ, parsed once per (TZ, TZDIR); null: use V8's getters. */
function systemZone(): Zone | null {
  const tz = process.env.TZ;
  const dir = process.env.TZDIR || "/usr/share/zoneinfo";
  const key = `${tz ?? "\0unset"}\0${dir}`;
  let zone = zones.get(key);
  if (zone === undefined) {
    zone = loadZone(tz, dir);
    zones.set(key, zone);
  }
  return zone;
}

function loadZone(tz: string | undefined, dir: string): Zone | null {
  if (tz === "") return { transitions: [], offsets: [], initial: 0, rule: null };
  const path = zonePath(tz, dir);
  if (!path) return null;
  try {
    return parseTzif(readFileSync(path));
  } catch {
    return null;
  }
}

/** Where glibc looks for TZ's file; null for a name that cannot be a file under the zone directory. */
export function zonePath(tz: string | undefined, dir: string): string | null {
  if (tz === undefined) return "/etc/localtime";
  const name = tz.startsWith(":") ? tz.slice(1) : tz;
  if (name.startsWith("/")) return name;
  if (name === "" || name.split("/").includes("..")) return null;
  return `${dir}/${name}`;
}

/** Parses a TZif file (v1, or the 64-bit block and footer of v2+); null if it is not one we can use. */
export function parseTzif(data: Buffer): Zone | null {
  const v1 = header(data, 0, 4);
  if (!v1) return null;
  if (v1.version < 2) return zoneOfBlock(data, v1, 4, null);
  const v2 = header(data, v1.end, 8);
  if (!v2) return null;
  const footerStart = v2.end;
  if (data[footerStart] !== 0x0a) return null;
  const footerEnd = data.indexOf(0x0a, footerStart + 1);
  if (footerEnd < 0) return null;
  const footer = data.toString("latin1", footerStart + 1, footerEnd);
  const rule = footer === "" ? null : parsePosixRule(footer);
  if (footer !== "" && !rule) return null;
  return zoneOfBlock(data, v2, 8, rule);
}

interface Header {
  version: number;
  /** Where the data block starts and ends. */
  data: number;
  end: number;
  timecnt: number;
  typecnt: number;
  leapcnt: number;
}

/** The header at `at` and the extent of its data block, whose times take `timeSize` bytes. */
function header(data: Buffer, at: number, timeSize: 4 | 8): Header | null {
  if (data.length < at + 44 || data.toString("latin1", at, at + 4) !== "TZif") return null;
  // NUL for version 1, else the ASCII digit.
  const version = data[at + 4] === 0 ? 1 : (data[at + 4] ?? 0) - 0x30;
  const count = (i: number) => data.readUInt32BE(at + 20 + i * 4);
  const [isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt] = [0, 1, 2, 3, 4, 5].map(count) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const size =
    timecnt * (timeSize + 1) + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt;
  const end = at + 44 + size;
  if (typecnt === 0 || end > data.length) return null;
  return { version, data: at + 44, end, timecnt, typecnt, leapcnt };
}

function zoneOfBlock(data: Buffer, h: Header, timeSize: 4 | 8, rule: PosixRule | null): Zone | null {
  // Leap-second zones count TAI-like seconds; V8 handles them, we do not.
  if (h.leapcnt > 0) return null;
  const typesAt = h.data + h.timecnt * (timeSize + 1);
  const typeOffset = (i: number) => (i < h.typecnt ? data.readInt32BE(typesAt + i * 6) : Number.NaN);
  const transitions: number[] = [];
  const offsets: number[] = [];
  for (let i = 0; i < h.timecnt; i++) {
    const at = h.data + i * timeSize;
    transitions.push(timeSize === 4 ? data.readInt32BE(at) : Number(data.readBigInt64BE(at)));
    offsets.push(typeOffset(data[h.data + h.timecnt * timeSize + i] ?? h.typecnt));
  }
  if (offsets.some(Number.isNaN)) return null;
  return { transitions, offsets, initial: typeOffset(0), rule };
}

/** The offset at `t` (UTC seconds). RFC 8536: type 0 before the first transition, the footer after the last. */
export function offsetAt(zone: Zone, t: number): number {
  const { transitions, offsets } = zone;
  const last = transitions.length - 1;
  if (zone.rule && (last < 0 || t >= (transitions[last] ?? 0))) return ruleOffsetAt(zone.rule, t);
  if (last < 0 || t < (transitions[0] ?? 0)) return zone.initial;
  let [lo, hi] = [0, last];
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((transitions[mid] ?? 0) <= t) lo = mid;
    else hi = mid - 1;
  }
  return offsets[lo] ?? zone.initial;
}

/** The offset a POSIX TZ rule gives at `t` (UTC seconds). */
export function ruleOffsetAt(rule: PosixRule, t: number): number {
  const { dst } = rule;
  if (!dst) return rule.std;
  const year = new Date((t + rule.std) * 1000).getUTCFullYear();
  // The start time is given in standard time, the end time in daylight time.
  const start = ruleDateSeconds(year, dst.start) - rule.std;
  const end = ruleDateSeconds(year, dst.end) - dst.offset;
  const inDst = start < end ? t >= start && t < end : !(t >= end && t < start);
  return inDst ? dst.offset : rule.std;
}

/** Seconds from the epoch to the rule date's local time in `year`, as if local time were UTC. */
function ruleDateSeconds(year: number, date: RuleDate): number {
  if (date.kind === "month") {
    const firstWeekday = new Date(Date.UTC(year, date.month - 1, 1)).getUTCDay();
    const monthDays = new Date(Date.UTC(year, date.month, 0)).getUTCDate();
    let day = 1 + ((date.weekday - firstWeekday + 7) % 7) + (date.week - 1) * 7;
    while (day > monthDays) day -= 7;
    return Date.UTC(year, date.month - 1, day) / 1000 + date.time;
  }
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  // `Jn` never counts Feb 29 (J60 is always March 1); `n` counts from 0 and does.
  const dayOfYear = date.kind === "julian" ? date.day - 1 + (leap && date.day >= 60 ? 1 : 0) : date.day;
  return Date.UTC(year, 0, 1 + dayOfYear) / 1000 + date.time;
}

const NAME = "(?:[A-Za-z]{3,}|<[A-Za-z0-9+-]{3,}>)";
const OFFSET = "([+-]?\\d{1,2}(?::\\d{2}){0,2})";
/** Groups: std offset, dst name, dst offset, start rule, end rule. */
const POSIX_TZ = new RegExp(`^${NAME}${OFFSET}(?:(${NAME})${OFFSET}?(?:,([^,]+),([^,]+))?)?$`);

/**
 * Parses `std offset [dst [offset] [,start[/time],end[/time]]]` (POSIX; RFC 8536 3.3.1 allows
 * times from -167 to 167 hours). Names are letters or `<...>`; offsets count west of UTC. A DST
 * name without rules takes glibc's default, the US rules `M3.2.0,M11.1.0`. Null if malformed.
 */
export function parsePosixRule(text: string): PosixRule | null {
  const m = POSIX_TZ.exec(text);
  const stdWest = parseHms(m?.[1], 24);
  if (!m || stdWest === null) return null;
  if (m[2] === undefined) return { std: 0 - stdWest };
  const dstWest = m[3] === undefined ? stdWest - 3600 : parseHms(m[3], 24);
  const start = parseRuleDate(m[4] ?? "M3.2.0");
  const end = parseRuleDate(m[5] ?? "M11.1.0");
  if (dstWest === null || !start || !end) return null;
  return { std: 0 - stdWest, dst: { offset: 0 - dstWest, start, end } };
}

function parseRuleDate(text: string): RuleDate | null {
  const [date = "", timeText] = text.split("/");
  const time = timeText === undefined ? 7200 : parseHms(timeText, 167);
  if (time === null) return null;
  let m = /^J(\d{1,3})$/.exec(date);
  if (m) {
    const day = Number(m[1]);
    return day >= 1 && day <= 365 ? { kind: "julian", day, time } : null;
  }
  m = /^(\d{1,3})$/.exec(date);
  if (m) {
    const day = Number(m[1]);
    return day <= 365 ? { kind: "day", day, time } : null;
  }
  m = /^M(\d{1,2})\.(\d)\.(\d)$/.exec(date);
  if (!m) return null;
  const [month, week, weekday] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || week < 1 || week > 5 || weekday > 6) return null;
  return { kind: "month", month, week, weekday, time };
}

/** `[+-]hh[:mm[:ss]]` in seconds; null if malformed or beyond `maxHours`. */
function parseHms(text: string | undefined, maxHours: number): number | null {
  const m = /^([+-]?)(\d{1,3})(?::(\d{2}))?(?::(\d{2}))?$/.exec(text ?? "");
  if (!m) return null;
  const [hours, minutes, seconds] = [Number(m[2]), Number(m[3] ?? 0), Number(m[4] ?? 0)];
  if (hours > maxHours || minutes > 59 || seconds > 59) return null;
  const total = hours * 3600 + minutes * 60 + seconds;
  return m[1] === "-" ? -total : total;
}
