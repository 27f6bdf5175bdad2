/**
 * The process's memory as the runtime exposes it (spec 8 "memory"). The only place that knows which runtime
 * runs: Bun's `Bun.gc(true)` forces a full, synchronous collection; elsewhere `globalThis.gc` when the runtime
 * exposes it (Node.js or Deno with `--expose-gc`), else nothing can be forced.
 */
export function collectGarbage(): void {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  if (bun) bun.gc(true);
  else (globalThis as { gc?: () => void }).gc?.();
}

/** Resident set size of this process, bytes. */
export function residentBytes(): number {
  return process.memoryUsage.rss();
}
