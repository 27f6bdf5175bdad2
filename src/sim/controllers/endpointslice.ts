import { canonical, type KubeObject, timestamp } from "../store.ts";
import { controllerRef, nameHash, podReady } from "./api.ts";
import type { Controller } from "./controller.ts";
import type { TimingProfile } from "./timing.ts";

const SERVICE_NAME = "kubernetes.io/service-name";
/** When the change a write of an EndpointSlice carries happened (kube-controller-manager's annotation). */
const TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";

/**
 * The EndpointSlice and Endpoints controllers: for every Service with a selector, one EndpointSlice (and the
 * Endpoints object) listing the selected pods that have an IP, each with the conditions kube-controller-manager
 * writes: `ready` (pod Ready and not terminating), `serving` (pod Ready), `terminating`. Ports are the
 * Service's target ports, a named one resolved from the first selected pod's container ports. A Service's change
 * is written `timing.endpointSliceLagMs` after the first pod change that caused it, every change of that
 * window in one write (`--endpointslice-updates-batch-period`).
 */
export function createEndpointSliceController(timing: TimingProfile): Controller {
  // When each Service's pending change is written, and when the change that triggered it happened (epoch ms).
  const due = new Map<string, { at: number; triggeredAt: number }>();
  return {
    name: "endpointslice",
    sync(api) {
      let wake: number | undefined;
      const cluster = { pods: api.list("Pod"), slices: api.list("EndpointSlice") };
      for (const svc of api.list("Service")) {
        const key = `${svc.metadata.namespace}/${svc.metadata.name}`;
        const pending = due.get(key);
        if (pending === undefined && !writeService(api, cluster, svc, api.now(), true)) continue;
        if (timing.endpointSliceLagMs <= 0 || (pending !== undefined && api.now() >= pending.at)) {
          due.delete(key);
          writeService(api, cluster, svc, pending?.triggeredAt ?? api.now(), false);
          continue;
        }
        const next = pending ?? { at: api.now() + timing.endpointSliceLagMs, triggeredAt: api.now() };
        due.set(key, next);
        wake = Math.min(wake ?? next.at, next.at);
      }
      return wake;
    },
  };
}

// --- internal ---

/**
 * Writes the EndpointSlice and Endpoints of `svc` (or, with `dryRun`, only says whether they would change),
 * annotated with when the change that triggered the write happened (`triggeredAt`, epoch ms), as
 * kube-controller-manager does. Returns true when they differ from what is stored.
 */
function writeService(
  api: Parameters<Controller["sync"]>[0],
  { pods, slices }: { pods: readonly KubeObject[]; slices: readonly KubeObject[] },
  svc: KubeObject,
  triggeredAt: number,
  dryRun: boolean,
): boolean {
  const selector = svc.spec?.selector;
  if (!selector || Object.keys(selector).length === 0 || svc.spec?.type === "ExternalName") return false;
  const ns = svc.metadata.namespace;
  const selected = pods.filter(
    (p) =>
      p.metadata.namespace === ns &&
      p.status?.podIP &&
      p.status?.phase !== "Succeeded" &&
      p.status?.phase !== "Failed" &&
      Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v),
  );
  const endpoints = selected
    .map((p) => ({
      addresses: [p.status.podIP],
      conditions: {
        ready: podReady(p) && !p.metadata.deletionTimestamp,
        serving: podReady(p),
        terminating: Boolean(p.metadata.deletionTimestamp),
      },
      nodeName: p.spec.nodeName,
      targetRef: { kind: "Pod", namespace: ns, name: p.metadata.name, uid: p.metadata.uid },
    }))
    .sort((a, b) => a.targetRef.name.localeCompare(b.targetRef.name));
  const ports = (svc.spec?.ports ?? []).map((port: KubeObject) => ({
    name: port.name ?? "",
    port: targetPort(port, selected[0]),
    protocol: port.protocol ?? "TCP",
  }));
  const existing = slices.find(
    (s) => s.metadata.namespace === ns && s.metadata.labels?.[SERVICE_NAME] === svc.metadata.name,
  );
  const body = {
    metadata: {
      ...(existing?.metadata ?? { name: `${svc.metadata.name}-${nameHash(svc.metadata.uid, 5)}` }),
      annotations: { ...(existing?.metadata?.annotations ?? {}), [TRIGGER_TIME]: timestamp(triggeredAt) },
      labels: {
        ...(svc.metadata.labels ?? {}),
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
        [SERVICE_NAME]: svc.metadata.name,
      },
      ownerReferences: [controllerRef(svc)],
    },
    addressType: "IPv4",
    endpoints,
    ports,
  };
  const changed =
    !existing || canonical([existing.endpoints ?? [], existing.ports ?? []]) !== canonical([endpoints, ports]);
  if (dryRun) return changed;
  if (existing) api.update({ ...existing, ...body });
  else api.create("EndpointSlice", ns, body);
  writeEndpoints(api, svc, endpoints, ports);
  return changed;
}

function targetPort(port: KubeObject, pod: KubeObject | undefined): number {
  const target = port.targetPort ?? port.port;
  if (typeof target === "number") return target;
  for (const c of pod?.spec?.containers ?? [])
    for (const p of c.ports ?? []) if (p.name === target) return p.containerPort;
  return port.port;
}

function writeEndpoints(
  api: Parameters<Controller["sync"]>[0],
  svc: KubeObject,
  endpoints: readonly KubeObject[],
  ports: readonly KubeObject[],
): void {
  const address = (e: KubeObject) => ({ ip: e.addresses[0], nodeName: e.nodeName, targetRef: e.targetRef });
  const ready = endpoints.filter((e) => e.conditions.ready).map(address);
  const notReady = endpoints.filter((e) => !e.conditions.ready && !e.conditions.terminating).map(address);
  const subsets =
    ready.length + notReady.length === 0
      ? undefined
      : [
          {
            ...(ready.length ? { addresses: ready } : {}),
            ...(notReady.length ? { notReadyAddresses: notReady } : {}),
            ports: ports.map((p) => ({ ...p, name: p.name || undefined })),
          },
        ];
  const ns = svc.metadata.namespace;
  const existing = api.get("Endpoints", ns, svc.metadata.name);
  const body = { metadata: { name: svc.metadata.name, labels: svc.metadata.labels }, ...(subsets ? { subsets } : {}) };
  if (existing) api.update({ ...existing, metadata: { ...existing.metadata, labels: svc.metadata.labels }, subsets });
  else api.create("Endpoints", ns, body);
}
