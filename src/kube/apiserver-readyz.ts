import type { KubeConnection } from "./connection.ts";

/** What the API server says of its own readiness (`/readyz?verbose`). `failing` lists the checks marked `[-]`. */
export interface ApiServerReadiness {
  readonly ok: boolean;
  readonly failing: readonly string[];
}

/**
 * Reads `/readyz?verbose` (spec 5.5: `get` on the non-resource URL /readyz). Returns undefined when it cannot be
 * read at all (then mon's own watches say more); never throws.
 */
export async function readApiServerReadiness(
  connection: KubeConnection,
  signal?: AbortSignal,
): Promise<ApiServerReadiness | undefined> {
  try {
    const response = await connection.request("/readyz?verbose", {
      headers: { accept: "text/plain" },
      ...(signal ? { signal } : {}),
    });
    const text = await response.text();
    if (response.status === 401 || response.status === 403 || response.status === 404) return undefined;
    const failing = [...text.matchAll(/^\[-\]([^\s]+) failed/gm)].map((m) => m[1]!);
    return {
      ok: response.ok && failing.length === 0,
      failing: response.ok ? failing : failing.length ? failing : ["readyz"],
    };
  } catch {
    return undefined;
  }
}
