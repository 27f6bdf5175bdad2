import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeConnection } from "../kube/connection.ts";
import { LineSplitter } from "../kube/lines.ts";
import type { KubeObject } from "../sim/store.ts";
import type { TimelineEvent, TimelineLog } from "../sim/timeline.ts";
import { readContainerLog } from "../kube/pod-logs.ts";

/**
 * A watch-event timeline recorder (issue 50: real-kubelet timelines for the fixtures), in the format of the
 * recorded timelines (src/sim/testdata/kube-apiserver-v1.32/timelines/README.md): the in-scope objects of a LIST
 * of each kind at t=0 (`initial.json`, with `kind` and `apiVersion` added), and every watch event from the lists'
 * resourceVersions on (`events.jsonl`, `{t, type, object}`, `t` in seconds since t=0). In scope: the objects of
 * one namespace, that Namespace, the named nodes, their Leases in kube-node-lease, and the Events about those
 * nodes; and what each container instance printed as it ended (`logs.jsonl`, read through `pods/log`), which a
 * replay serves as the simulator's logs at its second.
 */

/** The kinds recorded, with their collection paths: what mon's detectors read of a story. */
const RECORDED: readonly (readonly [string, string, string])[] = [
  ["Pod", "v1", "/api/v1/pods"],
  ["Node", "v1", "/api/v1/nodes"],
  ["Namespace", "v1", "/api/v1/namespaces"],
  ["Service", "v1", "/api/v1/services"],
  ["ConfigMap", "v1", "/api/v1/configmaps"],
  ["Secret", "v1", "/api/v1/secrets"],
  ["PersistentVolumeClaim", "v1", "/api/v1/persistentvolumeclaims"],
  ["Event", "v1", "/api/v1/events"],
  ["EndpointSlice", "discovery.k8s.io/v1", "/apis/discovery.k8s.io/v1/endpointslices"],
  ["Deployment", "apps/v1", "/apis/apps/v1/deployments"],
  ["ReplicaSet", "apps/v1", "/apis/apps/v1/replicasets"],
  ["StatefulSet", "apps/v1", "/apis/apps/v1/statefulsets"],
  ["DaemonSet", "apps/v1", "/apis/apps/v1/daemonsets"],
  ["ControllerRevision", "apps/v1", "/apis/apps/v1/controllerrevisions"],
  ["Job", "batch/v1", "/apis/batch/v1/jobs"],
  ["CronJob", "batch/v1", "/apis/batch/v1/cronjobs"],
  ["Lease", "coordination.k8s.io/v1", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"],
];

/** A recording in progress. */
export interface TimelineRecording {
  /** Ends the watches and writes the timeline into `dir` (created), with `readme` as its README.md. */
  write(dir: string, readme: string): { events: number; initial: number; logs: number };
  stop(): void;
}

/**
 * Starts recording what `namespace` and `nodes` go through: lists every kind now, then watches each from its
 * list's resourceVersion; an event's `t` counts from `zeroMs()` (epoch ms, asked when it arrives: the story's
 * start, once known). Resolves once every list is taken.
 */
export async function recordTimeline(
  connection: KubeConnection,
  scope: { namespace: string; nodes: readonly string[]; zeroMs: () => number },
): Promise<TimelineRecording> {
  const abort = new AbortController();
  const initial: KubeObject[] = [];
  const events: TimelineEvent[] = [];
  const inScope = (kind: string, o: KubeObject) =>
    kind === "Namespace"
      ? o.metadata?.name === scope.namespace
      : kind === "Node"
        ? scope.nodes.includes(o.metadata?.name)
        : kind === "Lease"
          ? scope.nodes.includes(o.metadata?.name)
          : kind === "Event" && o.involvedObject?.kind === "Node"
            ? scope.nodes.includes(o.involvedObject?.name)
            : o.metadata?.namespace === scope.namespace;
  // What each container instance printed, read as it ended (its current log) or once the next runs (previous).
  const logs: TimelineLog[] = [];
  const captured = new Set<string>();
  const captureLogs = (pod: KubeObject, t: number) => {
    for (const s of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])])
      for (const [ended, previous] of [
        [s.state?.terminated, false],
        [s.lastState?.terminated, true],
      ] as const) {
        const id = ended?.containerID;
        if (!id || captured.has(id)) continue;
        captured.add(id);
        const ref = { namespace: pod.metadata.namespace, pod: pod.metadata.name, container: s.name, previous };
        void readContainerLog(connection, ref).then((read) => {
          if ("text" in read && read.text)
            logs.push({ t, namespace: ref.namespace, pod: ref.pod, container: s.name, text: read.text });
        });
      }
  };
  for (const [kind, apiVersion, path] of RECORDED) {
    const list = await connection.getJson<{ metadata: { resourceVersion: string }; items: KubeObject[] }>(path);
    for (const o of list.items) if (inScope(kind, o)) initial.push({ kind, apiVersion, ...o });
    void (async () => {
      const response = await connection.request(
        `${path}?watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=7200`,
        { signal: abort.signal, stream: true },
      );
      const reader = response.body!.getReader();
      const lines = new LineSplitter();
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        lines.push(chunk.value, (line) => {
          const event = JSON.parse(line) as { type: TimelineEvent["type"] | "BOOKMARK"; object: KubeObject };
          if (event.type === "BOOKMARK" || !inScope(kind, event.object)) return;
          const t = Math.round((Date.now() - scope.zeroMs()) / 100) / 10;
          events.push({ t, type: event.type, object: { kind, apiVersion, ...event.object } });
          if (kind === "Pod") captureLogs(event.object, t);
        });
      }
    })().catch(() => {});
  }
  return {
    write(dir, readme) {
      abort.abort();
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "initial.json"), `${JSON.stringify(initial, null, 1)}\n`);
      const sorted = [...events].sort((a, b) => a.t - b.t);
      writeFileSync(join(dir, "events.jsonl"), `${sorted.map((e) => JSON.stringify(e)).join("\n")}\n`);
      writeFileSync(join(dir, "README.md"), readme);
      const byTime = [...logs].sort((a, b) => a.t - b.t);
      writeFileSync(
        join(dir, "logs.jsonl"),
        byTime.map((l) => JSON.stringify(l)).join("\n") + (byTime.length ? "\n" : ""),
      );
      return { events: sorted.length, initial: initial.length, logs: byTime.length };
    },
    stop: () => abort.abort(),
  };
}
