import { apiVersionOf, type ResourceType } from "./resources.ts";

/** A kube-apiserver `Status` failure body (metav1.Status), as the fixtures show them. */
export interface StatusBody {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason: string; message: string; field?: string }[];
  };
  code?: number;
}

/** An API error carrying its HTTP status and Status body; thrown inside the simulator, answered as JSON. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(readonly body: StatusBody) {
    super(body.message ?? body.reason ?? "error");
  }
  /** HTTP status code of the answer. */
  get code(): number {
    return this.body.code ?? 500;
  }
}

/** `pods "x" not found` / `leases.coordination.k8s.io "x" not found`, 404 NotFound. */
export function notFound(type: ResourceType, name: string): ApiError {
  return failure(404, "NotFound", `${qualified(type)} "${name}" not found`, details(type, name));
}

/** `pods "x" already exists`, 409 AlreadyExists. */
export function alreadyExists(type: ResourceType, name: string): ApiError {
  return failure(409, "AlreadyExists", `${qualified(type)} "${name}" already exists`, details(type, name));
}

/** Optimistic-concurrency failure on a stale resourceVersion, 409 Conflict. */
export function conflict(type: ResourceType, name: string): ApiError {
  return failure(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualified(type)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    details(type, name),
  );
}

/** 422 Invalid with field causes, message `Kind "name" is invalid: [field: msg, ...]`. */
export function invalid(
  type: ResourceType,
  name: string,
  causes: { field: string; message: string; reason?: string }[],
): ApiError {
  const list = causes.map((c) => `${c.field}: ${c.message}`);
  const text = list.length === 1 ? list[0] : `[${list.join(", ")}]`;
  const kind = type.group ? `${type.kind}.${type.group}` : type.kind;
  return failure(422, "Invalid", `${kind} "${name}" is invalid: ${text}`, {
    name,
    ...(type.group ? { group: type.group } : {}),
    kind: type.kind,
    causes: causes.map((c) => ({ reason: c.reason ?? "FieldValueInvalid", message: c.message, field: c.field })),
  });
}

/** 400 BadRequest without details (selector and body errors). */
export function badRequest(message: string): ApiError {
  return failure(400, "BadRequest", message);
}

/** A Status failure of any code and reason. */
export function failure(code: number, reason: string, message: string, detail?: StatusBody["details"]): ApiError {
  return new ApiError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    ...(detail ? { details: detail } : {}),
    code,
  });
}

/** The 410 Expired Status sent as a watch ERROR event: `too old resource version: 1 (251)`. */
export function expired(requested: string, oldest: number): StatusBody {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `too old resource version: ${requested} (${oldest})`,
    reason: "Expired",
    code: 410,
  };
}

/** Success Status returned by DELETE on most kinds (not pods), with `details {name, group?, kind, uid}`. */
export function deleted(type: ResourceType, name: string, uid: string): StatusBody {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: { ...details(type, name), uid },
  };
}

/** The `apiVersion` a type is served under (re-exported for the server). */
export { apiVersionOf };

// --- internal ---

function qualified(type: ResourceType): string {
  return type.group ? `${type.name}.${type.group}` : type.name;
}

function details(type: ResourceType, name: string): NonNullable<StatusBody["details"]> {
  return { name, ...(type.group ? { group: type.group } : {}), kind: type.name };
}
