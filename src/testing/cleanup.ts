import { afterEach } from "bun:test";

/** Something a test starts and must stop: a test cluster, a capture server, a node server. */
export type Closable = { stop(): unknown } | { close(...args: never[]): unknown };

/**
 * Registers an `afterEach` that stops, last first, every resource the test passed to the returned `track`
 * (which gives the resource back). Stopping becomes idempotent, so a test may stop a resource itself first.
 */
export function useCleanup(): <T extends Closable>(resource: T) => T {
  let tracked: (() => Promise<void>)[] = [];
  afterEach(async () => {
    const closers = tracked.reverse();
    tracked = [];
    for (const close of closers) await close();
  });
  return (resource) => {
    const key = "stop" in resource ? "stop" : "close";
    const original = (resource as unknown as Record<string, (...a: unknown[]) => unknown>)[key]!.bind(resource);
    let done: Promise<void> | undefined;
    const once = () => (done ??= Promise.resolve(original()).then(() => undefined));
    (resource as unknown as Record<string, unknown>)[key] = once;
    tracked.push(once);
    return resource;
  };
}
