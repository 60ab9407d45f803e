// Entry of the embedders' workers (threads and child processes). The worker modules are TypeScript: when they run
// from .ts sources (tsx, vitest) the tsx loader must be registered here, because on Node 20 a worker thread does
// not inherit its parent's module hooks and a child process is started without them. A .js entry is imported as is.
import { parentPort, workerData } from 'node:worker_threads';

const data = parentPort ? workerData : JSON.parse(process.argv[2] ?? '{}');
const entry = data && typeof data.entry === 'string' ? data.entry : undefined;
if (!entry) throw new Error('worker-boot.mjs: the worker data has no entry (module URL)');
if (entry.endsWith('.ts')) {
  const { tsImport } = await import('tsx/esm/api');
  await tsImport(entry, import.meta.url);
} else {
  await import(entry);
}
