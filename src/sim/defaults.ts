/** Applies the defaults kube-apiserver fills on create, for the fields clients read (fixtures writes/pod-0*). */
export function applyCreateDefaults(kind: string, object: Record<string, any>, random: () => string): void {
  if (kind === "Pod") defaultPod(object, random);
  if (kind === "Namespace") {
    object.metadata.labels = { ...(object.metadata.labels ?? {}), "kubernetes.io/metadata.name": object.metadata.name };
    object.spec = { finalizers: ["kubernetes"], ...(object.spec ?? {}) };
    object.status = { phase: "Active" };
  }
  if (kind === "Service") {
    const spec = (object.spec ??= {});
    spec.type ??= "ClusterIP";
    spec.sessionAffinity ??= "None";
    spec.ipFamilies ??= ["IPv4"];
    spec.ipFamilyPolicy ??= "SingleStack";
    spec.internalTrafficPolicy ??= "Cluster";
    object.status ??= { loadBalancer: {} };
  }
  if (kind === "Deployment") {
    const spec = (object.spec ??= {});
    spec.replicas ??= 1;
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
    spec.strategy ??= { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } };
  }
}

/** QoS class of a pod spec, as the apiserver computes it on create. */
export function qosClass(spec: Record<string, any>): "Guaranteed" | "Burstable" | "BestEffort" {
  const containers: any[] = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  const any = containers.some(
    (c) => Object.keys(c.resources?.requests ?? {}).length || Object.keys(c.resources?.limits ?? {}).length,
  );
  if (!any) return "BestEffort";
  const guaranteed = containers.every((c) => {
    const limits = c.resources?.limits ?? {};
    const requests = c.resources?.requests ?? limits;
    return ["cpu", "memory"].every(
      (r) => limits[r] !== undefined && String(requests[r] ?? limits[r]) === String(limits[r]),
    );
  });
  return guaranteed ? "Guaranteed" : "Burstable";
}

// --- internal ---

function defaultPod(pod: Record<string, any>, random: () => string): void {
  const spec = (pod.spec ??= {});
  const volume = `kube-api-access-${random()}`;
  if (spec.automountServiceAccountToken !== false) {
    spec.volumes = [
      ...(spec.volumes ?? []),
      {
        name: volume,
        projected: {
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
            { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
            {
              downwardAPI: {
                items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
              },
            },
          ],
          defaultMode: 420,
        },
      },
    ];
  }
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    c.resources ??= {};
    if (spec.automountServiceAccountToken !== false) {
      c.volumeMounts = [
        ...(c.volumeMounts ?? []),
        { name: volume, readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" },
      ];
    }
    c.terminationMessagePath ??= "/dev/termination-log";
    c.terminationMessagePolicy ??= "File";
    c.imagePullPolicy ??= /:latest$|^[^:@]+$/.test(String(c.image ?? "")) ? "Always" : "IfNotPresent";
  }
  spec.restartPolicy ??= "Always";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= "ClusterFirst";
  spec.serviceAccountName ??= "default";
  spec.serviceAccount ??= spec.serviceAccountName;
  spec.securityContext ??= {};
  spec.schedulerName ??= "default-scheduler";
  spec.tolerations = [
    ...(spec.tolerations ?? []),
    { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
  ];
  spec.priority ??= 0;
  spec.enableServiceLinks ??= true;
  spec.preemptionPolicy ??= "PreemptLowerPriority";
  pod.status = { phase: "Pending", qosClass: qosClass(spec) };
}
