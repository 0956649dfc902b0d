// workerd's own CPU time and memory, read from /proc. Miniflare spawns one
// workerd child per instance; the load generator and subscribers run in this
// Node process, so their cost is kept out of the per-append figure.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux x86-64

/** Pids of this process's direct children whose command is `workerd`. */
export function workerdChildren(parentPid = process.pid) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      if (ppid === parentPid && comm === 'workerd') pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** User + system CPU of `pid` in microseconds (10 ms resolution). */
export function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 after "(comm) ".
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / TICKS_PER_SECOND;
}

/** `{user, system}` CPU of `pid` in microseconds. */
export function cpuSplitMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    user: (Number(fields[11]) * 1e6) / TICKS_PER_SECOND,
    system: (Number(fields[12]) * 1e6) / TICKS_PER_SECOND,
  };
}

function statusKiB(pid, key) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) : Number.NaN;
}

/** Peak resident memory of `pid` so far, in MiB. */
export function peakRssMiB(pid) {
  return statusKiB(pid, 'VmHWM') / 1024;
}

export function rssMiB(pid) {
  return statusKiB(pid, 'VmRSS') / 1024;
}
