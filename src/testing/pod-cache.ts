import type { KubeConnection } from "../kube/connection.ts";
import { createInformer } from "../kube/informer.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { KubeObject } from "../sim/store.ts";

/**
 * Every pod of a real cluster as an informer keeps it, by `namespace/name`: what a story's steps read of the
 * pods the controllers made (their names, to act on one). Not started until `start()`.
 */
export function podCache(
  connection: KubeConnection,
  clock: Clock,
  logger: Logger,
): { pods: ReadonlyMap<string, KubeObject>; start(): void; stop(): void } {
  const pods = new Map<string, KubeObject>();
  const informer = createInformer({
    connection,
    kind: { kind: "Pod", path: "/api/v1/pods" },
    clock,
    logger,
    onEvent: (type, o) => {
      const key = `${o.metadata.namespace}/${o.metadata.name}`;
      if (type === "DELETED") pods.delete(key);
      else pods.set(key, o);
    },
    onState: () => {},
  });
  return { pods, start: () => informer.start(), stop: () => informer.stop() };
}
