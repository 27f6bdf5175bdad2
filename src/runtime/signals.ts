/** Calls `handler` once on the first SIGINT or SIGTERM (the process stays up until the handler exits it). */
export function onShutdownSignal(handler: (signal: "SIGINT" | "SIGTERM") => void | Promise<void>): void {
  let called = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (called) return;
      called = true;
      void handler(signal);
    });
  }
}
