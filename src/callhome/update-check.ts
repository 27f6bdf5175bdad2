import type { HttpClient } from "../outbound/client.ts";
import type { Logger } from "../runtime/logger.ts";

/** How long the update check may take (it never delays anything: it runs after startup). */
const TIMEOUT_MS = 3_000;

/**
 * The update check at startup (spec 9.4, 2.1 `upgrader.disableUpdateCheck`, SKIP_UPGRADE_CHECK): GET
 * `{url}/v1/latest` → `{"version": "x.y.z"}`. Resolves the newer version when there is one, else undefined;
 * offline, a bad answer or a timeout resolve undefined with one debug line, so an air-gapped install sees
 * nothing.
 */
export async function checkForUpdate(options: {
  url: string;
  http: HttpClient;
  version: string;
  logger: Logger;
}): Promise<string | undefined> {
  try {
    const answer = await options.http.request({
      method: "GET",
      url: `${options.url.replace(/\/+$/, "")}/v1/latest`,
      headers: { "user-agent": `mon/${options.version}` },
      timeoutMs: TIMEOUT_MS,
    });
    if (answer.status !== 200) throw new Error(`HTTP ${answer.status}`);
    const latest = (JSON.parse(answer.body) as { version?: unknown }).version;
    if (typeof latest !== "string" || !/^\d+\.\d+\.\d+/.test(latest)) throw new Error("no version in the answer");
    return newer(latest, options.version) ? latest : undefined;
  } catch (error) {
    options.logger.debug(`update check: ${(error as Error).message.split("\n")[0]}`);
    return undefined;
  }
}

/** True when semantic version `a` is newer than `b` (pre-release tags sort before their release). */
export function newer(a: string, b: string): boolean {
  const parse = (v: string) => {
    const [core = "", pre] = v.replace(/^v/, "").split("-", 2);
    return { nums: core.split(".").map((n) => Number(n) || 0), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  if (x.pre === y.pre) return false;
  if (!x.pre) return true;
  if (!y.pre) return false;
  return x.pre > y.pre;
}
