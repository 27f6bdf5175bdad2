import type { KubeObject } from "../store.ts";
import { type ControllerApi, controllerRef, nameHash, ownedBy, withCondition } from "./api.ts";
import type { Controller } from "./controller.ts";

const HASH = "pod-template-hash";
const REVISION = "deployment.kubernetes.io/revision";

/**
 * The Deployment controller: one ReplicaSet per pod template (named `<deployment>-<pod-template-hash>`), a
 * RollingUpdate that never goes above `replicas + maxSurge` pods nor below `replicas - maxUnavailable`
 * available ones (the same two steps as kube-controller-manager: scale the new ReplicaSet up, then clean up
 * unhealthy and scale down old ones), Recreate, plain scaling, and the status with its Available and
 * Progressing conditions (ProgressDeadlineExceeded after `progressDeadlineSeconds` without progress).
 */
export function createDeploymentController(): Controller {
  const progress = new Map<string, { signature: string; at: number }>();
  return {
    name: "deployment",
    sync(api) {
      let wake: number | undefined;
      const sets = api.list("ReplicaSet");
      for (const d of api.list("Deployment")) {
        const mine = ownedBy(sets, d);
        const found = mine.find((rs) => sameTemplate(rs, d));
        const newRs = found ?? createReplicaSet(api, d, mine);
        const olds = mine.filter((rs) => rs !== newRs);
        if (!d.spec?.paused) rollout(api, d, newRs, olds);
        const revision = newRs.metadata.annotations?.[REVISION];
        const current = d.metadata.annotations?.[REVISION];
        const fresh =
          revision && revision !== current
            ? api.update({
                ...d,
                metadata: { ...d.metadata, annotations: { ...d.metadata.annotations, [REVISION]: revision } },
              })
            : d;
        const next = writeStatus(api, fresh, progress, found ? undefined : newRs.metadata.name);
        if (next !== undefined) wake = Math.min(wake ?? next, next);
      }
      return wake;
    },
  };
}

// --- internal ---

function templateOf(d: KubeObject): KubeObject {
  return d.spec?.template ?? {};
}

function withoutHash(template: KubeObject): KubeObject {
  const labels = { ...(template.metadata?.labels ?? {}) };
  delete labels[HASH];
  return { ...template, metadata: { ...template.metadata, labels } };
}

function sameTemplate(rs: KubeObject, d: KubeObject): boolean {
  return JSON.stringify(withoutHash(rs.spec?.template ?? {})) === JSON.stringify(withoutHash(templateOf(d)));
}

function createReplicaSet(api: ControllerApi, d: KubeObject, existing: readonly KubeObject[]): KubeObject {
  const hash = nameHash(withoutHash(templateOf(d)));
  const template = structuredClone(templateOf(d));
  template.metadata = { ...template.metadata, labels: { ...(template.metadata?.labels ?? {}), [HASH]: hash } };
  const revision = Math.max(0, ...existing.map((rs) => Number(rs.metadata.annotations?.[REVISION] ?? 0))) + 1;
  const rs = api.create("ReplicaSet", d.metadata.namespace, {
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      labels: template.metadata.labels,
      annotations: {
        "deployment.kubernetes.io/desired-replicas": String(d.spec?.replicas ?? 1),
        "deployment.kubernetes.io/max-replicas": String((d.spec?.replicas ?? 1) + surgeOf(d)),
        [REVISION]: String(revision),
      },
      ownerReferences: [controllerRef(d)],
    },
    spec: {
      replicas: 0,
      selector: { ...d.spec?.selector, matchLabels: { ...(d.spec?.selector?.matchLabels ?? {}), [HASH]: hash } },
      template,
    },
  });
  api.event(
    d,
    "Normal",
    "ScalingReplicaSet",
    `Scaled up replica set ${rs.metadata.name} from 0 to 0`,
    "deployment-controller",
  );
  return rs;
}

function scale(api: ControllerApi, d: KubeObject, rs: KubeObject, replicas: number): void {
  const from = rs.spec?.replicas ?? 0;
  if (from === replicas) return;
  api.update({ ...rs, spec: { ...rs.spec, replicas } });
  const verb = replicas > from ? "up" : "down";
  api.event(
    d,
    "Normal",
    "ScalingReplicaSet",
    `Scaled ${verb} replica set ${rs.metadata.name} from ${from} to ${replicas}`,
    "deployment-controller",
  );
}

function percent(value: unknown, of: number, roundUp: boolean): number {
  if (typeof value === "number") return value;
  const m = /^(\d+)%$/.exec(String(value ?? ""));
  if (!m) return Number(value ?? 0) || 0;
  const exact = (Number(m[1]) * of) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

function surgeOf(d: KubeObject): number {
  const ru = d.spec?.strategy?.rollingUpdate ?? {};
  return percent(ru.maxSurge ?? "25%", d.spec?.replicas ?? 1, true);
}

function unavailableOf(d: KubeObject): number {
  const ru = d.spec?.strategy?.rollingUpdate ?? {};
  const value = percent(ru.maxUnavailable ?? "25%", d.spec?.replicas ?? 1, false);
  return value === 0 && surgeOf(d) === 0 ? 1 : value;
}

function rollout(api: ControllerApi, d: KubeObject, newRs: KubeObject, olds: KubeObject[]): void {
  const replicas = d.spec?.replicas ?? 1;
  // Sizes as this sync decides them (the stored objects are never mutated).
  const size = new Map<KubeObject, number>([newRs, ...olds].map((rs) => [rs, rs.spec?.replicas ?? 0]));
  const spec = (rs: KubeObject) => size.get(rs) ?? 0;
  const resize = (rs: KubeObject, to: number) => {
    scale(api, d, rs, to);
    size.set(rs, to);
  };
  const available = (rs: KubeObject) => rs.status?.availableReplicas ?? 0;
  if (olds.every((rs) => spec(rs) === 0 && (rs.status?.replicas ?? 0) === 0) || d.spec?.strategy?.type === "Recreate") {
    for (const rs of olds) resize(rs, 0);
    // Recreate starts the new pods only when every old one is gone.
    if (olds.every((rs) => (rs.status?.replicas ?? 0) === 0)) resize(newRs, replicas);
    return;
  }
  const surge = surgeOf(d);
  const minAvailable = replicas - unavailableOf(d);
  const total = () => [...size.values()].reduce((n, v) => n + v, 0);
  if (spec(newRs) < replicas) resize(newRs, Math.min(replicas, spec(newRs) + Math.max(0, replicas + surge - total())));
  else if (spec(newRs) > replicas) resize(newRs, replicas);
  const newUnavailable = Math.max(0, spec(newRs) - available(newRs));
  let budget = total() - minAvailable - newUnavailable;
  const oldest = [...olds].sort((a, b) =>
    String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)),
  );
  // First the old pods that are not available anyway, then available ones down to minAvailable.
  for (const rs of oldest) {
    const cut = Math.min(Math.max(0, spec(rs) - available(rs)), budget);
    if (cut > 0) {
      resize(rs, spec(rs) - cut);
      budget -= cut;
    }
  }
  const allAvailable = [newRs, ...olds].reduce((n, rs) => n + available(rs), 0);
  let down = Math.min(budget, allAvailable - minAvailable);
  for (const rs of oldest) {
    const cut = Math.min(spec(rs), down);
    if (cut > 0) {
      resize(rs, spec(rs) - cut);
      down -= cut;
    }
  }
}

/** Writes the Deployment's status; `created` names the ReplicaSet this sync created for a new template. */
function writeStatus(
  api: ControllerApi,
  d: KubeObject,
  progress: Map<string, { signature: string; at: number }>,
  created?: string,
): number | undefined {
  const fresh = ownedBy(api.list("ReplicaSet", d.metadata.namespace), d);
  const newRs = fresh.find((rs) => sameTemplate(rs, d));
  const sum = (f: (rs: KubeObject) => number) => fresh.reduce((n, rs) => n + f(rs), 0);
  const replicas = d.spec?.replicas ?? 1;
  const total = sum((rs) => rs.status?.replicas ?? 0);
  const updated = newRs?.status?.replicas ?? 0;
  const ready = sum((rs) => rs.status?.readyReplicas ?? 0);
  const available = sum((rs) => rs.status?.availableReplicas ?? 0);
  const now = api.now();
  const complete = updated === replicas && available === replicas && total === replicas;
  const signature = `${newRs?.metadata.name}/${newRs?.spec?.replicas}/${updated}/${ready}/${available}/${total}`;
  const seen = progress.get(d.metadata.uid);
  if (!seen || seen.signature !== signature) progress.set(d.metadata.uid, { signature, at: now });
  const since = progress.get(d.metadata.uid)?.at ?? now;
  const deadlineMs = (d.spec?.progressDeadlineSeconds ?? 600) * 1000;
  const rsName = newRs?.metadata.name ?? d.metadata.name;
  const progressing = complete
    ? {
        type: "Progressing",
        status: "True",
        reason: "NewReplicaSetAvailable",
        message: `ReplicaSet "${rsName}" has successfully progressed.`,
      }
    : now - since >= deadlineMs
      ? {
          type: "Progressing",
          status: "False",
          reason: "ProgressDeadlineExceeded",
          message: `ReplicaSet "${rsName}" has timed out progressing.`,
        }
      : created
        ? {
            type: "Progressing",
            status: "True",
            reason: "NewReplicaSetCreated",
            message: `Created new replica set "${created}"`,
          }
        : {
            type: "Progressing",
            status: "True",
            reason: "ReplicaSetUpdated",
            message: `ReplicaSet "${rsName}" is progressing.`,
          };
  const availableCondition =
    available >= replicas - unavailableOf(d)
      ? {
          type: "Available",
          status: "True",
          reason: "MinimumReplicasAvailable",
          message: "Deployment has minimum availability.",
        }
      : {
          type: "Available",
          status: "False",
          reason: "MinimumReplicasUnavailable",
          message: "Deployment does not have minimum availability.",
        };
  let conditions = withCondition(d.status?.conditions, availableCondition, now, true);
  conditions = withCondition(conditions, progressing, now, true);
  api.setStatus(d, {
    observedGeneration: d.metadata.generation,
    replicas: total,
    updatedReplicas: updated,
    readyReplicas: ready,
    availableReplicas: available,
    ...(replicas - available > 0 ? { unavailableReplicas: replicas - available } : {}),
    conditions,
  });
  return complete || progressing.reason === "ProgressDeadlineExceeded" ? undefined : since + deadlineMs;
}
