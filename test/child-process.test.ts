import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { stopChild } from '../src/child-process.js';

const sleeper = () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });

describe('stopChild', () => {
  it('ends a running child with SIGTERM by default and resolves once it has exited', async () => {
    const child = sleeper();
    await once(child, 'spawn');
    await stopChild(child);
    expect(child.signalCode).toBe('SIGTERM');
  });

  it('sends the signal asked for, and resolves at once for a child that has already exited', async () => {
    const child = sleeper();
    await once(child, 'spawn');
    await stopChild(child, 'SIGKILL');
    expect(child.signalCode).toBe('SIGKILL');
    await stopChild(child);
    const done = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await once(done, 'exit');
    await stopChild(done);
    expect(done.exitCode).toBe(0);
  });
});
