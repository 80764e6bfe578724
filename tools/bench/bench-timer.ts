import { performance } from 'node:perf_hooks';

/** Runs `op` repeatedly for about `ms` after a short warm-up; returns operations per second. */
export function opsPerSecond(op: () => void, ms = 1500, warmup = 3): number {
  for (let i = 0; i < warmup; i++) op();
  let count = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    op();
    count++;
    elapsed = performance.now() - start;
  }
  return (count * 1000) / elapsed;
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
