import type { Finding } from "../model/finding.ts";
import type { InventoryView, UsageView } from "../model/inventory.ts";
import type { ObjectLike, Pod } from "../model/kube.ts";
import { markPartial } from "./incremental.ts";

/** A detector family: the Inventory, the pass's time and usage in, its findings out. */
export type Detector = (inventory: InventoryView, now: number, usage: UsageView) => Finding[];

/** An object a detector threw on, set aside until it changes (`Kind/namespace/name` and its resourceVersion). */
export interface Quarantined {
  readonly object: string;
  readonly resourceVersion: string;
  readonly detector: string;
  readonly error: string;
}

/**
 * Objects detectors threw on, kept between passes (the pass loop owns it): an object stays set aside while its
 * resourceVersion is the one it threw at; a change lets it in again.
 */
export type Quarantine = Map<string, Quarantined>;

/** Most objects set aside for one detector in one pass before the family counts as failed. */
const MAX_CULPRITS = 8;

/**
 * Runs `detect` so that one object it throws on cannot stop it for every other object (issue 19): objects
 * already in `quarantine` are hidden from it; if it still throws, the objects of the kinds it read are
 * bisected — O(log n) reruns — to find the one it throws on, which is hidden and added to `quarantine`, and
 * the family runs again without it. Returns the findings, the objects newly set aside, and `failed` when the
 * family throws even with every object it read hidden (a fault not tied to an object) or on too many.
 */
export function detectIsolated(
  name: string,
  detect: Detector,
  inventory: InventoryView,
  now: number,
  usage: UsageView,
  quarantine: Quarantine,
): { findings: Finding[]; added: Quarantined[]; failed?: string } {
  const hidden = new Set<ObjectLike>();
  for (const q of quarantine.values()) {
    if (q.detector !== name) continue;
    const o = lookup(inventory, q.object);
    if (o && String(o.metadata.resourceVersion ?? "") === q.resourceVersion) hidden.add(o);
    else quarantine.delete(key(name, q.object));
  }
  const added: Quarantined[] = [];
  for (let round = 0; round <= MAX_CULPRITS; round++) {
    const read = new Set<string>();
    const first = attempt(detect, filtered(inventory, hidden, read), now, usage);
    if (first.ok) return { findings: first.findings, added };
    // Which objects could it be? Everything of the kinds it read, not hidden yet.
    const candidates = [...read].flatMap((kind) => inventory.list(kind).filter((o) => !hidden.has(o)));
    const withoutAll = attempt(detect, filtered(inventory, new Set([...hidden, ...candidates]), undefined), now, usage);
    if (!withoutAll.ok || candidates.length === 0 || round === MAX_CULPRITS)
      return { findings: [], added, failed: first.error };
    // Invariant: hiding candidates[lo, hi) makes it work; hiding none of them does not.
    let lo = 0;
    let hi = candidates.length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      const fixed = attempt(
        detect,
        filtered(inventory, new Set([...hidden, ...candidates.slice(lo, mid)]), undefined),
        now,
        usage,
      ).ok;
      if (fixed) hi = mid;
      else lo = mid;
    }
    const culprit = candidates[lo]!;
    hidden.add(culprit);
    const q: Quarantined = {
      object: `${culprit.kind}/${culprit.metadata.namespace ?? ""}/${culprit.metadata.name}`,
      resourceVersion: String(culprit.metadata.resourceVersion ?? ""),
      detector: name,
      error: first.error,
    };
    quarantine.set(key(name, q.object), q);
    added.push(q);
  }
  return { findings: [], added, failed: "too many objects set aside" };
}

// --- internal ---

function key(detector: string, object: string): string {
  return `${detector}\u0000${object}`;
}

function attempt(
  detect: Detector,
  inventory: InventoryView,
  now: number,
  usage: UsageView,
): { ok: true; findings: Finding[] } | { ok: false; error: string } {
  try {
    return { ok: true, findings: detect(inventory, now, usage) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function lookup(inventory: InventoryView, object: string): ObjectLike | undefined {
  const [kind = "", namespace = "", ...rest] = object.split("/");
  return inventory.get(kind, namespace || undefined, rest.join("/"));
}

/** `inventory` without the `hidden` objects; the kinds listed are recorded in `read`. */
function filtered(
  inventory: InventoryView,
  hidden: ReadonlySet<ObjectLike>,
  read: Set<string> | undefined,
): InventoryView {
  const visible = <T extends ObjectLike>(o: T | undefined) => (o && !hidden.has(o) ? o : undefined);
  const view: InventoryView = {
    list(kind: string) {
      read?.add(kind);
      const all = inventory.list(kind);
      return hidden.size ? all.filter((o) => !hidden.has(o)) : all;
    },
    listIn(kind: string, namespace: string) {
      read?.add(kind);
      const all = inventory.listIn(kind, namespace);
      return hidden.size ? all.filter((o) => !hidden.has(o)) : all;
    },
    get(kind: string, namespace: string | undefined, name: string) {
      read?.add(kind);
      return visible(inventory.get(kind, namespace, name));
    },
    eventsAbout(uid: string) {
      read?.add("Event");
      return inventory.eventsAbout(uid);
    },
    podsOnNode(node: string) {
      read?.add("Pod");
      const pods = inventory.podsOnNode(node);
      return hidden.size ? pods.filter((p: Pod) => !hidden.has(p)) : pods;
    },
    ownerChain(object: ObjectLike) {
      const chain = inventory.ownerChain(object);
      const cut = chain.findIndex((o) => hidden.has(o));
      return cut === -1 ? chain : chain.slice(0, cut);
    },
    watches: (kind: string) => inventory.watches(kind),
    ownerOfIp: (ip: string) => inventory.ownerOfIp(ip),
  } as InventoryView;
  // A memory kept against the whole Inventory (detect/incremental.ts) must not learn from a partial view.
  if (hidden.size > 0) markPartial(view);
  return view;
}
