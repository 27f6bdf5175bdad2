/**
 * Says `text` again as the test process exits, after bun's summary: a long real-time test's failure is then at
 * the end of the suite's output, where CI's shortened log still shows it, not only among its own lines an hour
 * earlier. At most `maxLines` lines (the rest counted).
 */
export function sayAtExit(title: string, text: string, maxLines = 60): void {
  const lines = text.split("\n");
  const shown =
    lines.length > maxLines ? [...lines.slice(0, maxLines), `… ${lines.length - maxLines} more lines`] : lines;
  process.once("exit", () => console.error(`\n${title}:\n${shown.join("\n")}`));
}
