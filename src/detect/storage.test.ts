import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../model/inventory.ts";
import { inventoryOf, inventoryWatching, pod } from "../testing/inventory.ts";
import { detectStorage } from "./storage.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
const MIN = 60_000;
const GiB = 2 ** 30;

const pvc = (name: string, phase: string, spec: KubeObject = {}, ageMs = 10 * MIN): KubeObject => ({
  kind: "PersistentVolumeClaim",
  apiVersion: "v1",
  metadata: { namespace: "shop", name, uid: `pvc-${name}`, creationTimestamp: iso(NOW - ageMs) },
  spec: { resources: { requests: { storage: "10Gi" } }, ...spec },
  status: { phase },
});
const sc = (name: string, extra: KubeObject = {}): KubeObject => ({
  kind: "StorageClass",
  apiVersion: "storage.k8s.io/v1",
  metadata: { name, ...(extra.metadata ?? {}) },
  provisioner: "ebs.csi.aws.com",
  ...extra,
});
const user = (claim: string) => ({
  ...pod("shop", `uses-${claim}`),
  spec: { volumes: [{ name: "data", persistentVolumeClaim: { claimName: claim } }], containers: [{ name: "app" }] },
});
const summary = (claim: string, capacity: number, available: number, inodes = 1e6, inodesFree = 5e5) =>
  new Map([
    [
      "n1",
      {
        pods: [
          {
            volume: [
              {
                name: "data",
                capacityBytes: capacity,
                availableBytes: available,
                usedBytes: capacity - available,
                inodes,
                inodesFree,
                pvcRef: { name: claim, namespace: "shop" },
              },
            ],
          },
        ],
      },
    ],
  ]);

const cases: {
  name: string;
  objects: KubeObject[];
  usage?: Map<string, unknown>;
  want: string[];
  watching?: string[];
}[] = [
  {
    name: "PVCPending after 5 minutes, naming who waits",
    objects: [sc("gp3"), pvc("data", "Pending", { storageClassName: "gp3" }), user("data")],
    want: ["PVCPending"],
  },
  { name: "PVCLost", objects: [pvc("old", "Lost", { volumeName: "pv-1" })], want: ["PVCLost"] },
  {
    name: "StorageClassMissing for a class that does not exist",
    objects: [sc("gp3"), pvc("typo", "Pending", { storageClassName: "gp2" }, MIN)],
    want: ["StorageClassMissing"],
  },
  {
    name: "StorageClassMissing without a class and without a default",
    objects: [sc("gp3"), pvc("none", "Pending", {}, MIN)],
    want: ["StorageClassMissing"],
  },
  {
    name: "PVFailed",
    objects: [
      {
        kind: "PersistentVolume",
        apiVersion: "v1",
        metadata: { name: "pv-9" },
        spec: { persistentVolumeReclaimPolicy: "Delete" },
        status: { phase: "Failed", message: "error deleting EBS volume: VolumeInUse" },
      },
    ],
    want: ["PVFailed"],
  },
  {
    name: "VolumeAttachmentFailed with the CSI driver's error",
    objects: [
      {
        kind: "VolumeAttachment",
        apiVersion: "storage.k8s.io/v1",
        metadata: { name: "csi-1" },
        spec: { attacher: "ebs.csi.aws.com", nodeName: "n1", source: { persistentVolumeName: "pv-1" } },
        status: {
          attached: false,
          attachError: {
            message: "rpc error: code = Internal desc = Could not attach volume: AttachmentLimitExceeded",
            time: iso(NOW - MIN),
          },
        },
      },
    ],
    want: ["VolumeAttachmentFailed"],
  },
  {
    name: "VolumeUsageHigh at 90 %",
    objects: [pvc("data", "Bound")],
    usage: summary("data", 10 * GiB, 0.5 * GiB),
    want: ["VolumeUsageHigh"],
  },
  {
    name: "VolumeFull under 3 % free",
    objects: [pvc("data", "Bound")],
    usage: summary("data", 10 * GiB, 0.1 * GiB),
    want: ["VolumeFull"],
  },
  {
    name: "VolumeInodesLow under 5 % of inodes",
    objects: [pvc("data", "Bound")],
    usage: summary("data", 10 * GiB, 5 * GiB, 1e6, 1e4),
    want: ["VolumeInodesLow"],
  },
  // Healthy, or not knowable.
  {
    name: "a Pending claim of a WaitForFirstConsumer class with no pod yet is not a failure",
    objects: [
      sc("local", { volumeBindingMode: "WaitForFirstConsumer" }),
      pvc("wait", "Pending", { storageClassName: "local" }),
    ],
    want: [],
  },
  {
    name: "a fresh Pending claim within 5 minutes",
    objects: [sc("gp3"), pvc("new", "Pending", { storageClassName: "gp3" }, MIN)],
    want: [],
  },
  {
    name: "a Bound claim with room",
    objects: [pvc("data", "Bound")],
    usage: summary("data", 10 * GiB, 5 * GiB),
    want: [],
  },
  {
    name: "without StorageClasses watched, a missing class cannot be told (spec 1.5)",
    objects: [pvc("typo", "Pending", { storageClassName: "gp2" }, MIN)],
    watching: ["PersistentVolumeClaim", "Pod"],
    want: [],
  },
];

describe("detectStorage", () => {
  for (const c of cases) {
    test(c.name, () => {
      const inventory = c.watching ? inventoryWatching(c.watching, ...c.objects) : inventoryOf(...c.objects);
      const open = detectStorage(inventory, NOW, c.usage ? { kubelet: c.usage } : {}).filter(
        (f) => f.opensAt === undefined || f.opensAt <= NOW,
      );
      expect(open.map((f) => f.reason)).toEqual(c.want);
    });
  }
});
