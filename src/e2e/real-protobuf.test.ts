import { expect } from "bun:test";
import { pathsApart, sortKeys } from "../testing/sort-keys.ts";
import { connectKube, type KubeConnection } from "../kube/connection.ts";
import { createInformer, type Informer } from "../kube/informer.ts";
import { KNOWN_KINDS } from "../kube/kinds.ts";
import { admit } from "../kube/admit.ts";
import { project } from "../kube/project.ts";
import { PLANS, protobufRead } from "../kube/protobuf/plans.ts";
import { decodeMessage } from "../kube/protobuf/decode.ts";
import { encodeMessage } from "../kube/protobuf/encode.ts";
import { openEnvelope, PROTOBUF_TYPE } from "../kube/protobuf/envelope.ts";
import { KIND_MESSAGES, type ProtoSchema } from "../kube/protobuf/schema.ts";
import schemaJson from "../kube/protobuf/schema.generated.json" with { type: "json" };
import { WireReader } from "../kube/protobuf/wire.ts";
import type { KubeObject } from "../model/inventory.ts";
import { createSystemClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { realKube, realKubeTest } from "../testing/real-kube.ts";

/**
 * Issue 55 on the real v1.32 API server: every built-in kind mon watches, listed and watched once in JSON and
 * once in protobuf (decoded straight into its declared projection), gives the very same objects in the Inventory
 * (projected and through its door) — after
 * the list, and after a burst of changes of every sort — and the same events. Nothing here is the simulator:
 * the bytes are kube-apiserver's own.
 */
const SCHEMA = schemaJson as unknown as ProtoSchema;
const realTest = realKubeTest("protobuf on a real Kubernetes control plane", { concurrent: true });

/** The collection path of each kind the schema has a message for. */
function paths(): { kind: string; path: string }[] {
  return Object.keys(KIND_MESSAGES).flatMap((key) => {
    const kind = key.split("/").pop() as string;
    const apiVersion = key.slice(0, -kind.length - 1);
    const known = KNOWN_KINDS.find((k) => k.kind === kind);
    if (!known) return [];
    return [{ kind, path: `${apiVersion === "v1" ? "/api/v1" : `/apis/${apiVersion}`}/${known.resource}` }];
  });
}

/** One informer's kept objects, by `namespace/name`, projected as the Inventory keeps them, and its events. */
function cacheOf(connection: KubeConnection, kind: string, path: string, protobuf: boolean) {
  const cache = new Map<string, KubeObject>();
  const events: string[] = [];
  const read = protobufRead(path, kind, false);
  const informer: Informer = createInformer({
    connection,
    kind: { kind, path },
    clock: createSystemClock(),
    logger: createSilentLogger(),
    ...(protobuf && read ? { protobuf: read } : {}),
    onEvent(type, object) {
      const key = `${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}`;
      events.push(`${type} ${key} ${object.metadata?.resourceVersion ?? ""}`);
      // What the Inventory keeps: projected, through its door (a decoded object is admitted as it is).
      const admitted = admit(project(kind, object));
      if (!("object" in admitted)) throw new Error(`${kind} ${key}: ${admitted.unreadable}`);
      const { kind: _k, apiVersion: _a, ...kept } = admitted.object as Record<string, unknown>;
      if (type === "DELETED") cache.delete(key);
      else cache.set(key, kept as KubeObject);
    },
    onState: () => {},
    pageSize: 50,
  });
  informer.start();
  return { cache, events, informer };
}

async function send(
  connection: KubeConnection,
  method: string,
  path: string,
  body: unknown,
  type = "application/json",
) {
  const response = await connection.request(path, {
    method,
    headers: { "content-type": type },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok && response.status !== 409) throw new Error(`${method} ${path}: ${response.status} ${text}`);
}

/**
 * Deletes a namespace this file made and waits until the namespace controller has removed it and all it held
 * (at most a minute): the shared control plane's stories run after this file, and a daemon of theirs must not
 * find this file's pending claim or Ingress failing, nor see them resolve.
 */
async function removeNamespace(connection: KubeConnection, ns: string): Promise<void> {
  await send(connection, "DELETE", `/api/v1/namespaces/${ns}`, {}).catch(() => {});
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const response = await connection.request(`/api/v1/namespaces/${ns}`);
    await response.body?.cancel();
    if (response.status === 404) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A namespace of every sort of object mon reads, created on the real API server; returns its name. */
async function seedNamespace(connection: KubeConnection): Promise<string> {
  const ns = `pb-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e4)}`;
  await send(connection, "POST", "/api/v1/namespaces", { metadata: { name: ns } });
  const labels = { app: "web" };
  const template = {
    metadata: { labels },
    spec: {
      containers: [
        {
          name: "web",
          image: "registry.example/web:1.0",
          env: [{ name: "DB", valueFrom: { secretKeyRef: { name: "db", key: "password" } } }],
          readinessProbe: { httpGet: { path: "/ready", port: 8080 }, periodSeconds: 5 },
          resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: "128Mi" } },
        },
      ],
      tolerations: [
        { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 60 },
      ],
    },
  };
  const objects: [string, unknown][] = [
    [
      `/api/v1/namespaces/${ns}/configmaps`,
      { metadata: { name: "settings" }, data: { mode: "fast" }, binaryData: { blob: "AAEC" } },
    ],
    [`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: "db" }, stringData: { password: "hunter2" } }],
    [`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "web" } }],
    [
      `/api/v1/namespaces/${ns}/services`,
      { metadata: { name: "web" }, spec: { selector: labels, ports: [{ port: 80, targetPort: "http" }] } },
    ],
    [
      `/apis/apps/v1/namespaces/${ns}/deployments`,
      { metadata: { name: "web", labels }, spec: { replicas: 2, selector: { matchLabels: labels }, template } },
    ],
    [
      `/apis/apps/v1/namespaces/${ns}/statefulsets`,
      {
        metadata: { name: "db" },
        spec: {
          replicas: 1,
          serviceName: "db",
          selector: { matchLabels: { app: "db" } },
          template: { ...template, metadata: { labels: { app: "db" } } },
        },
      },
    ],
    [
      `/apis/batch/v1/namespaces/${ns}/jobs`,
      {
        metadata: { name: "once" },
        spec: { backoffLimit: 0, template: { spec: { ...template.spec, restartPolicy: "Never" } } },
      },
    ],
    [
      `/apis/batch/v1/namespaces/${ns}/cronjobs`,
      {
        metadata: { name: "nightly" },
        spec: {
          schedule: "0 3 * * *",
          jobTemplate: { spec: { template: { spec: { ...template.spec, restartPolicy: "OnFailure" } } } },
        },
      },
    ],
    [
      `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`,
      { metadata: { name: "web" }, spec: { minAvailable: 1, selector: { matchLabels: labels } } },
    ],
    [
      `/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`,
      { metadata: { name: "deny" }, spec: { podSelector: {}, policyTypes: ["Ingress"] } },
    ],
    [
      `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`,
      {
        metadata: { name: "web" },
        spec: {
          rules: [
            {
              host: "shop.example",
              http: {
                paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } }],
              },
            },
          ],
        },
      },
    ],
    [
      `/api/v1/namespaces/${ns}/persistentvolumeclaims`,
      {
        metadata: { name: "data" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      },
    ],
    [
      `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`,
      {
        metadata: { name: "leader" },
        spec: { holderIdentity: "web-1", leaseDurationSeconds: 15, renewTime: "2026-12-03T10:00:00.123456Z" },
      },
    ],
    [
      `/api/v1/namespaces/${ns}/events`,
      {
        metadata: { name: "web.1" },
        involvedObject: { kind: "Pod", namespace: ns, name: "web-1" },
        reason: "BackOff",
        message: "Back-off restarting failed container",
        type: "Warning",
        count: 3,
        firstTimestamp: "2026-12-03T10:00:00Z",
        lastTimestamp: "2026-12-03T10:01:00Z",
      },
    ],
  ];
  for (const [path, body] of objects) await send(connection, "POST", path, body);
  return ns;
}

realTest(
  "every built-in kind in protobuf keeps what JSON keeps, after a list and a burst of changes (issue 55)",
  async () => {
    const kube = await realKube();
    const connection = await connectKube({ kubeconfigText: kube.kubeconfigText });
    const ns = await seedNamespace(connection);

    const kinds = paths();
    const pairs = kinds.map(({ kind, path }) => ({
      kind,
      json: cacheOf(connection, kind, path, false),
      proto: cacheOf(connection, kind, path, true),
    }));
    try {
      await waitUntil(
        () => pairs.every((p) => p.json.informer.synced() && p.proto.informer.synced()),
        "every list",
        60_000,
      );
      const differences = () =>
        pairs.flatMap(({ kind, json, proto }) => {
          const keys = new Set([...json.cache.keys(), ...proto.cache.keys()]);
          return [...keys].flatMap((key) =>
            JSON.stringify(sortKeys(json.cache.get(key))) === JSON.stringify(sortKeys(proto.cache.get(key)))
              ? []
              : [
                  `${kind} ${key}: ${pathsApart(json.cache.get(key), proto.cache.get(key), ["json", "protobuf"]).join("; ").slice(0, 600)}`,
                ],
          );
        });
      // The two lists were taken moments apart while the controllers still wrote: both watches converge.
      await waitUntil(() => differences().length === 0, "the same objects after both lists", 30_000).catch(() => {});
      expect(differences()).toEqual([]);
      expect(pairs.reduce((n, p) => n + p.proto.cache.size, 0)).toBeGreaterThan(20);
      const marks = pairs.map((p) => [p.json.events.length, p.proto.events.length] as const);

      // A burst of every sort of change; then a marker both must see.
      await send(
        connection,
        "PATCH",
        `/apis/apps/v1/namespaces/${ns}/deployments/web`,
        { spec: { replicas: 3 } },
        "application/merge-patch+json",
      );
      await send(
        connection,
        "PATCH",
        `/api/v1/namespaces/${ns}/configmaps/settings`,
        { data: { mode: "slow" }, metadata: { labels: { changed: "yes" } } },
        "application/merge-patch+json",
      );
      await send(connection, "DELETE", `/apis/batch/v1/namespaces/${ns}/jobs/once`, {
        propagationPolicy: "Background",
      });
      await send(
        connection,
        "PATCH",
        `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/leader`,
        { spec: { renewTime: "2026-12-03T10:00:10.654321Z" } },
        "application/merge-patch+json",
      );
      await send(connection, "POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: "marker" } });
      const marker = `${ns}/marker`;
      const cm = pairs.find((p) => p.kind === "ConfigMap");
      await waitUntil(
        () => !!cm?.json.cache.has(marker) && !!cm?.proto.cache.has(marker),
        "the marker in both",
        60_000,
      );
      // Both watches are current once the marker is in: whatever else moved, each saw it.
      await waitUntil(() => differences().length === 0, "the same objects after the burst", 30_000).catch(() => {});
      expect(differences()).toEqual([]);
      // What each watch delivered since both were current: the same changes.
      pairs.forEach((p, i) => {
        const [j, q] = marks[i] as readonly [number, number];
        expect({ kind: p.kind, events: p.proto.events.slice(q).sort() }).toEqual({
          kind: p.kind,
          events: p.json.events.slice(j).sort(),
        });
      });
    } finally {
      for (const p of pairs) {
        p.json.informer.stop();
        p.proto.informer.stop();
      }
      await removeNamespace(connection, ns);
    }
  },
  180_000,
);

realTest(
  "the simulator writes protobuf as kube-apiserver does, byte for byte: every object of every built-in kind, re-encoded from what mon decodes (issue 55)",
  async () => {
    const kube = await realKube();
    const connection = await connectKube({ kubeconfigText: kube.kubeconfigText });
    const ns = await seedNamespace(connection);
    // The controllers' first writes: the Deployment's pods (and with them ReplicaSets, Events, EndpointSlices).
    await waitUntil(
      async () => (await connection.getJson<{ items: unknown[] }>(`/api/v1/namespaces/${ns}/pods`)).items.length >= 2,
      "the Deployment's pods",
      60_000,
    );
    const differ: string[] = [];
    let compared = 0;
    for (const { kind, path } of paths()) {
      const message = Object.entries(KIND_MESSAGES).find(([key]) => key.endsWith(`/${kind}`))?.[1] as string;
      const response = await connection.request(path, { headers: { accept: PROTOBUF_TYPE } });
      const bytes = new Uint8Array(await response.arrayBuffer());
      const { raw } = openEnvelope(bytes);
      const list = new WireReader(bytes, raw[0], raw[1]);
      while (list.pos < list.end) {
        const tag = list.varint();
        if (tag !== ((2 << 3) | 2)) {
          list.skip(tag & 7);
          continue;
        }
        const [start, end] = list.span();
        const object = decodeMessage(bytes, start, end, PLANS.plan(message, true));
        // A RawExtension holds JSON as the server wrote it (its spacing and key order are not re-made here).
        if (kind === "ControllerRevision") continue;
        const again = encodeMessage(SCHEMA, message, object);
        compared++;
        const server = bytes.subarray(start, end);
        if (again.length !== server.length || again.some((b, i) => b !== server[i]))
          differ.push(
            `${kind} ${(object.metadata as { name?: string })?.name}: ${server.length} bytes from the server, ${again.length} re-encoded`,
          );
      }
    }
    await removeNamespace(connection, ns);
    expect(differ).toEqual([]);
    expect(compared).toBeGreaterThan(30);
  },
  120_000,
);
