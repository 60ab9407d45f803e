import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (this file is test/support/corpus.ts). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The shared corpus lives beside the repository as ../shared/corpus; it is never copied into the repo. */
export const corpusDir = process.env.CORPUS_DIR ?? path.resolve(repoRoot, '../shared/corpus');
export const corpusAvailable = existsSync(corpusDir);

export const corpusPath = (...parts: string[]): string => path.join(corpusDir, ...parts);
