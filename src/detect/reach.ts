import type { InventoryView } from "../model/inventory.ts";
import type { Ingress, IngressBackend, Service } from "../model/kube.ts";

/** The Gateway API route kinds whose backends users reach (spec 3.2 page rule (a)). */
export const ROUTE_KINDS = ["HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"] as const;

/**
 * How users reach each Service that an Ingress or a Gateway API route sends traffic to, by `namespace/name`:
 * `ingress web`, `httproute shop`. Pure.
 */
export function routedServices(inventory: InventoryView): Map<string, string> {
  const out = new Map<string, string>();
  for (const ing of inventory.list("Ingress"))
    for (const b of ingressBackends(ing))
      out.set(`${ing.metadata.namespace}/${b.name}`, `ingress ${ing.metadata.name}`);
  for (const kind of ROUTE_KINDS)
    for (const route of inventory.list(kind))
      for (const rule of route.spec?.rules ?? [])
        for (const ref of rule.backendRefs ?? []) {
          if ((ref.kind ?? "Service") !== "Service" || (ref.group ?? "") !== "" || !ref.name) continue;
          const key = `${ref.namespace ?? route.metadata.namespace}/${ref.name}`;
          if (!out.has(key)) out.set(key, `${kind.toLowerCase()} ${route.metadata.name}`);
        }
  return out;
}

/** How users reach `svc` (a LoadBalancer, a NodePort, an Ingress or a route), or undefined when they do not. */
export function userReachable(svc: Service, routed: ReadonlyMap<string, string>): string | undefined {
  if (svc.spec?.type === "LoadBalancer") return "a LoadBalancer";
  if (svc.spec?.type === "NodePort") return "a NodePort";
  return routed.get(`${svc.metadata.namespace}/${svc.metadata.name}`);
}

/**
 * The user-reachable Service that selects pods with `labels` in `namespace` (a workload's pod template), named
 * with how users reach it (`service shop/web through a LoadBalancer`), or undefined. Pure.
 */
export function userFacingService(
  inventory: InventoryView,
  namespace: string | undefined,
  labels: Readonly<Record<string, string>>,
  routed: ReadonlyMap<string, string>,
): string | undefined {
  for (const svc of inventory.listIn("Service", namespace ?? "")) {
    const selector = svc.spec?.selector as Record<string, string> | undefined;
    if (!selector || Object.keys(selector).length === 0) continue;
    if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) continue;
    const how = userReachable(svc, routed);
    if (how) return `service ${svc.metadata.namespace}/${svc.metadata.name} through ${how}`;
  }
  return undefined;
}

// --- internal ---

/** The Services an Ingress sends traffic to (its default backend and every path's). */
export function ingressBackends(ing: Ingress): { name: string; port?: number | string; path?: string }[] {
  const out: { name: string; port?: number | string; path?: string }[] = [];
  const add = (backend: IngressBackend | undefined, path?: string) => {
    const svc = backend?.service;
    if (svc?.name) out.push({ name: svc.name, port: svc.port?.number ?? svc.port?.name, ...(path ? { path } : {}) });
  };
  add(ing.spec?.defaultBackend);
  for (const rule of ing.spec?.rules ?? [])
    for (const p of rule.http?.paths ?? []) add(p.backend, `${rule.host ?? "*"}${p.path ?? "/"}`);
  return out;
}
