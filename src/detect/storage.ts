import type { Finding } from "../model/finding.ts";
import type { InventoryView, UsageView } from "../model/inventory.ts";
import type { ObjectRef } from "../model/object-ref.ts";
import { finding, refOf } from "./build.ts";
import { parseTime } from "./evidence.ts";

/** Volume usage thresholds (failure-catalogue B10–B12): documented in docs/reasons.md through the catalogue. */
export const VOLUME_THRESHOLDS = { usedHigh: 0.9, availableFull: 0.03, inodesFreeLow: 0.05 } as const;

/**
 * The storage family (spec 1.2; failure-catalogue 1.B): claims Pending (not while WaitForFirstConsumer waits
 * for a pod) or Lost, a StorageClass that does not exist, failed PersistentVolumes, VolumeAttachment attach and
 * detach errors, and volumes nearly full in bytes or inodes from kubelet statistics. Checks that need a kind mon
 * does not watch are skipped (spec 1.5). Pure.
 */
export function detectStorage(inventory: InventoryView, now: number, usage: UsageView = {}): Finding[] {
  const out: Finding[] = [];
  const classes = new Map(inventory.list("StorageClass").map((c) => [c.metadata.name as string, c]));
  const hasDefault = [...classes.values()].some(
    (c) => c.metadata?.annotations?.["storageclass.kubernetes.io/is-default-class"] === "true",
  );
  // Which pods mount which claim: indexed only when a claim, an attachment or a full volume asks (most
  // passes none does).
  let index: Map<string, ClaimUser[]> | undefined;
  const claimUsers = { get: (claim: string) => (index ??= podsByClaim(inventory)).get(claim) };
  for (const pvc of inventory.list("PersistentVolumeClaim")) {
    if (pvc.status?.phase !== "Lost" && pvc.status?.phase !== "Pending") continue;
    const ref = refOf({ ...pvc, kind: "PersistentVolumeClaim" });
    const name = `${pvc.metadata.namespace}/${pvc.metadata.name}`;
    const className: string | undefined = pvc.spec?.storageClassName;
    const pods = claimUsers.get(name) ?? [];
    const users = pods.map((p) => `pod ${p.name}`);
    // A claim that cannot serve is the root of the failing pods that mount it (failure-catalogue R5).
    const explains = pods.length ? pods : undefined;
    const created = parseTime(pvc.metadata?.creationTimestamp, now);
    if (pvc.status?.phase === "Lost") {
      out.push(
        finding({
          reason: "PVCLost",
          object: ref,
          summary: `claim ${name} is Lost: its volume ${pvc.spec?.volumeName ?? ""} is gone`,
          evidence: [
            ["volume", pvc.spec?.volumeName],
            ["used by", users.join(", ")],
          ],
          since: created,
          now,
          explains,
        }),
      );
      continue;
    }
    if (pvc.status?.phase !== "Pending") continue;
    if (className && inventory.watches("StorageClass") && !classes.has(className)) {
      out.push(
        finding({
          reason: "StorageClassMissing",
          object: ref,
          summary: `claim ${name} names StorageClass ${className}, which does not exist`,
          evidence: [
            ["storage class", className],
            ["used by", users.join(", ")],
          ],
          since: created,
          now,
          explains,
        }),
      );
      continue;
    }
    if (!className && inventory.watches("StorageClass") && !hasDefault && !pvc.spec?.volumeName) {
      out.push(
        finding({
          reason: "StorageClassMissing",
          object: ref,
          summary: `claim ${name} names no StorageClass and the cluster has no default one`,
          evidence: [["used by", users.join(", ")]],
          since: created,
          now,
          explains,
        }),
      );
      continue;
    }
    const mode = className ? classes.get(className)?.volumeBindingMode : undefined;
    if (mode === "WaitForFirstConsumer" && users.length === 0) continue;
    out.push(
      finding({
        reason: "PVCPending",
        object: ref,
        summary: `claim ${name} has been Pending since ${pvc.metadata.creationTimestamp}${className ? ` (StorageClass ${className})` : ""}`,
        evidence: [
          ["storage class", className],
          ["requested", pvc.spec?.resources?.requests?.storage],
          ["used by", users.join(", ")],
        ],
        since: created,
        now,
        explains,
      }),
    );
  }
  for (const pv of inventory.list("PersistentVolume")) {
    if (pv.status?.phase !== "Failed") continue;
    out.push(
      finding({
        reason: "PVFailed",
        object: refOf({ ...pv, kind: "PersistentVolume" }),
        summary: `volume ${pv.metadata.name} failed${pv.status?.message ? `: ${pv.status.message}` : ""}`,
        evidence: [
          ["message", pv.status?.message],
          ["reclaim policy", pv.spec?.persistentVolumeReclaimPolicy],
          ["claim", pv.spec?.claimRef ? `${pv.spec.claimRef.namespace}/${pv.spec.claimRef.name}` : undefined],
        ],
        since: parseTime(pv.metadata?.creationTimestamp, now),
        now,
      }),
    );
  }
  for (const va of inventory.list("VolumeAttachment")) {
    const error = va.status?.attachError ?? va.status?.detachError;
    if (!error) continue;
    const side = va.status?.attachError ? "attach" : "detach";
    // The pods on that node mounting the volume's claim wait for it: it is their root.
    const volume = va.spec?.source?.persistentVolumeName;
    const claimRef = volume ? inventory.get("PersistentVolume", undefined, volume)?.spec?.claimRef : undefined;
    const waiting = claimRef
      ? (claimUsers.get(`${claimRef.namespace}/${claimRef.name}`) ?? []).filter((p) => p.node === va.spec?.nodeName)
      : [];
    out.push(
      finding({
        reason: "VolumeAttachmentFailed",
        object: refOf({ ...va, kind: "VolumeAttachment" }),
        nodeName: va.spec?.nodeName,
        summary: `volume ${va.spec?.source?.persistentVolumeName ?? "?"} cannot ${side} on node ${va.spec?.nodeName ?? "?"}: ${error.message ?? "error"}`,
        evidence: [
          ["volume", va.spec?.source?.persistentVolumeName],
          ["node", va.spec?.nodeName],
          ["attacher", va.spec?.attacher],
          ["message", error.message],
          ["since", error.time],
        ],
        since: parseTime(error.time, now),
        now,
        ...(waiting.length ? { explains: waiting } : {}),
      }),
    );
  }
  out.push(...volumeUsage(inventory, usage, now, claimUsers));
  return out;
}

// --- internal ---

/** A pod mounting a claim, and the node it runs on. */
type ClaimUser = ObjectRef & { readonly node?: string };

/** Pods by the `namespace/claim` of every PersistentVolumeClaim they mount. */
function podsByClaim(inventory: InventoryView): Map<string, ClaimUser[]> {
  const out = new Map<string, ClaimUser[]>();
  for (const pod of inventory.list("Pod")) {
    for (const v of pod.spec?.volumes ?? []) {
      const claim = v.persistentVolumeClaim?.claimName;
      if (!claim) continue;
      const key = `${pod.metadata.namespace}/${claim}`;
      const user: ClaimUser = {
        ...refOf({ ...pod, kind: "Pod" }),
        ...(pod.spec?.nodeName ? { node: pod.spec.nodeName } : {}),
      };
      const list = out.get(key);
      if (list) list.push(user);
      else out.set(key, [user]);
    }
  }
  return out;
}

interface VolumeStats {
  name: string;
  usedBytes?: number;
  capacityBytes?: number;
  availableBytes?: number;
  inodes?: number;
  inodesFree?: number;
  pvcRef?: { name: string; namespace: string };
}

function volumeUsage(
  inventory: InventoryView,
  usage: UsageView,
  now: number,
  claimUsers: { get(claim: string): readonly ClaimUser[] | undefined },
): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const [node, summary] of usage.kubelet ?? []) {
    for (const pod of (summary as { pods?: { volume?: VolumeStats[] }[] }).pods ?? []) {
      for (const v of pod.volume ?? []) {
        if (!v.pvcRef || !v.capacityBytes) continue;
        const key = `${v.pvcRef.namespace}/${v.pvcRef.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const claim = inventory.get("PersistentVolumeClaim", v.pvcRef.namespace, v.pvcRef.name);
        const ref = claim
          ? refOf({ ...claim, kind: "PersistentVolumeClaim" })
          : { kind: "PersistentVolumeClaim", namespace: v.pvcRef.namespace, name: v.pvcRef.name };
        const available = v.availableBytes ?? v.capacityBytes - (v.usedBytes ?? 0);
        const used = (v.capacityBytes - available) / v.capacityBytes;
        const evidence: [string, unknown][] = [
          ["used", `${Math.round(used * 100)} % of ${bytes(v.capacityBytes)}`],
          ["available", bytes(available)],
          ["node", node],
        ];
        if (available / v.capacityBytes < VOLUME_THRESHOLDS.availableFull) {
          // A full volume is why the pods writing to it fail ("no space left on device").
          const writers = claimUsers.get(key) ?? [];
          out.push(
            finding({
              reason: "VolumeFull",
              object: ref,
              nodeName: node,
              summary: `volume of claim ${key} is full: ${bytes(available)} left of ${bytes(v.capacityBytes)}`,
              evidence,
              since: now,
              now,
              holdMs: 0,
              ...(writers.length ? { explains: writers } : {}),
            }),
          );
        } else if (used >= VOLUME_THRESHOLDS.usedHigh) {
          out.push(
            finding({
              reason: "VolumeUsageHigh",
              object: ref,
              nodeName: node,
              summary: `volume of claim ${key} is ${Math.round(used * 100)} % full (${bytes(available)} left)`,
              evidence,
              since: now,
              now,
              holdMs: 0,
            }),
          );
        }
        if (v.inodes && v.inodesFree !== undefined && v.inodesFree / v.inodes < VOLUME_THRESHOLDS.inodesFreeLow) {
          out.push(
            finding({
              reason: "VolumeInodesLow",
              object: ref,
              nodeName: node,
              summary: `volume of claim ${key} is running out of inodes: ${v.inodesFree} of ${v.inodes} free`,
              evidence: [
                ["inodes free", `${v.inodesFree} of ${v.inodes}`],
                ["node", node],
              ],
              since: now,
              now,
              holdMs: 0,
            }),
          );
        }
      }
    }
  }
  return out;
}

function bytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}
