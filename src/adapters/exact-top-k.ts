import { createRequire } from 'node:module';

type UsearchModule = typeof import('usearch');

/**
 * usearch's exact (brute-force) search, which scores with SIMD kernels: several times faster than sqlite-vec's scalar
 * `vec_distance_cosine` or a JavaScript loop (bench/README.md "Measurements cited by code"). Loaded
 * lazily and only once: undefined where its native module does not load (a platform without a prebuilt binary), and
 * callers then score another way.
 */
let usearch: UsearchModule | null | undefined;
function loadUsearch(): UsearchModule | null {
  if (usearch === undefined) {
    try {
      usearch = createRequire(import.meta.url)('usearch') as UsearchModule;
    } catch {
      usearch = null;
    }
  }
  return usearch;
}

/** Whether cosineScores can run here (usearch's native module loaded). */
export function exactTopKAvailable(): boolean {
  return loadUsearch() !== null;
}

/**
 * The cosine of `query` with every row of `matrix` (row-major, `dimensions` floats per row), scored exactly, in row
 * order; 0 where either vector is zero. Throws when usearch is not available (exactTopKAvailable()).
 */
export function cosineScores(matrix: Float32Array, dimensions: number, query: Float32Array): Float32Array {
  const lib = loadUsearch();
  if (!lib) throw new Error('usearch is not available on this platform');
  const n = matrix.length / dimensions;
  const scores = new Float32Array(n);
  // A zero query shares no direction with any row: every row scores 0 (usearch would give a zero row 1).
  if (n === 0 || query.every((x) => x === 0)) return scores;
  const { keys, distances } = lib.exactSearch(matrix, query, dimensions, n, lib.MetricKind.Cos, 1) as {
    keys: BigUint64Array;
    distances: Float32Array;
  };
  for (let i = 0; i < keys.length; i++) {
    const score = 1 - (distances[i] ?? 1);
    scores[Number(keys[i])] = Number.isFinite(score) ? score : 0;
  }
  return scores;
}

/**
 * Indices of the `k` highest scores, best first; every index tied with the k-th is included (so more than k when
 * the k-th place is shared), equal scores in index order: the caller breaks ties as it orders, and cuts to k.
 */
export function topIndices(scores: ArrayLike<number>, k: number): number[] {
  const n = scores.length;
  if (n === 0 || k <= 0) return [];
  const sorted = Float64Array.from(scores).sort();
  const kth = sorted[Math.max(0, n - Math.min(k, n))] ?? -Infinity;
  const out: number[] = [];
  for (let i = 0; i < n; i++) if ((scores[i] ?? -Infinity) >= kth) out.push(i);
  return out.sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
}
