import type { Finding } from "../model/finding.ts";
import type { InventoryView, UsageView } from "../model/inventory.ts";
import type { EndpointSlice, ObjectLike, Pod } from "../model/kube.ts";
import { condition, finding, refOf } from "./build.ts";
import { configFixedAt } from "./config-fixed.ts";
import { parseTime } from "./evidence.ts";
import { ingressBackends, routedServices, userReachable } from "./reach.ts";

/**
 * Page rule P1 (c): the Service had a ready endpoint in the last 24 hours. Known from what mon saw
 * (`usage.served`); for a Service mon has not watched for a whole day, one older than 10 minutes counts as
 * established (a Service created broken notifies, it does not page).
 */
const SERVED_WINDOW_MS = 24 * 3600_000;
const ESTABLISHED_MS = 10 * 60_000;
/** Page rule P1 hold (failure-catalogue 0.2). */
const P1_HOLD_MS = 2 * 60_000;

/**
 * The network family (spec 1.2; failure-catalogue 1.E): a Service whose selector matches pods but has no
 * ready endpoint (page rule P1 when users reach it through a LoadBalancer, a NodePort, an Ingress or a Gateway route), a
 * Service whose selector matches no pod, and an Ingress whose backend Service or port does not exist.
 * Skipped when EndpointSlices or Services are not watched (spec 1.5). Pure.
 */
export function detectNetwork(inventory: InventoryView, now: number, usage: UsageView = {}): Finding[] {
  const out: Finding[] = [];
  if (!inventory.watches("Service")) return out;
  const routed = routedServices(inventory);
  if (inventory.watches("EndpointSlice")) {
    const slices = slicesByService(inventory);
    let controllersSince: number | undefined;
    for (const svc of inventory.list("Service")) {
      const selector = svc.spec?.selector as Record<string, string> | undefined;
      if (
        svc.spec?.type === "ExternalName" ||
        !selector ||
        Object.keys(selector).length === 0 ||
        svc.spec?.publishNotReadyAddresses
      )
        continue;
      const key = `${svc.metadata.namespace}/${svc.metadata.name}`;
      const endpoints = (slices.get(key) ?? []).flatMap((s) => s.endpoints ?? []);
      const ready = endpoints.filter((e) => e.conditions?.ready !== false && !e.conditions?.terminating);
      // Read only for a Service without a ready endpoint: most have one, every pass.
      if (ready.length > 0 || goingAway(inventory, svc)) continue;
      const pods = inventory
        .listIn("Pod", svc.metadata.namespace ?? "")
        .filter((p) => matches(selector, p.metadata?.labels ?? {}) && !p.metadata?.deletionTimestamp);
      const ref = refOf({ ...svc, kind: "Service" });
      const reachable = userReachable(svc, routed);
      if (pods.length === 0) {
        out.push(
          finding({
            reason: "ServiceSelectorMatchesNothing",
            object: ref,
            summary: `service ${key} selects no pod (${selectorText(selector)})`,
            evidence: [
              ["selector", selectorText(selector)],
              ["reachable by users", reachable ?? "no"],
            ],
            since: parseTime(svc.metadata?.creationTimestamp, now),
            now,
          }),
        );
        continue;
      }
      const since = Math.max(
        ...pods.map((p) => parseTime(condition(p, "Ready")?.lastTransitionTime ?? p.metadata?.creationTimestamp, now)),
      );
      // Pods that say they are Ready while the Service's EndpointSlices do not list them as ready: the two
      // disagree for as long as one lags the other (the EndpointSlice controller batches and queues; watch
      // events of the two kinds arrive in any order), so that is propagation, not an outage. It counts from the
      // latest of the pods turning Ready, the slices' last change (their trigger-time annotation) and the
      // controllers' new leader taking over (its catch-up after a control-plane outage).
      const readyPods = pods.filter((p) => condition(p, "Ready")?.status === "True");
      // So do pods the node lifecycle controller has just marked not ready (Ready=False while every container
      // still reports ready: their kubelet went silent), whose node's own change is on its way.
      const markedPods = pods.filter(markedByNode);
      const propagatingUntil = Math.max(
        readyPods.length
          ? Math.max(
              ...readyPods.map((p) => parseTime(condition(p, "Ready")?.lastTransitionTime, now)),
              ...(slices.get(key) ?? []).map((s) => parseTime(s.metadata.annotations?.[TRIGGER_TIME], 0)),
              (controllersSince ??= controllersLeaderSince(inventory)),
            ) + ENDPOINTS_PROPAGATION_MS
          : 0,
        ...markedPods.map((p) => parseTime(condition(p, "Ready")?.lastTransitionTime, now) + ENDPOINTS_PROPAGATION_MS),
      );
      // Recovery is quiet: pods still starting (new, restarted, or on a node that just came back) get the time
      // a start takes before their Service counts as without endpoints.
      const startedBy = Math.max(propagatingUntil, ...pods.map((p) => startingUntil(p, inventory, now)));
      const lastServed = usage.served?.at.get(key);
      const watchedADay = usage.served !== undefined && now - usage.served.since >= SERVED_WINDOW_MS;
      const established =
        lastServed !== undefined
          ? now - lastServed <= SERVED_WINDOW_MS
          : !watchedADay && now - parseTime(svc.metadata?.creationTimestamp, now) >= ESTABLISHED_MS;
      const pages = Boolean(reachable) && established && now - since >= P1_HOLD_MS;
      out.push(
        finding({
          reason: "ServiceNoReadyEndpoints",
          object: ref,
          summary: `service ${key} has no ready endpoint: ${pods.length} matching pod${pods.length === 1 ? "" : "s"}, ${readyPods.length ? `${readyPods.length} ready but not in its EndpointSlices` : "none ready"}${reachable ? `; users reach it through ${reachable}` : ""}`,
          evidence: [
            ["selector", selectorText(selector)],
            [
              "matching pods",
              pods
                .map((p) => p.metadata.name)
                .slice(0, 5)
                .join(", "),
            ],
            ["endpoints", `${endpoints.length} (0 ready)`],
            ["reachable by users", reachable ?? "no"],
          ],
          since,
          now,
          ...(startedBy > now ? { holdMs: startedBy - since, starting: true } : {}),
          joins: pods.map((p) => refOf({ ...p, kind: "Pod" })),
          ...(pages ? { pageRule: "UserEntryLostBackends" } : {}),
          ...(reachable && established && !pages ? { recheckAt: since + P1_HOLD_MS } : {}),
        }),
      );
    }
  }
  for (const ing of inventory.list("Ingress")) {
    for (const b of ingressBackends(ing)) {
      const svc = inventory.get("Service", ing.metadata.namespace, b.name);
      const portMissing =
        svc && b.port !== undefined && !(svc.spec?.ports ?? []).some((p) => p.port === b.port || p.name === b.port);
      if (svc && !portMissing) continue;
      out.push(
        finding({
          reason: "IngressBackendMissing",
          object: refOf({ ...ing, kind: "Ingress" }),
          part: `${b.name}:${b.port ?? ""}`,
          summary: svc
            ? `ingress ${ing.metadata.namespace}/${ing.metadata.name} routes to port ${b.port} of service ${b.name}, which has no such port`
            : `ingress ${ing.metadata.namespace}/${ing.metadata.name} routes to service ${b.name}, which does not exist`,
          evidence: [
            ["service", b.name],
            ["port", b.port],
            ["path", b.path],
          ],
          since: parseTime(ing.metadata?.creationTimestamp, now),
          now,
        }),
      );
    }
  }
  return out;
}

// --- internal ---

function matches(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

function selectorText(selector: Record<string, string>): string {
  return Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}

/** `namespace/name` of every Service with at least one ready, not terminating endpoint now (page rule P1 (c) memory). Pure. */
export function servingServices(inventory: InventoryView): string[] {
  const out: string[] = [];
  for (const [key, slices] of slicesByService(inventory)) {
    if (
      slices.some((s) => (s.endpoints ?? []).some((e) => e.conditions?.ready !== false && !e.conditions?.terminating))
    )
      out.push(key);
  }
  return out;
}

/** When the change an EndpointSlice's last write carries happened (set by kube-controller-manager). */
const TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";
/**
 * How long a Service's EndpointSlices may take to list pods that became Ready, ms: longer, and the
 * EndpointSlice controller is not keeping up (its `--endpointslice-updates-batch-period` is about a second).
 */
const ENDPOINTS_PROPAGATION_MS = 30_000;
/**
 * When kube-controller-manager's leader took its Lease (epoch ms; 0 when unknown): a new leader's controllers
 * start from a fresh cache and resync, the EndpointSlice controller among them, so the slices lag the pods for a
 * while — after an API server restart kube-controller-manager loses its Lease, exits and takes it again (issue
 * 53: a Service "ready but not in its EndpointSlices" for 12–20 s). A renewal keeps the time; a new holder sets it.
 */
function controllersLeaderSince(inventory: InventoryView): number {
  const lease = inventory.get("Lease", "kube-system", "kube-controller-manager");
  return parseTime(lease?.spec?.acquireTime, 0);
}

/**
 * A pod the node lifecycle controller marked not ready because its kubelet went silent: Ready=False while every
 * container still reports ready (the kubelet, had it written, would have said otherwise).
 */
function markedByNode(pod: Pod): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  return condition(pod, "Ready")?.status === "False" && statuses.length > 0 && statuses.every((s) => s.ready === true);
}

/**
 * How long a pod may take to start and pass its first readiness probe, ms: a large image pull (up to a minute)
 * and a first probe, with room; the same as the image-pull hold, after which a pull that has not finished is a
 * finding of its own.
 */
const START_GRACE_MS = 2 * 60_000;
/** Waiting reasons that are failures, not a start in progress. */
const FAILING_WAIT = /BackOff|Err|Error|Invalid/;

/**
 * Until when (epoch ms) a pod that is not ready counts as starting: created, its containers (re)started, or its
 * node Ready again within START_GRACE_MS, and none of its containers failing. 0 when it is not starting.
 */
function startingUntil(pod: Pod, inventory: InventoryView, now: number): number {
  if (condition(pod, "Ready")?.status === "True") return 0;
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  // A configuration error whose missing object now exists is a start in progress (the kubelet retries).
  const fixedAt = Math.max(0, ...statuses.map((s) => configFixedAt(pod, s, inventory) ?? 0));
  const failing = statuses.filter(
    (s) => FAILING_WAIT.test(s.state?.waiting?.reason ?? "") || (s.state?.terminated?.exitCode ?? 0) !== 0,
  );
  if (failing.some((s) => configFixedAt(pod, s, inventory) === undefined)) return 0;
  const node = pod.spec?.nodeName ? inventory.get("Node", undefined, pod.spec.nodeName) : undefined;
  const starts = [
    parseTime(pod.metadata.creationTimestamp, 0),
    ...statuses.map((s) => parseTime(s.state?.running?.startedAt, 0)),
    node && condition(node, "Ready")?.status === "True"
      ? parseTime(condition(node, "Ready")?.lastTransitionTime, 0)
      : 0,
    fixedAt,
  ];
  const until = Math.max(...starts) + START_GRACE_MS;
  return until > now ? until : 0;
}

function slicesByService(inventory: InventoryView): Map<string, EndpointSlice[]> {
  const out = new Map<string, EndpointSlice[]>();
  for (const s of inventory.list("EndpointSlice")) {
    const service = s.metadata?.labels?.["kubernetes.io/service-name"];
    if (!service) continue;
    const key = `${s.metadata.namespace}/${service}`;
    out.set(key, [...(out.get(key) ?? []), s]);
  }
  return out;
}

/**
 * A Service being deleted, on its own or with its namespace (Terminating): its pods go first, so for a moment it
 * selects nothing and has no endpoint — the deletion someone asked for, not a failure to tell.
 */
function goingAway(inventory: InventoryView, svc: ObjectLike): boolean {
  if (svc.metadata?.deletionTimestamp) return true;
  const ns = inventory.get("Namespace", undefined, svc.metadata?.namespace ?? "");
  return ns?.metadata?.deletionTimestamp !== undefined || ns?.status?.phase === "Terminating";
}
