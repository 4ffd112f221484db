import { readFileSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  localDateParts,
  localOffsetSeconds,
  parsePosixRule,
  ruleOffsetAt,
  zonePath,
} from "../../src/util/local-time.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

// V8 (through ICU) is the oracle: Node resets V8's date cache whenever process.env.TZ is assigned.
const ZONEINFO = "/usr/share/zoneinfo";
const ZONES = [
  "America/New_York",
  "Europe/Berlin",
  "Australia/Lord_Howe",
  "Asia/Kathmandu",
  "America/Sao_Paulo",
  "Pacific/Apia",
  "America/Nuuk",
  "Asia/Jerusalem",
  "UTC",
  "Etc/GMT+5",
];
const YEAR_MS = Date.UTC(2001, 0, 1) - Date.UTC(2000, 0, 1);
const HOUR_MS = 3_600_000;

const saved = { TZ: process.env.TZ, TZDIR: process.env.TZDIR };
afterEach(() => {
  restore("TZ", saved.TZ);
  restore("TZDIR", saved.TZDIR);
});

function restore(name: "TZ" | "TZDIR", value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** V8's offset at `ms` in seconds, from its local getters (getTimezoneOffset drops an LMT offset's seconds). */
function v8Offset(ms: number): number {
  const d = new Date(ms);
  const local = Date.UTC(
    d.getFullYear(),
    d.getMonth(),
    d.getDate(),
    d.getHours(),
    d.getMinutes(),
    d.getSeconds(),
  );
  return (local + d.getMilliseconds() - ms) / 1000;
}

/** Weekly instants from `from` to `to` at a drifting hour, plus the exact seconds where V8's offset changes. */
function instants(from: number, to: number): number[] {
  const out: number[] = [];
  let previous = from;
  for (let ms = from; ms <= to; ms += 7 * 24 * HOUR_MS + 3 * HOUR_MS + 7_000) {
    out.push(ms);
    if (v8Offset(ms) !== v8Offset(previous)) {
      let [lo, hi] = [previous, ms];
      while (hi - lo > 1000) {
        const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
        if (v8Offset(mid) === v8Offset(previous)) lo = mid;
        else hi = mid;
      }
      out.push(lo, hi - 1, hi, hi + 1000);
    }
    previous = ms;
  }
  return out;
}

/** Instants where `ours` (computed under the current TZ) disagrees with V8 under `v8Tz`. */
function mismatches(
  ours: (ms: number) => number,
  v8Tz: string | undefined,
  from: number,
  to: number,
): string[] {
  const tz = process.env.TZ;
  restore("TZ", v8Tz);
  const expected = instants(from, to).map(
    (ms) => [ms, v8Offset(ms), new Date(ms).getTimezoneOffset()] as const,
  );
  restore("TZ", tz);
  const bad: string[] = [];
  for (const [ms, offset, timezoneOffset] of expected) {
    const got = ours(ms);
    // getTimezoneOffset() counts whole minutes west, truncated (an LMT offset has seconds).
    if (got !== offset || -Math.trunc(got / 60) !== timezoneOffset) {
      bad.push(`${new Date(ms).toISOString()}: ${got} s vs V8 ${offset} s, ${timezoneOffset} min`);
    }
  }
  return bad.slice(0, 5);
}

const ourOffset = (ms: number) => localOffsetSeconds(ms);
const FROM_1900 = Date.UTC(1900, 0, 1);
const TO_2100 = Date.UTC(2100, 11, 31);

describe("localOffsetSeconds from the system's TZif files", () => {
  for (const zone of ZONES) {
    it(`matches V8 for ${zone}, 1900-2100`, () => {
      process.env.TZ = zone;
      expect(mismatches(ourOffset, zone, FROM_1900, TO_2100)).toEqual([]);
    });
  }

  it("reads /etc/localtime when TZ is unset, and accepts ':Zone' and absolute paths", () => {
    delete process.env.TZ;
    expect(mismatches(ourOffset, undefined, FROM_1900, TO_2100)).toEqual([]);
    process.env.TZ = ":Europe/Berlin";
    expect(mismatches(ourOffset, "Europe/Berlin", FROM_1900, TO_2100)).toEqual([]);
    process.env.TZ = `${ZONEINFO}/Australia/Lord_Howe`;
    expect(mismatches(ourOffset, "Australia/Lord_Howe", FROM_1900, TO_2100)).toEqual([]);
  });

  it("gives the local calendar fields V8's getters give", () => {
    for (const zone of ["America/New_York", "Asia/Kathmandu", "Pacific/Apia"]) {
      process.env.TZ = zone;
      for (let ms = FROM_1900; ms < TO_2100; ms += YEAR_MS / 5 + 13 * HOUR_MS + 61_000) {
        const d = new Date(ms);
        const v8 = {
          year: d.getFullYear(),
          month: d.getMonth() + 1,
          day: d.getDate(),
          hours: d.getHours(),
          minutes: d.getMinutes(),
          seconds: d.getSeconds(),
        };
        expect(localDateParts(ms), `${zone} ${d.toISOString()}`).toEqual(v8);
      }
    }
  });
});

describe("the footer rule of a slim TZif file", () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await tmpdir("tscodex-tz-");
  });
  afterEach(() => dir.cleanup());

  // Since when each zone's footer rule has held (before it, the slim file below is wrong on purpose).
  const SINCE: Record<string, number> = {
    "America/New_York": 2008,
    "Europe/Berlin": 1997,
    "Australia/Lord_Howe": 2009,
    "Asia/Kathmandu": 1987,
    "America/Sao_Paulo": 2020,
    "Pacific/Apia": 2022,
    "America/Nuuk": 2024,
    "Asia/Jerusalem": 2014,
    "Etc/GMT+5": 1970,
  };
  for (const [zone, since] of Object.entries(SINCE)) {
    it(`agrees with V8 for ${zone} from ${since} on (one transition, then its footer)`, async () => {
      const footer = readFileSync(join(ZONEINFO, zone), "latin1").split("\n").at(-2) ?? "";
      const start = Date.UTC(since, 0, 1);
      const path = join(dir.path, "slim");
      await writeFile(path, slimTzif(start / 1000, footer));
      process.env.TZ = path;
      expect(mismatches(ourOffset, zone, start, TO_2100)).toEqual([]);
      // Before its one transition the file says UTC+00:00:01 (its time type 0), not the zone.
      expect(localOffsetSeconds(start - 1000)).toBe(1);
    });
  }
});

/** A version-3 TZif file: an empty v1 block, then one transition at `t` to a second type, and `footer`. */
function slimTzif(t: number, footer: string): Buffer {
  const header = (timecnt: number, typecnt: number, charcnt: number) => {
    const h = Buffer.alloc(44);
    h.write("TZif3", 0, "latin1");
    for (const [i, n] of [0, 0, 0, timecnt, typecnt, charcnt].entries()) h.writeUInt32BE(n, 20 + i * 4);
    return h;
  };
  const types = Buffer.alloc(12);
  types.writeInt32BE(1, 0); // type 0: UTC+00:00:01, abbreviation "X"
  types.writeInt32BE(7200, 6); // type 1: whatever; the footer governs from `t` on
  const time = Buffer.alloc(8);
  time.writeBigInt64BE(BigInt(t));
  const v1 = Buffer.concat([header(0, 1, 2), Buffer.alloc(6), Buffer.from("X\0")]);
  const v2 = Buffer.concat([header(1, 2, 2), time, Buffer.from([1]), types, Buffer.from("X\0")]);
  return Buffer.concat([v1, v2, Buffer.from(`\n${footer}\n`, "latin1")]);
}

describe("POSIX TZ rules", () => {
  it("places Jn (never Feb 29) and n (counting Feb 29 from 0) days in a leap year", () => {
    const julian = parsePosixRule("AAA0BBB,J60/0,J300/0");
    const zeroBased = parsePosixRule("AAA0BBB,59/0,300/0");
    if (!julian || !zeroBased) throw new Error("rules did not parse");
    const t = (iso: string) => Date.parse(iso) / 1000;
    expect(ruleOffsetAt(julian, t("2024-02-29T23:59:59Z"))).toBe(0);
    expect(ruleOffsetAt(julian, t("2024-03-01T00:00:00Z"))).toBe(3600);
    expect(ruleOffsetAt(julian, t("2023-02-28T23:59:59Z"))).toBe(0);
    expect(ruleOffsetAt(julian, t("2023-03-01T00:00:00Z"))).toBe(3600);
    expect(ruleOffsetAt(zeroBased, t("2024-02-28T23:59:59Z"))).toBe(0);
    expect(ruleOffsetAt(zeroBased, t("2024-02-29T00:00:00Z"))).toBe(3600);
  });

  it("reads quoted names, minutes, explicit DST offsets and rejects junk", () => {
    expect(parsePosixRule("<+0545>-5:45")).toEqual({ std: 20700 });
    expect(parsePosixRule("<-03>3")).toEqual({ std: -10800 });
    expect(parsePosixRule("AAA3BBB1,M3.2.0,M11.1.0")?.dst?.offset).toBe(-3600);
    expect(parsePosixRule("EST5EDT")?.dst?.start).toEqual({
      kind: "month",
      month: 3,
      week: 2,
      weekday: 0,
      time: 7200,
    });
    for (const junk of [
      "",
      "EST",
      "5",
      "EST5EDT,M13.1.0,M11.1.0",
      "EST5EDT,M3.2.0",
      "EST5EDT,J0,J365",
      "EST5EDT,M3.2.0/168,M11.1.0",
    ]) {
      expect(parsePosixRule(junk), junk).toBeNull();
    }
  });
});

describe("falling back to V8's getters", () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await tmpdir("tscodex-tz-");
  });
  afterEach(() => dir.cleanup());

  it("when TZ is a POSIX rule with no zone file", () => {
    process.env.TZDIR = dir.path;
    process.env.TZ = "EST5EDT";
    expect(mismatches(ourOffset, "EST5EDT", Date.UTC(2000, 0, 1), Date.UTC(2030, 0, 1))).toEqual([]);
    // V8 knows EST5EDT, so the fallback is not UTC.
    expect(localOffsetSeconds(Date.UTC(2020, 6, 1))).toBe(-4 * 3600);
    process.env.TZ = "<+03>-3";
    expect(mismatches(ourOffset, "<+03>-3", Date.UTC(2000, 0, 1), Date.UTC(2030, 0, 1))).toEqual([]);
  });

  it("when the zone file is garbage, truncated or unreadable", async () => {
    const garbage = join(dir.path, "garbage");
    await writeFile(garbage, "not a zone file at all, not even close to forty-four bytes long");
    const truncated = join(dir.path, "truncated");
    await writeFile(truncated, readFileSync(join(ZONEINFO, "Europe/Berlin")).subarray(0, 300));
    const unreadable = join(dir.path, "unreadable");
    await mkdir(unreadable);
    await chmod(unreadable, 0);
    for (const path of [garbage, truncated, unreadable, join(dir.path, "missing")]) {
      process.env.TZ = path;
      expect(mismatches(ourOffset, path, Date.UTC(2000, 0, 1), Date.UTC(2030, 0, 1)), path).toEqual([]);
    }
  });

  it("reads an empty TZ as UTC and refuses names that climb out of the zone directory", () => {
    process.env.TZ = "";
    expect(localOffsetSeconds(Date.UTC(2020, 6, 1))).toBe(0);
    expect(zonePath("../../etc/passwd", ZONEINFO)).toBeNull();
    expect(zonePath("Europe/../../x", ZONEINFO)).toBeNull();
    expect(zonePath(":America/New_York", ZONEINFO)).toBe(`${ZONEINFO}/America/New_York`);
    expect(zonePath(undefined, ZONEINFO)).toBe("/etc/localtime");
  });
});
