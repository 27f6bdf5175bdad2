/** What long real-time tests asked to say again at the end of the suite. */
const said: string[] = [];

/**
 * Says `text` again at the end of the suite, right before bun's summary (src/testing/preload.ts runs
 * `sayAgain` in a global afterAll: bun test emits no process `exit` event): a long real-time test's failure is
 * then at the end of the suite's output, where CI's shortened log still shows it, not only among its own lines
 * an hour earlier. At most `maxLines` lines (the rest counted).
 */
export function sayAtExit(title: string, text: string, maxLines = 60): void {
  const lines = text.split("\n");
  const shown =
    lines.length > maxLines ? [...lines.slice(0, maxLines), `… ${lines.length - maxLines} more lines`] : lines;
  said.push(`\n${title}:\n${shown.join("\n")}`);
}

/** Prints (stderr) and forgets what `sayAtExit` kept. */
export function sayAgain(): void {
  for (const text of said.splice(0)) console.error(text);
}

/** Runs `run`; what it throws (an expectation that failed, an error) is also said again at the end (`sayAtExit`). */
export async function sayingFailure<T>(title: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    sayAtExit(title, error instanceof Error ? (error.stack ?? error.message) : String(error), 40);
    throw error;
  }
}
