import { appendFile, mkdir, rename, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { AuditEntry } from "../model/audit.ts";

/** Largest audit file before it is renamed to `<path>.1` (spec 2.1 `auditLog.output`): 10 MiB. */
export const AUDIT_FILE_MAX_BYTES = 10 * 1024 * 1024;

/** Most entries waiting for the file; beyond it entries are dropped and counted (`mon_audit_dropped_total`). */
export const AUDIT_QUEUE_LIMIT = 10_000;

/** Where audit entries go: one JSON object per line. */
export interface AuditLog {
  /** Queues one entry; never blocks the pipeline and never throws. */
  write(entry: AuditEntry): void;
  /** Resolves when every queued entry is written (or failed and counted). */
  flush(): Promise<void>;
}

/** Hooks for what the writer cannot do itself: count and say why entries were lost. */
export interface AuditHooks {
  /** `count` entries were dropped: the queue was full, or the file could not be written (`error`). */
  dropped(count: number, why: "queue_full" | "write_failed", error?: Error): void;
}

/**
 * Creates the audit log (spec 2.1 `auditLog`, spec 6). `output` is `stdout` (each line goes to `stdout`) or an
 * absolute file path: lines are appended; before a write would pass `maxBytes` the file is renamed to
 * `<path>.1`, replacing the previous backup, so at most about twice `maxBytes` stay on disk. Writes are queued
 * (at most `maxQueued` entries) and appended in order; a full queue or a failed write drops entries through
 * `hooks.dropped`, and the next write tries again.
 */
export function createAuditLog(options: {
  output: string;
  stdout: (line: string) => void;
  hooks: AuditHooks;
  maxBytes?: number;
  maxQueued?: number;
}): AuditLog {
  const maxBytes = options.maxBytes ?? AUDIT_FILE_MAX_BYTES;
  const maxQueued = options.maxQueued ?? AUDIT_QUEUE_LIMIT;
  if (options.output === "stdout") {
    return {
      write: (entry) => options.stdout(`${JSON.stringify(entry)}\n`),
      flush: () => Promise.resolve(),
    };
  }
  const path = options.output;
  const encoder = new TextEncoder();
  const queue: string[] = [];
  let size: number | undefined;
  let draining: Promise<void> = Promise.resolve();
  let busy = false;

  const writeOut = async (): Promise<void> => {
    if (size === undefined) {
      // The directory is made on first use (auditLog.output: audit/mon.jsonl needs no mkdir of its own).
      await mkdir(dirname(path), { recursive: true });
      size = await stat(path).then(
        (s) => s.size,
        () => 0,
      );
    }
    while (queue.length > 0) {
      let chunk = "";
      let bytes = 0;
      let taken = 0;
      for (const line of queue) {
        const n = encoder.encode(line).length;
        if (taken > 0 && size + bytes + n > maxBytes) break;
        chunk += line;
        bytes += n;
        taken++;
      }
      if (size > 0 && size + bytes > maxBytes) {
        await rename(path, `${path}.1`);
        size = 0;
        continue;
      }
      await appendFile(path, chunk);
      queue.splice(0, taken);
      size += bytes;
    }
  };
  const drain = () => {
    if (busy) return;
    busy = true;
    draining = writeOut()
      .catch((error: unknown) => {
        const lost = queue.length;
        queue.length = 0;
        size = undefined;
        options.hooks.dropped(lost, "write_failed", error as Error);
      })
      .finally(() => {
        busy = false;
        if (queue.length > 0) drain();
      });
  };

  return {
    write(entry) {
      if (queue.length >= maxQueued) {
        options.hooks.dropped(1, "queue_full");
        return;
      }
      queue.push(`${JSON.stringify(entry)}\n`);
      drain();
    },
    async flush() {
      while (busy || queue.length > 0) await draining;
    },
  };
}
