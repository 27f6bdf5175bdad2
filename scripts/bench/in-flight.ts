/** Runs `count` calls of `one` (with its index) with at most `width` in flight; rejects with the first failure. */
export async function inFlight(count: number, width: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await one(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
}
