import type { KubeObject } from "../store.ts";
import { controllerRef, ensureRevision, nameHash, ownedBy, podActive, podReady } from "./api.ts";
import type { Controller } from "./controller.ts";

const REVISION = "controller-revision-hash";

/**
 * The StatefulSet controller (OrderedReady): pods `<name>-0 … <name>-N-1` created one at a time, each after the
 * one before is Ready; scale-down and rolling update from the highest ordinal, one pod at a time; a claim per
 * volumeClaimTemplate and ordinal, Bound at once (the simulator has no storage provisioner to wait for).
 */
export const statefulSetController: Controller = {
  name: "statefulset",
  sync(api) {
    const pods = api.list("Pod");
    for (const sts of api.list("StatefulSet")) {
      const ns = sts.metadata.namespace;
      const name = sts.metadata.name;
      const revision = ensureRevision(api, sts, sts.spec?.template ?? {}, nameHash(sts.spec?.template ?? {}));
      const replicas = sts.spec?.replicas ?? 1;
      const mine = ownedBy(pods, sts);
      const byOrdinal = new Map(mine.map((p) => [Number(p.metadata.name.slice(name.length + 1)), p]));
      let busy = mine.some((p) => p.metadata.deletionTimestamp);
      for (let i = 0; i < replicas && !busy; i++) {
        const pod = byOrdinal.get(i);
        if (!pod) {
          createOrdinal(api, sts, i, revision);
          busy = true;
        } else if (!podReady(pod)) busy = true;
      }
      if (!busy) {
        const surplus = [...byOrdinal.keys()].filter((i) => i >= replicas).sort((a, b) => b - a)[0];
        const stale = [...byOrdinal.entries()]
          .filter(([i, p]) => i < replicas && p.metadata.labels?.[REVISION] !== revision)
          .sort((a, b) => b[0] - a[0])[0];
        const victim = surplus !== undefined ? byOrdinal.get(surplus) : stale?.[1];
        if (victim) api.remove("Pod", ns, victim.metadata.name);
      }
      const fresh = ownedBy(api.list("Pod", ns), sts).filter(podActive);
      const ready = fresh.filter(podReady).length;
      const updated = fresh.filter((p) => p.metadata.labels?.[REVISION] === revision).length;
      api.setStatus(sts, {
        observedGeneration: sts.metadata.generation,
        replicas: fresh.length,
        readyReplicas: ready,
        currentReplicas: updated,
        updatedReplicas: updated,
        availableReplicas: ready,
        currentRevision: revision,
        updateRevision: revision,
        collisionCount: 0,
      });
    }
    return undefined;
  },
};

// --- internal ---

function createOrdinal(api: Parameters<Controller["sync"]>[0], sts: KubeObject, i: number, revision: string): void {
  const ns = sts.metadata.namespace;
  const podName = `${sts.metadata.name}-${i}`;
  const template = sts.spec?.template ?? {};
  const volumes = [...(template.spec?.volumes ?? [])];
  for (const claim of sts.spec?.volumeClaimTemplates ?? []) {
    const claimName = `${claim.metadata.name}-${podName}`;
    if (!api.get("PersistentVolumeClaim", ns, claimName)) {
      const created = api.create("PersistentVolumeClaim", ns, {
        metadata: { name: claimName, labels: { ...(template.metadata?.labels ?? {}) } },
        spec: {
          ...claim.spec,
          volumeMode: claim.spec?.volumeMode ?? "Filesystem",
          volumeName: `pvc-${nameHash(claimName, 8)}`,
        },
      });
      api.setStatus(created, {
        phase: "Bound",
        accessModes: claim.spec?.accessModes ?? ["ReadWriteOnce"],
        capacity: { storage: claim.spec?.resources?.requests?.storage ?? "1Gi" },
      });
    }
    volumes.push({ name: claim.metadata.name, persistentVolumeClaim: { claimName } });
  }
  const pod = api.create("Pod", ns, {
    metadata: {
      name: podName,
      labels: {
        ...(template.metadata?.labels ?? {}),
        [REVISION]: revision,
        "statefulset.kubernetes.io/pod-name": podName,
        "apps.kubernetes.io/pod-index": String(i),
      },
      ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      ownerReferences: [controllerRef(sts)],
    },
    spec: { ...structuredClone(template.spec ?? {}), volumes, hostname: podName, subdomain: sts.spec?.serviceName },
  });
  api.event(
    sts,
    "Normal",
    "SuccessfulCreate",
    `create Pod ${pod.metadata.name} in StatefulSet ${sts.metadata.name} successful`,
    "statefulset-controller",
  );
}
