import { createConsola, type ConsolaInstance, type LogObject } from "consola";

/** Log line format of `app.logFormatter` (spec 2.1). */
export type LogFormat = "text" | "json";

/** The logger every component receives; consola underneath. */
export type Logger = ConsolaInstance;

/**
 * Creates a logger writing to stderr. `json` writes one JSON object per line
 * (`{"time","level","tag","msg",...}`), `text` is consola's human format.
 * `level` is consola's numeric level (3 = info, 4 = debug).
 */
export function createLogger(options: { format?: LogFormat; level?: number; tag?: string } = {}): Logger {
  const format = options.format ?? "text";
  const logger = createConsola({
    level: options.level ?? 3,
    ...(format === "json" ? { reporters: [{ log: writeJson }] } : {}),
    formatOptions: { date: true, colors: false, compact: true },
    stderr: process.stderr,
    stdout: process.stderr,
  });
  return options.tag ? logger.withTag(options.tag) : logger;
}

/** A logger that discards everything, for tests that do not assert on logs. */
export function createSilentLogger(): Logger {
  return createConsola({ level: -999, reporters: [] });
}

// --- internal ---

function writeJson(entry: LogObject): void {
  const [first, ...rest] = entry.args;
  const line: Record<string, unknown> = {
    time: entry.date.toISOString(),
    level: entry.type,
    ...(entry.tag ? { tag: entry.tag } : {}),
    msg: first instanceof Error ? first.message : String(first ?? ""),
  };
  for (const extra of rest) {
    if (extra && typeof extra === "object" && !(extra instanceof Error)) Object.assign(line, extra);
    else if (extra instanceof Error) line.error = extra.message;
  }
  process.stderr.write(`${JSON.stringify(line)}\n`);
}
