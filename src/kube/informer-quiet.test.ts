import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { join } from "node:path";

/**
 * A watch of a quiet kind stays open however long it is silent (issue 40: kube-apiserver sends no bookmark on a
 * kind that does not change). Bun's fetch fails a response that sends no byte for 300 s — here cut to 1 s for
 * the child process — so a watch that did not turn that off broke every five minutes on a real cluster, and
 * after four breaks the kind was reported failing.
 */
describe("a watch that stays silent", () => {
  test("is not broken by the runtime's idle timeout: no reopen, no failure, and the next change still arrives", async () => {
    const child = spawn(process.execPath, [join(import.meta.dirname, "testdata", "quiet-watch.ts")], {
      env: { ...process.env, BUN_CONFIG_HTTP_IDLE_TIMEOUT: "1", QUIET_SECONDS: "20" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += String(chunk);
    });
    expect(await new Promise((resolve) => child.on("close", resolve))).toBe(0);
    const { logs, events } = JSON.parse(out.trim().split("\n").at(-1)!) as { logs: string[]; events: string[] };
    expect(events).toEqual(["ADDED late"]);
    expect(logs.filter((l) => /stream ended|timed out|failing|retrying/.test(l))).toEqual([]);
  }, 90_000);
});
