import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Names of the runs that hold document leases (ports/document-leases.ts): `host:pid:id`, so a run can tell a
 * holder on its own machine whose process is gone (killed) and take its documents over at once rather than after
 * the lease lapses.
 */

/** A new holder name for this process's run. */
export function newLeaseHolder(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** True when `holder` names a process of this machine that no longer runs; false when it runs or cannot be told. */
export function leaseHolderGone(holder: string): boolean {
  const parts = holder.split(':');
  if (parts.length < 3) return false;
  const pid = Number(parts[parts.length - 2]);
  const host = parts.slice(0, -2).join(':');
  if (host !== hostname() || !Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    // Signal 0 checks that the process exists without touching it.
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
