import type { KubeConnection } from "./connection.ts";
import type { WatchTarget } from "./kinds.ts";

/**
 * Checks with SelfSubjectAccessReview that mon may `list` and `watch` each target before its watch starts
 * (spec 5.5), at most `concurrency` reviews at a time. Returns the targets allowed and those denied. A review
 * that cannot be made (the server refuses the review itself) counts as allowed: the informer then finds out
 * and reports it.
 */
export async function checkAccess(
  connection: KubeConnection,
  targets: readonly WatchTarget[],
  options: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<{ allowed: WatchTarget[]; denied: WatchTarget[] }> {
  const allowed: WatchTarget[] = [];
  const denied: WatchTarget[] = [];
  const queue = [...targets];
  const review = async (target: WatchTarget, verb: string): Promise<boolean> => {
    const body = {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: {
        resourceAttributes: {
          verb,
          group: target.group,
          resource: target.resource,
          ...(target.namespace ? { namespace: target.namespace } : {}),
        },
      },
    };
    try {
      const response = await connection.request("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (!response.ok) return true;
      const answer = (await response.json()) as { status?: { allowed?: boolean } };
      return answer.status?.allowed !== false;
    } catch {
      return true;
    }
  };
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const ok = (await review(next, "list")) && (await review(next, "watch"));
      (ok ? allowed : denied).push(next);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker));
  const order = new Map(targets.map((t, i) => [t, i]));
  const byOrder = (a: WatchTarget, b: WatchTarget) => (order.get(a) ?? 0) - (order.get(b) ?? 0);
  return { allowed: allowed.sort(byOrder), denied: denied.sort(byOrder) };
}
