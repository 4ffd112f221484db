/**
 * Ending everything a session started. Every exec session's leader calls setsid (node-pty's
 * fork, or `detached` pipes), so its pid is its process group id and its session id.
 * Signalling the group reaches ordinary children; an interactive shell's background jobs
 * get their own groups but stay in the session, so the session is swept through /proc
 * (Linux; elsewhere the group signal is all there is). A process that calls setsid itself (a
 * daemon) escapes this sweep; the policy layer's containment (policy/sandbox/contain.ts: a PID
 * namespace, or the helper's keeper) ends it with the command.
 */
import { readdirSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";

/**
 * Signals the groups and sessions led by `leaders`; returns the session members it found
 * (empty where /proc is missing). Never rejects.
 */
export async function signalSessions(leaders: readonly number[], signal: NodeJS.Signals): Promise<number[]> {
  if (leaders.length === 0) return [];
  for (const leader of leaders) killProcessGroup(leader, signal);
  const wanted = new Set(leaders);
  let names: string[];
  try {
    names = await readdir("/proc");
  } catch {
    return [];
  }
  const members: number[] = [];
  await Promise.all(
    names.filter(isPid).map(async (name) => {
      const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
      if (signalIfMember(Number(name), parseStat(stat), wanted, signal)) members.push(Number(name));
    }),
  );
  return members;
}

/**
 * Waits until none of `pids` runs any more (gone, or a zombie nobody reaps: dead all the
 * same), polling /proc for at most `timeoutMs`. Resolves true when all are dead.
 */
export async function waitUntilDead(pids: readonly number[], timeoutMs: number): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  let pending = [...pids];
  while (pending.length > 0) {
    const states = await Promise.all(pending.map((pid) => processState(pid)));
    pending = pending.filter((_, i) => states[i] !== null && states[i] !== "Z");
    if (pending.length === 0) return true;
    if (performance.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

/**
 * The same, synchronously: for `process.on("exit")`, where nothing async runs any more.
 * Not for anything else (it blocks the event loop on /proc reads).
 */
export function signalSessionsSync(leaders: readonly number[], signal: NodeJS.Signals): void {
  if (leaders.length === 0) return;
  for (const leader of leaders) killProcessGroup(leader, signal);
  const wanted = new Set(leaders);
  for (const { pid, stat } of processStatsSync()) signalIfMember(pid, stat, wanted, signal);
}

/** The process's state letter from /proc (R, S, Z, …), or null when it is gone. */
export async function processState(pid: number): Promise<string | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return parseStat(stat)?.state ?? null;
}

function isPid(name: string): boolean {
  return name.charCodeAt(0) >= 0x31 && name.charCodeAt(0) <= 0x39 && /^\d+$/.test(name);
}

/** Signals `pid` if its session is one of `sessions` and it still runs; true if signalled. */
function signalIfMember(
  pid: number,
  stat: Stat | null,
  sessions: Set<number>,
  signal: NodeJS.Signals,
): boolean {
  if (!stat || !sessions.has(stat.session) || stat.state === "Z") return false;
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    // Gone meanwhile, or not ours to signal.
    return false;
  }
}

interface Stat {
  state: string;
  parent: number;
  group: number;
  session: number;
  /** When the process started (clock ticks since boot): with the pid, it names one process. */
  started: number;
}

/** `pid (comm) state ppid pgrp session …`; comm may hold spaces and parentheses. */
function parseStat(stat: string): Stat | null {
  const end = stat.lastIndexOf(")");
  if (end === -1) return null;
  const fields = stat.slice(end + 2).split(" ");
  const state = fields[0];
  const [parent, group, session] = [Number(fields[1]), Number(fields[2]), Number(fields[3])];
  if (!state || !Number.isInteger(session)) return null;
  return { state, parent, group, session, started: Number(fields[19]) };
}

/**
 * Sends `signal` to the process group `pgid` (a detached child's pid). False when the group
 * is gone (ESRCH) or may not be signalled.
 */
export function killProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** One process, named so that a later pid reuse is not mistaken for it. */
export interface ProcessIdentity {
  pid: number;
  /** Start time from /proc (clock ticks since boot). */
  started: number;
}

/** What `freezeTree` found below a command's leader. */
export interface FrozenTree {
  /** Descendants outside the leader's process group: a signal to the group misses them. */
  strays: number[];
  /** Every descendant, the group's members too. */
  descendants: ProcessIdentity[];
}

/**
 * Stops the process group `leader` leads (SIGSTOP, which a PID namespace's init gets from
 * outside too) and lists its descendants. Stopped, the group neither forks nor exits while
 * /proc is read, so nothing it is starting is missed: a bwrap killed as it starts has just
 * cloned its init, which ignores SIGTERM, leaves the group (setsid), and dies with bwrap only
 * once it has asked to (PR_SET_PDEATHSIG, set late in its setup). The caller signals the group
 * and then sends SIGCONT; `killSurvivors` later ends whatever of the list is left.
 */
export function freezeTree(leader: number): FrozenTree {
  killProcessGroup(leader, "SIGSTOP");
  const descendants = descendantsOf(leader);
  return {
    strays: descendants.filter((process) => process.group !== leader).map((process) => process.pid),
    descendants: descendants.map(({ pid, started }) => ({ pid, started })),
  };
}

/** SIGKILLs each of `pids` and the group it leads (a stray of freezeTree, a daemon's group). */
export function killStrays(pids: readonly number[]): void {
  for (const pid of pids) {
    killProcessGroup(pid, "SIGKILL");
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
}

/** SIGKILLs each of `processes` that still runs (the same process: same pid and start time). */
export function killSurvivors(processes: readonly ProcessIdentity[]): void {
  for (const { pid, started } of processes) {
    let stat: Stat | null;
    try {
      stat = parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      continue;
    }
    if (!stat || stat.state === "Z" || stat.started !== started) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
}

/** The running descendants of `root` (read synchronously from /proc; none where there is none). */
function descendantsOf(root: number): { pid: number; group: number; started: number }[] {
  const children = new Map<number, { pid: number; group: number; started: number }[]>();
  for (const { pid, stat } of processStatsSync()) {
    if (!stat || stat.state === "Z") continue;
    const siblings = children.get(stat.parent) ?? [];
    siblings.push({ pid, group: stat.group, started: stat.started });
    children.set(stat.parent, siblings);
  }
  const found: { pid: number; group: number; started: number }[] = [];
  const pending = [root];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      pending.push(child.pid);
    }
  }
  return found;
}

/** Every process's parsed /proc stat, read synchronously (none where /proc is missing). */
function* processStatsSync(): Generator<{ pid: number; stat: Stat | null }> {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return;
  }
  for (const name of names) {
    if (!isPid(name)) continue;
    try {
      yield { pid: Number(name), stat: parseStat(readFileSync(`/proc/${name}/stat`, "utf8")) };
    } catch {
      // Gone meanwhile.
    }
  }
}
