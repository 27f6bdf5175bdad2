import type { KubeObject } from "./store.ts";

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  cell: (object: KubeObject, now: number) => string | number;
}

const NAME: Column = {
  name: "Name",
  type: "string",
  format: "name",
  description: "Name must be unique within a namespace.",
  priority: 0,
  cell: (o) => o.metadata.name,
};
const AGE: Column = {
  name: "Age",
  type: "string",
  format: "",
  description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
  priority: 0,
  cell: (o, now) => age(o.metadata.creationTimestamp, now),
};

const COLUMNS: Record<string, Column[]> = {
  Pod: [
    NAME,
    {
      name: "Ready",
      type: "string",
      format: "",
      description: "The aggregate readiness state of this pod for accepting traffic.",
      priority: 0,
      cell: podReady,
    },
    {
      name: "Status",
      type: "string",
      format: "",
      description: "The aggregate status of the containers in this pod.",
      priority: 0,
      cell: podStatus,
    },
    {
      name: "Restarts",
      type: "string",
      format: "",
      description: "The number of times the containers in this pod have been restarted.",
      priority: 0,
      cell: (o) =>
        String((o.status?.containerStatuses ?? []).reduce((n: number, c: any) => n + (c.restartCount ?? 0), 0)),
    },
    AGE,
    {
      name: "IP",
      type: "string",
      format: "",
      description: "IP address allocated to the pod.",
      priority: 1,
      cell: (o) => o.status?.podIP ?? "<none>",
    },
    {
      name: "Node",
      type: "string",
      format: "",
      description: "Name of the Node this pod runs on.",
      priority: 1,
      cell: (o) => o.spec?.nodeName ?? "<none>",
    },
  ],
  Node: [
    NAME,
    {
      name: "Status",
      type: "string",
      format: "",
      description: "The status of the node.",
      priority: 0,
      cell: nodeStatus,
    },
    { name: "Roles", type: "string", format: "", description: "The roles of the node.", priority: 0, cell: nodeRoles },
    AGE,
    {
      name: "Version",
      type: "string",
      format: "",
      description: "Kubelet Version reported by the node.",
      priority: 0,
      cell: (o) => o.status?.nodeInfo?.kubeletVersion ?? "",
    },
  ],
};

/**
 * A `meta.k8s.io/v1` Table of objects, as kube-apiserver answers `Accept: application/json;as=Table;...`
 * (fixtures lists/*.table.json). `includeObject` is `Metadata` (PartialObjectMetadata) unless `Object`.
 * `withColumns` false gives `columnDefinitions: null` (watch events after the first).
 */
export function toTable(
  kind: string,
  objects: KubeObject[],
  resourceVersion: string,
  now: number,
  options: { includeObject?: string; withColumns?: boolean } = {},
): KubeObject {
  const columns = COLUMNS[kind] ?? [NAME, AGE];
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: { resourceVersion },
    columnDefinitions:
      options.withColumns === false ? null : columns.map(({ cell: _cell, ...definition }) => definition),
    rows: objects.map((object) => ({
      cells: columns.map((c) => c.cell(object, now)),
      object:
        options.includeObject === "Object"
          ? object
          : { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: object.metadata },
    })),
  };
}

// --- internal ---

function age(created: string | undefined, now: number): string {
  if (!created) return "<unknown>";
  const seconds = Math.max(0, Math.floor((now - Date.parse(created)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

function podReady(o: KubeObject): string {
  const statuses: any[] = o.status?.containerStatuses ?? [];
  const total = o.spec?.containers?.length ?? statuses.length;
  return `${statuses.filter((c) => c.ready).length}/${total}`;
}

function podStatus(o: KubeObject): string {
  if (o.metadata.deletionTimestamp) return "Terminating";
  for (const c of o.status?.containerStatuses ?? []) {
    if (c.state?.waiting?.reason) return c.state.waiting.reason;
    if (c.state?.terminated?.reason) return c.state.terminated.reason;
  }
  return o.status?.reason ?? o.status?.phase ?? "Unknown";
}

function nodeStatus(o: KubeObject): string {
  const ready = (o.status?.conditions ?? []).find((c: any) => c.type === "Ready");
  const base = ready?.status === "True" ? "Ready" : ready ? "NotReady" : "Unknown";
  return o.spec?.unschedulable ? `${base},SchedulingDisabled` : base;
}

function nodeRoles(o: KubeObject): string {
  const roles = Object.keys(o.metadata.labels ?? {})
    .filter((k) => k.startsWith("node-role.kubernetes.io/"))
    .map((k) => k.slice(24));
  return roles.length ? roles.join(",") : "<none>";
}
