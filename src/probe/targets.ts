import type { InventoryView } from "../model/inventory.ts";
import type { ObjectLike } from "../model/kube.ts";
import type { ObjectRef } from "../model/object-ref.ts";
import type { ProbeTarget } from "../model/probe.ts";

/** Most Services (and, separately, dependencies) probed in one round (spec 2.3). */
export const AUTO_PROBES_PER_ROUND = 200;

/** The Service annotation that excludes it from autoServices (spec 2.7). */
export const SKIP_PROBE_ANNOTATION = "mon.io/skip-probe";

/** The `activeProbeMonitor` settings that choose targets (spec 2.3). */
export interface ProbeSettings {
  readonly autoServices: boolean;
  readonly autoDependencies: boolean;
  readonly excludeNamespaces: readonly string[];
  readonly http: readonly {
    name: string;
    url: string;
    expectedStatus?: number;
    latencyWarningMs?: number;
    latencyCriticalMs?: number;
  }[];
  readonly tcp: readonly { name: string; address: string }[];
  readonly dns: readonly { name: string; host: string }[];
}

/**
 * The targets of one probe round (spec 2.3): every configured http, tcp and dns target (never filtered), then
 * with `autoServices` one TCP target per ClusterIP Service at its first port (not headless, not annotated
 * `mon.io/skip-probe: "true"`, not in `excludeNamespaces`), and with `autoDependencies` one TCP target per
 * external `host:port` named in a Pod's environment values (URLs and `host:port` values; in-cluster Services
 * and loopback addresses are left to autoServices). At most `perRound` (200) of each automatic kind per
 * round: `round` rotates the window so that every one is probed in turn. Pure.
 */
export function probeTargets(
  settings: ProbeSettings,
  inventory: InventoryView,
  round = 0,
  perRound = AUTO_PROBES_PER_ROUND,
): ProbeTarget[] {
  return roundOf(allProbeTargets(settings, inventory), round, perRound);
}

/** Every target the settings name now, automatic ones included (no window): what a round is chosen from. Pure. */
export function allProbeTargets(settings: ProbeSettings, inventory: InventoryView): ProbeTarget[] {
  const out: ProbeTarget[] = [
    ...settings.http.map(
      (t): ProbeTarget => ({
        kind: "http",
        name: t.name,
        origin: "configured",
        address: t.url,
        ...(t.expectedStatus !== undefined ? { expectedStatus: t.expectedStatus } : {}),
        ...(t.latencyWarningMs !== undefined ? { latencyWarningMs: t.latencyWarningMs } : {}),
        ...(t.latencyCriticalMs !== undefined ? { latencyCriticalMs: t.latencyCriticalMs } : {}),
      }),
    ),
    ...settings.tcp.map((t): ProbeTarget => ({ kind: "tcp", name: t.name, origin: "configured", address: t.address })),
    ...settings.dns.map((t): ProbeTarget => ({ kind: "dns", name: t.name, origin: "configured", address: t.host })),
  ];
  const excluded = new Set(settings.excludeNamespaces);
  if (settings.autoServices) out.push(...serviceTargets(inventory, excluded));
  if (settings.autoDependencies) out.push(...dependencyTargets(inventory, excluded));
  return out;
}

/** `round`'s share of `all`: every configured target, and a rotating window of `perRound` of each automatic kind. Pure. */
export function roundOf(all: readonly ProbeTarget[], round: number, perRound = AUTO_PROBES_PER_ROUND): ProbeTarget[] {
  return [
    ...all.filter((t) => t.origin === "configured"),
    ...window(
      all.filter((t) => t.origin === "service"),
      round,
      perRound,
    ),
    ...window(
      all.filter((t) => t.origin === "dependency"),
      round,
      perRound,
    ),
  ];
}

/**
 * The `host:port` an environment value names, lower-cased, or undefined: a URL with a host (its port, or
 * the scheme's default for http, https, postgres, mysql, redis, amqp, mongodb, nats, kafka), or a bare
 * `host:port`. Pure.
 */
export function dependencyOf(value: string): string | undefined {
  const v = value.trim();
  const url = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/\s]*@)?(\[[0-9a-f:]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?(?:[/?#]|$)/i.exec(v);
  if (url) {
    const port = url[3] ?? DEFAULT_PORTS[url[1]!.toLowerCase()];
    return port ? `${url[2]!.toLowerCase()}:${port}` : undefined;
  }
  const bare = /^([a-z0-9][a-z0-9.-]*\.[a-z0-9-]+|\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/i.exec(v);
  return bare ? `${bare[1]!.toLowerCase()}:${bare[2]}` : undefined;
}

// --- internal ---

const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  http: "80",
  https: "443",
  postgres: "5432",
  postgresql: "5432",
  mysql: "3306",
  redis: "6379",
  rediss: "6380",
  amqp: "5672",
  amqps: "5671",
  mongodb: "27017",
  nats: "4222",
  kafka: "9092",
};

/** `round`'s window of at most `size` targets, wrapping around. */
function window(targets: readonly ProbeTarget[], round: number, size: number): ProbeTarget[] {
  if (targets.length <= size) return [...targets];
  const start = (round * size) % targets.length;
  return Array.from({ length: size }, (_, i) => targets[(start + i) % targets.length]!);
}

function refOf(o: ObjectLike, kind: string): ObjectRef {
  return {
    kind,
    namespace: o.metadata?.namespace,
    name: String(o.metadata?.name),
    ...(o.metadata?.uid ? { uid: o.metadata.uid } : {}),
  };
}

function serviceTargets(inventory: InventoryView, excluded: ReadonlySet<string>): ProbeTarget[] {
  const out: ProbeTarget[] = [];
  for (const s of inventory.list("Service")) {
    const ip = s.spec?.clusterIP;
    const port = s.spec?.ports?.[0]?.port;
    if (!ip || ip === "None" || !port || excluded.has(s.metadata.namespace ?? "")) continue;
    if ((s.spec?.type ?? "ClusterIP") === "ExternalName") continue;
    if (s.metadata?.annotations?.[SKIP_PROBE_ANNOTATION] === "true") continue;
    const host = ip.includes(":") ? `[${ip}]` : ip;
    out.push({
      kind: "tcp",
      name: `service/${s.metadata.namespace}/${s.metadata.name}`,
      origin: "service",
      address: `${host}:${port}`,
      service: refOf(s, "Service"),
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

function dependencyTargets(inventory: InventoryView, excluded: ReadonlySet<string>): ProbeTarget[] {
  const callers = new Map<string, ObjectRef[]>();
  const serviceNames = new Set(inventory.list("Service").map((s) => String(s.metadata?.name)));
  for (const pod of inventory.list("Pod")) {
    if (excluded.has(pod.metadata.namespace ?? "")) continue;
    const named = new Set<string>();
    for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
      for (const e of c.env ?? []) {
        if (typeof e.value !== "string") continue;
        const dep = dependencyOf(e.value);
        if (dep && !inCluster(dep, inventory, serviceNames)) named.add(dep);
      }
    }
    for (const dep of named) {
      const list = callers.get(dep);
      if (list) list.push(refOf(pod, "Pod"));
      else callers.set(dep, [refOf(pod, "Pod")]);
    }
  }
  return [...callers.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([dep, pods]) => ({
      kind: "tcp",
      name: `dependency/${dep}`,
      origin: "dependency",
      address: dep,
      callers: pods,
    }));
}

/** In-cluster Services (by DNS name or ClusterIP) and loopback addresses are not external dependencies. */
function inCluster(dep: string, inventory: InventoryView, serviceNames: ReadonlySet<string>): boolean {
  const host = dep.slice(0, dep.lastIndexOf(":"));
  if (host === "localhost" || host.startsWith("127.") || host === "[::1]") return true;
  if (/\.svc(\.cluster\.local)?$/.test(host) || host.endsWith(".cluster.local")) return true;
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return inventory.ownerOfIp(host) !== undefined;
  const [name, namespace, ...rest] = host.split(".");
  if (rest.length === 0 && namespace && inventory.get("Service", namespace, name!)) return true;
  return !host.includes(".") && serviceNames.has(host);
}
