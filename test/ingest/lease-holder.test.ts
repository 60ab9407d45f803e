import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { leaseHolderGone, newLeaseHolder } from '../../ingest/lease-holder.js';

describe('lease holder names', () => {
  it('names this host and process, differently for each run', () => {
    const a = newLeaseHolder();
    expect(a.startsWith(`${hostname()}:${process.pid}:`)).toBe(true);
    expect(newLeaseHolder()).not.toBe(a);
    expect(leaseHolderGone(a)).toBe(false);
  });

  it('tells a holder whose process has exited on this host', async () => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await once(child, 'exit');
    expect(leaseHolderGone(`${hostname()}:${child.pid}:abcd1234`)).toBe(true);
  });

  it('cannot tell, so says no, for another host or a name it does not understand', () => {
    expect(leaseHolderGone(`elsewhere.example:999999:abcd1234`)).toBe(false);
    expect(leaseHolderGone('worker-1')).toBe(false);
    expect(leaseHolderGone(`${hostname()}:0:abcd1234`)).toBe(false);
  });
});
