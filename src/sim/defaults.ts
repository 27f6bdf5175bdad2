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
    if (spec.type !== "ExternalName" && spec.clusterIP === undefined) {
      // The service IP allocator's range on kubeadm clusters (10.96.0.0/12).
      spec.clusterIP = `10.96.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
      spec.clusterIPs = [spec.clusterIP];
    }
    object.status ??= { loadBalancer: {} };
  }
  if (kind === "Secret") object.type ||= "Opaque";
  if (kind === "Job") {
    const spec = (object.spec ??= {});
    const uid = object.metadata.uid;
    spec.parallelism ??= 1;
    spec.completions ??= 1;
    spec.backoffLimit ??= 6;
    spec.completionMode ??= "NonIndexed";
    spec.suspend ??= false;
    spec.podReplacementPolicy ??= "TerminatingOrFailed";
    spec.selector ??= { matchLabels: { "batch.kubernetes.io/controller-uid": uid } };
    const template = (spec.template ??= {});
    template.metadata = {
      ...template.metadata,
      labels: {
        ...(template.metadata?.labels ?? {}),
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": object.metadata.name,
        "controller-uid": uid,
        "job-name": object.metadata.name,
      },
    };
    // A Job without labels gets its template's, as the apiserver defaults it.
    if (!object.metadata.labels || Object.keys(object.metadata.labels).length === 0)
      object.metadata.labels = { ...template.metadata.labels };
  }
  if (kind === "StatefulSet") {
    const spec = (object.spec ??= {});
    spec.replicas ??= 1;
    spec.podManagementPolicy ??= "OrderedReady";
    spec.updateStrategy ??= { type: "RollingUpdate", rollingUpdate: { partition: 0 } };
    spec.revisionHistoryLimit ??= 10;
  }
  if (kind === "DaemonSet") {
    const spec = (object.spec ??= {});
    spec.updateStrategy ??= { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
    spec.revisionHistoryLimit ??= 10;
  }
  if (kind === "Deployment") {
    const spec = (object.spec ??= {});
    spec.replicas ??= 1;
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
    if (!spec.strategy?.type) spec.strategy = { type: "RollingUpdate", ...spec.strategy };
    if (spec.strategy.type === "RollingUpdate")
      spec.strategy.rollingUpdate = { maxUnavailable: "25%", maxSurge: "25%", ...spec.strategy.rollingUpdate };
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
    for (const port of c.ports ?? []) port.protocol ??= "TCP";
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
  // The DefaultTolerationSeconds admission plugin adds each only when the pod does not tolerate the taint itself.
  const tolerations: Record<string, any>[] = [...(spec.tolerations ?? [])];
  for (const key of ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]) {
    if (!tolerations.some((t) => t.key === key || (t.operator === "Exists" && !t.key)))
      tolerations.push({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });
  }
  spec.tolerations = tolerations;
  spec.priority ??= 0;
  spec.enableServiceLinks ??= true;
  spec.preemptionPolicy ??= "PreemptLowerPriority";
  pod.status = { phase: "Pending", qosClass: qosClass(spec) };
}
