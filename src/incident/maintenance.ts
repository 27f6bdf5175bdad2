import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { Annotated } from "../model/kube.ts";

/** The maintenance annotations honoured (spec 2.7, Pro): the flag and its RFC 3339 `-until` bound. */
export interface MaintenanceAnnotations {
  readonly annotation: string;
  readonly untilAnnotation: string;
}

const TRUTHY = new Set(["true", "1", "yes", "on"]);

/** True when the finding's object or its namespace carries a live maintenance annotation (spec 2.7). Pure. */
export function underMaintenance(
  f: Finding,
  inventory: InventoryView,
  m: MaintenanceAnnotations,
  now: number,
): boolean {
  const object = inventory.get(f.object.kind, f.object.namespace, f.object.name);
  const namespace = f.object.namespace ? inventory.get("Namespace", undefined, f.object.namespace) : undefined;
  return [object, namespace].some((o) => held(o, m, now));
}

/**
 * Where the maintenance that holds the finding is written and until when, in words for `mon explain`
 * (`annotation mon.io/maintenance on namespace shop until 2026-11-27T12:00:00Z`); undefined when none holds it.
 */
export function maintenanceText(
  f: Finding,
  inventory: InventoryView,
  m: MaintenanceAnnotations,
  now: number,
): string | undefined {
  const object = inventory.get(f.object.kind, f.object.namespace, f.object.name);
  const namespace = f.object.namespace ? inventory.get("Namespace", undefined, f.object.namespace) : undefined;
  const [where, o] = held(object, m, now)
    ? [`${f.object.kind.toLowerCase()} ${f.object.name}`, object]
    : held(namespace, m, now)
      ? [`namespace ${f.object.namespace}`, namespace]
      : [undefined, undefined];
  if (!where) return undefined;
  const until = o?.metadata?.annotations?.[m.untilAnnotation];
  return `annotation ${m.annotation} on ${where}${until && !Number.isNaN(Date.parse(until)) ? ` until ${until}` : ""}`;
}

function held(o: Annotated | undefined, m: MaintenanceAnnotations, now: number): boolean {
  const annotations = o?.metadata?.annotations ?? {};
  if (
    !TRUTHY.has(
      String(annotations[m.annotation] ?? "")
        .trim()
        .toLowerCase(),
    )
  )
    return false;
  const until = annotations[m.untilAnnotation];
  if (until === undefined) return true;
  const end = Date.parse(until);
  // An invalid -until is ignored: the hold stands without a bound (spec 2.7).
  return Number.isNaN(end) || now < end;
}
