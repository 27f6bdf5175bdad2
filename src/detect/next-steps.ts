import type { Incident } from "../model/incident.ts";

/**
 * What an on-call engineer does first for each reason (spec 2.1 runbooks: "added to the next steps"): one or two
 * steps, the first usually the kubectl command that shows the evidence, the second what usually fixes it.
 * `{namespace}`, `{name}`, `{container}` and `{kind}` are filled from the incident's root finding (`{kind}`
 * lower-cased, as kubectl takes it); a step whose placeholder has no value is left out. Every reason of
 * REASONS has an entry, and so have the roots the correlator makes (next-steps.test.ts); docs/reasons.md shows
 * them.
 */
export const NEXT_STEPS: Readonly<Record<string, readonly string[]>> = {
  CrashLoopBackOff: [
    "kubectl -n {namespace} logs {name} -c {container} --previous",
    "Fix what the exit code and the last lines say (configuration, a dependency, the image), then roll out again.",
  ],
  OOMKilled: [
    "kubectl -n {namespace} top pod {name} --containers",
    "Raise the container's memory limit, or find what grew (a leak, a larger input).",
  ],
  ContainerExitedNonZero: [
    "kubectl -n {namespace} logs {name} -c {container}",
    "Fix the cause the exit code names, then run the Job again.",
  ],
  RunContainerError: [
    "kubectl -n {namespace} describe pod {name}",
    "Check the image's entrypoint and command (executable not found, permissions).",
  ],
  CreateContainerConfigError: [
    "kubectl -n {namespace} describe pod {name}",
    "Create the Secret or ConfigMap key it names, or fix the reference.",
  ],
  CreateContainerError: [
    "kubectl -n {namespace} describe pod {name}",
    "Check the mounts and the runtime's message; delete the pod if the name is stuck.",
  ],
  ImagePullBackOff: [
    "kubectl -n {namespace} describe pod {name}",
    "Check the image name and tag, the pull secret and that the registry is reachable from the node.",
  ],
  InvalidImageName: [
    "kubectl -n {namespace} get pod {name} -o jsonpath='{.spec.containers[*].image}'",
    "Fix the image reference in the workload's pod template.",
  ],
  ImageUnavailable: [
    "kubectl -n {namespace} describe pod {name}",
    "Check imagePullPolicy, the registry and the image's signature policy.",
  ],
  ContainerStatusUnknown: [
    "kubectl -n {namespace} describe pod {name}",
    "Delete the pod so its controller replaces it; check the node if it repeats.",
  ],
  InitContainerFailed: [
    "kubectl -n {namespace} logs {name} -c {container} --previous",
    "Fix what the init container waits for or runs (a dependency, a migration).",
  ],
  PodEvicted: [
    "kubectl -n {namespace} describe pod {name}",
    "Give the pod requests and limits that fit, or free the node's disk or memory.",
  ],
  PodPreempted: ["kubectl -n {namespace} get pod {name} -o jsonpath='{.spec.priorityClassName}'"],
  PodAdmissionRejected: [
    "kubectl -n {namespace} describe pod {name}",
    "Delete the pod so its controller schedules a new one; check the node's capacity.",
  ],
  UnexpectedAdmissionError: [
    "kubectl -n {namespace} describe pod {name}",
    "Delete the pod so it is recreated; check the node's device plugins.",
  ],
  PodNodeLost: ["kubectl get nodes"],
  FailedScheduling: [
    "kubectl -n {namespace} describe pod {name}",
    "Add capacity or relax the requests, affinity, taints or topology spread the scheduler's message names.",
  ],
  PodStuckTerminating: [
    "kubectl -n {namespace} get pod {name} -o jsonpath='{.metadata.finalizers}'",
    "Find what holds the finalizer, or check the node; force-delete only when the node is gone.",
  ],
  ReadinessProbeFailing: [
    "kubectl -n {namespace} describe pod {name}",
    "Check what the readiness probe calls and the container's log.",
  ],
  PodNeverReady: ["kubectl -n {namespace} describe pod {name}"],
  WorkloadUnavailable: [
    "kubectl -n {namespace} describe {kind} {name}",
    "kubectl -n {namespace} rollout undo {kind}/{name} if the last rollout broke it.",
  ],
  ProgressDeadlineExceeded: [
    "kubectl -n {namespace} rollout status {kind}/{name}",
    "kubectl -n {namespace} rollout undo {kind}/{name} if the new pods cannot start.",
  ],
  ReplicaCreateFailed: [
    "kubectl -n {namespace} describe {kind} {name}",
    "Fix what refuses the pods: a ResourceQuota, an admission webhook or a missing ServiceAccount.",
  ],
  JobFailed: [
    "kubectl -n {namespace} describe job {name}",
    "Read the failed pods' logs, fix the cause, then run the Job again.",
  ],
  CronJobFailing: [
    "kubectl -n {namespace} get jobs --sort-by=.metadata.creationTimestamp",
    "kubectl -n {namespace} create job --from=cronjob/{name} {name}-manual once it is fixed.",
  ],
  PVCPending: [
    "kubectl -n {namespace} describe pvc {name}",
    "Check the StorageClass's provisioner and the claim's size and access mode.",
  ],
  PVCLost: ["kubectl -n {namespace} describe pvc {name}", "Restore the volume from a backup, or recreate the claim."],
  StorageClassMissing: [
    "kubectl get storageclass",
    "Create the class, mark one default, or set storageClassName on the claim.",
  ],
  PVFailed: ["kubectl describe pv {name}", "Clean up the volume by hand, then delete or recycle it."],
  VolumeAttachmentFailed: [
    "kubectl describe volumeattachment {name}",
    "Check the CSI driver's pods and whether the volume is still attached to another node.",
  ],
  VolumeUsageHigh: [
    "kubectl -n {namespace} describe pvc {name}",
    "Expand the claim (allowVolumeExpansion) or remove old data.",
  ],
  VolumeFull: [
    "kubectl -n {namespace} describe pvc {name}",
    "Expand the claim now (allowVolumeExpansion) or remove data: writes are failing.",
  ],
  VolumeInodesLow: ["kubectl -n {namespace} describe pvc {name}", "Remove many small files, or expand the volume."],
  SecretMissing: [
    "kubectl -n {namespace} get secret {name}",
    "Create the Secret (and the key the pods reference), or fix the reference.",
  ],
  ConfigMapMissing: [
    "kubectl -n {namespace} get configmap {name}",
    "Create the ConfigMap (and the key the pods reference), or fix the reference.",
  ],
  CertificateExpired: [
    "kubectl -n {namespace} describe {kind} {name}",
    "Renew the certificate (cert-manager: check the Certificate's Ready condition and its issuer), then reload what serves it.",
  ],
  CertificateExpiringSoon: [
    "kubectl -n {namespace} describe {kind} {name}",
    "Renew it before it expires; with cert-manager, find why it did not renew (the CertificateRequest, the issuer).",
  ],
  ServiceAccountMissing: [
    "kubectl -n {namespace} get serviceaccount {name}",
    "Create the ServiceAccount, or fix serviceAccountName in the pod template.",
  ],
  FailedMount: [
    "kubectl -n {namespace} describe pod {name}",
    "Check the volume the message names: its Secret, ConfigMap or claim, or the CSI driver.",
  ],
  FailedAttachVolume: [
    "kubectl -n {namespace} describe pod {name}",
    "For Multi-Attach, wait for or remove the pod on the other node that holds the volume.",
  ],
  FailedCreatePodSandBox: [
    "kubectl -n {namespace} describe pod {name}",
    "Check the CNI plugin's pods on the node and the error quoted.",
  ],
  NetworkNotReady: ["kubectl -n kube-system get pods -o wide", "Check the CNI plugin's pods on that node."],
  NodeSystemOOM: [
    "kubectl describe node {name}",
    "Find what used the memory (pods without limits, system daemons); set limits or add memory.",
  ],
  NodeEvicting: ["kubectl describe node {name}", "Free the resource the kubelet reclaims (disk, memory)."],
  NodeImageGCFailed: ["kubectl describe node {name}", "Free disk on the node; check the image filesystem."],
  ServiceNoReadyEndpoints: [
    "kubectl -n {namespace} get endpointslices -l kubernetes.io/service-name={name}",
    "Fix the pods behind the Service: why are they not ready?",
  ],
  ServiceSelectorMatchesNothing: [
    "kubectl -n {namespace} get service {name} -o jsonpath='{.spec.selector}'",
    "Fix the selector or the pods' labels.",
  ],
  IngressBackendMissing: [
    "kubectl -n {namespace} describe ingress {name}",
    "Create the Service and port it names, or fix the Ingress.",
  ],
  APIServerUnreachable: [
    "kubectl get --raw='/readyz?verbose'",
    "Check the kube-apiserver processes and their logs, etcd (the failing check /readyz names), and the network between mon's node and the control plane.",
  ],
  APIServerUnhealthy: ["kubectl get --raw='/readyz?verbose'", "Check the failing checks it lists (etcd first)."],
  NetworkPolicyBlocksTraffic: [
    "kubectl -n {namespace} get networkpolicy",
    "Allow the traffic the failing pods need (DNS, their dependencies) in a NetworkPolicy.",
  ],
  ClusterDNSUnavailable: [
    "kubectl -n kube-system get pods -l k8s-app=kube-dns",
    "Bring the cluster DNS pods back (their logs, their node).",
  ],
  ControlPlaneLeaderLost: [
    "kubectl -n kube-system get leases",
    "Check the controller-manager and scheduler pods or processes.",
  ],
  APIServerErrorRate: ["kubectl get --raw='/readyz?verbose'", "Check the API server's log and etcd."],
  ClusterDNSErrors: [
    "kubectl -n kube-system logs -l k8s-app=kube-dns --tail=50",
    "Check the upstream resolvers and the zones that fail.",
  ],
  ClusterDNSUpstreamDown: [
    "kubectl -n kube-system logs -l k8s-app=kube-dns --tail=50",
    "Check the upstream resolvers the cluster DNS forwards to.",
  ],
  ActiveProbeFailure: ["Reach the probed target from a pod in the cluster; check the service behind it."],
  ActiveProbeSlow: ["Check the target's latency and load."],
  ActiveProbeTooSlow: ["Check the target's latency and load; the probe's timeout is reached."],
  NodeNotReady: [
    "kubectl describe node {name}",
    "Check the kubelet and the container runtime on the node, or drain and replace it.",
  ],
  NodeLost: [
    "kubectl describe node {name}",
    "Check the machine (power, network); replace the node if it does not come back.",
  ],
  NodeMemoryPressure: ["kubectl describe node {name}", "Set memory limits on the heaviest pods, or add memory."],
  NodeDiskPressure: ["kubectl describe node {name}", "Free disk (images, logs, emptyDir volumes) or enlarge it."],
  NodeNetworkUnavailable: ["kubectl describe node {name}", "Check the CNI plugin and routes on the node."],
  NodeRebooted: [
    "kubectl describe node {name}",
    "Check why the node rebooted (a kernel panic, maintenance) in its system log.",
  ],
  NodePIDPressure: [
    "kubectl describe node {name}",
    "Find the pods that start too many processes; set a pod PID limit.",
  ],
  // Roots the correlator makes (correlate/): steps about the root object itself.
  DependencyUnreachable: [
    "Check that {name} is up and reachable from the cluster: its Service and endpoints, DNS, a NetworkPolicy.",
  ],
  SharedError: ["Check what the shared error line names: one dependency or setting the workloads have in common."],
  NodeHeartbeatGap: [
    "kubectl get --raw '/readyz?verbose'",
    "Every node stopped renewing its Lease at once (kubectl -n kube-node-lease get leases): check the API server, etcd and the network between the nodes and the control plane before the nodes.",
  ],
  NamespaceOutage: [
    "kubectl -n {name} get pods",
    "Check what the namespace's workloads share: a ResourceQuota, a NetworkPolicy, a dependency, a recent change.",
  ],
};

/**
 * The next steps of `reason` for one object, placeholders filled (see NEXT_STEPS); a step that needs a value the
 * object lacks (a container, a namespace) is left out. Empty for a reason without steps. Pure.
 */
export function nextStepsFor(
  reason: string,
  object: { readonly kind: string; readonly namespace?: string; readonly name: string },
  container?: string,
): string[] {
  const values: Record<string, string | undefined> = {
    namespace: object.namespace,
    name: object.name,
    kind: object.kind.toLowerCase(),
    // A finding shows an init container as "name (init)"; kubectl wants its name.
    container: container?.replace(/ \(init\)$/, ""),
  };
  return (NEXT_STEPS[reason] ?? []).flatMap((step) => {
    let missing = false;
    const filled = step.replace(/\{(namespace|name|kind|container)\}/g, (_, key: string) => {
      const value = values[key];
      if (value === undefined) missing = true;
      return value ?? "";
    });
    return missing ? [] : [filled];
  });
}

/**
 * An incident's next steps (spec 2.1 `runbooks`): the built-in steps of its root reason, filled from the finding
 * that carries that reason (the root object's own first), then the runbook configured for the reason. Pure.
 */
export function nextStepsOf(incident: Incident, runbooks: Readonly<Record<string, string>> | undefined): string[] {
  const carrying = incident.findings.filter((f) => f.reason === incident.rootReason);
  const root =
    carrying.find((f) => f.object.kind === incident.root.kind && f.object.name === incident.root.name) ?? carrying[0];
  // A root the correlator made (an endpoint, a shared error, a namespace) has no finding of its own reason.
  const steps = root
    ? nextStepsFor(incident.rootReason, root.object, root.container)
    : nextStepsFor(incident.rootReason, incident.root);
  const runbook = runbooks?.[incident.rootReason.toLowerCase()];
  return runbook ? [...steps, `Runbook: ${runbook}`] : steps;
}
