import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequestMetrics, type RequestMetrics } from "./request-metrics.ts";
import { createServer } from "node:https";
import type { TLSSocket } from "node:tls";
import { apiResourceList, apiGroup, apiGroupList, apiVersions, VERSION_INFO } from "./discovery.ts";
import type { SimPki } from "./pki.ts";
import { SCALABLE, serveScale } from "./scale.ts";
import { forbiddenMessage, pathAllowed, type SimAuthorizer, type SimUser } from "./authz.ts";
import { openApiDocument, openApiIndex } from "./openapi.ts";
import type { ResourceType, TypeRegistry } from "./resources.ts";
import { parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import { ApiError, badRequest, failure } from "./status.ts";
import { timestamp, type KubeObject, type ObjectStore } from "./store.ts";
import { toTable } from "./table.ts";
import { answerInjected, type InjectedFailure } from "./faults.ts";
import { apiVersion, asServed, readJson, readOptionalJson, sendJson, sendText, wantsTable } from "./http-io.ts";
import { protobufMessageFor, sendProtobufList } from "./serve-protobuf.ts";
import { serveWatch } from "./serve-watch.ts";
import { KUBELET_ANNOTATION } from "./controllers/node-lifecycle.ts";

/** Options of the simulated API server. */
export interface SimServerOptions {
  readonly store: ObjectStore;
  readonly pki: SimPki;
  readonly registry: TypeRegistry;
  /** Bearer tokens and their users. A client certificate signed by the simulator's CA is the admin. */
  readonly authorizer: SimAuthorizer;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Interval between watch BOOKMARK events in ms (kube-apiserver: about 60 s). */
  readonly bookmarkIntervalMs?: number;
  /** Timers for watch bookmarks (a test's fake clock); real timers by default. */
  readonly timers?: { setTimer(fn: () => void, delayMs: number): () => void };
  /** Names of /readyz checks that fail right now. */
  readonly readyzFailing?: () => readonly string[];
  /** Container logs: `(namespace, pod, container, previous)` → text, or undefined when none are recorded. */
  readonly logs?: (namespace: string, pod: string, container: string, previous: boolean) => string | undefined;
  /** Injected failures: `group/plural` (`pods`, `example.com/widgets`) → what every request for it is answered. */
  readonly failures?: Map<string, InjectedFailure>;
  /** Serve protobuf to clients that ask for it first (default true). */
  readonly protobuf?: boolean;
  readonly now?: () => number;
}

/** A running simulated API server. */
export interface SimServer {
  readonly url: string;
  readonly port: number;
  /**
   * Makes the watches of `resource` (`*`: every resource) open right now go silent — no events, no bookmarks — while their
   * connections stay open (a half-open connection); watches opened later are served as usual.
   */
  stallWatches(resource: string): void;
  /**
   * Holds every watch stream, open ones and those opened while it lasts, as a proxy that stops passing data:
   * nothing is sent on them (no headers on a new one, no events, no bookmarks, not even their end at
   * `timeoutSeconds`). `false` serves new watches again; held ones stay held until they are closed.
   */
  holdWatches(on: boolean): void;
  /**
   * Bookmarks of watches opened from now on follow `timers` (the fake clock of the daemon a test runs against):
   * a daemon on a fake clock must see the API server's bookmark rhythm on that clock, as a real one sees it in
   * real time, or it takes every quiet watch for a silent one.
   */
  useTimers(timers: { setTimer(fn: () => void, delayMs: number): () => void }): void;
  /**
   * The next `frames` protobuf answers of `resource` (a plural) are garbled (an odd or hostile answer, issue 55):
   * a watch event as a frame whose object does not decode, a list as bytes that are not protobuf at all; JSON
   * answers are not touched.
   */
  garbleProtobuf(resource: string, frames: number): void;
  /** Open watch streams right now. */
  watchCount(): number;
  /** Ends every open watch stream (as an apiserver restart would), keeping the server up. */
  dropWatches(): void;
  close(): Promise<void>;
}

/**
 * Starts the Kubernetes REST API simulator over HTTPS on loopback (ARCHITECTURE.md "simulator"):
 * discovery, list (limit/continue, selectors, Table), watch (history replay, bookmarks, initial events,
 * 410 Expired), create/get/update/patch/delete, the status subresource, and `Status` error bodies.
 */
export async function startSimServer(options: SimServerOptions): Promise<SimServer> {
  const now = options.now ?? (() => Date.now());
  const streams = new Set<ServerResponse>();
  const watchesByResource = new Map<ServerResponse, string>();
  const stalled = new WeakSet<ServerResponse>();
  const holding = { on: false };
  const garbling = new Map<string, number>();
  const requests = createRequestMetrics();
  let timers = options.timers;
  const server = createServer(
    {
      cert: options.pki.serverCert,
      key: options.pki.serverKey,
      ca: options.pki.caCert,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      handle(req, res, {
        ...options,
        ...(timers ? { timers } : {}),
        now,
        streams,
        requests,
        watchesByResource,
        stalled,
        holding,
        garbling,
      }).catch((error: unknown) => {
        const api =
          error instanceof ApiError
            ? error
            : failure(500, "InternalError", `Internal error occurred: ${(error as Error).message}`);
        if (!res.headersSent) sendJson(res, api.code, api.body);
        else res.end();
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://${options.host ?? "127.0.0.1"}:${port}`,
    port,
    watchCount: () => streams.size,
    garbleProtobuf(resource, frames) {
      garbling.set(resource, (garbling.get(resource) ?? 0) + frames);
    },
    stallWatches(resource) {
      for (const [res, name] of watchesByResource) if (resource === "*" || name === resource) stalled.add(res);
    },
    holdWatches(on) {
      holding.on = on;
      if (on) for (const res of watchesByResource.keys()) stalled.add(res);
    },
    useTimers(source) {
      timers = source;
    },
    dropWatches() {
      for (const stream of streams) stream.destroy();
      streams.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of streams) stream.destroy();
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

// --- internal ---

interface Context extends SimServerOptions {
  now: () => number;
  streams: Set<ServerResponse>;
  requests: RequestMetrics;
  /** Open watch streams and the resource (plural) each watches. */
  watchesByResource: Map<ServerResponse, string>;
  /** Streams told to go silent (stallWatches). */
  stalled: WeakSet<ServerResponse>;
  /** While on, every watch is held (holdWatches). */
  holding: { on: boolean };
  /** Protobuf watch events still to send garbled, by resource (garbleProtobuf). */
  garbling: Map<string, number>;
}

const PUBLIC_PATHS = new Set(["/healthz", "/livez", "/readyz", "/version"]);

async function handle(req: IncomingMessage, res: ServerResponse, ctx: Context): Promise<void> {
  const url = new URL(req.url ?? "/", "https://sim");
  const path = url.pathname.replace(/\/+$/, "") || "/";
  const auth = authenticate(req, ctx);
  if (auth === "invalid") return sendJson(res, 401, failure(401, "Unauthorized", "Unauthorized").body);
  if (auth === "anonymous" && !PUBLIC_PATHS.has(path)) {
    return sendJson(
      res,
      403,
      failure(403, "Forbidden", `forbidden: User "system:anonymous" cannot get path "${path}"`, {}).body,
    );
  }
  const user: SimUser = auth === "anonymous" ? { name: "system:anonymous", rules: [] } : auth;
  ctx.requests.observe(req, res, url);
  // An outage of the whole API server (`*`): every request but the unauthenticated health paths.
  const outage = ctx.failures?.get("*");
  if (outage && !PUBLIC_PATHS.has(path)) return answerInjected(res, outage, ctx);
  if (path === "/metrics" && !pathAllowed(user, path))
    return sendJson(
      res,
      403,
      failure(403, "Forbidden", `forbidden: User "${user.name}" cannot get path "${path}"`, {}).body,
    );
  if (path === "/metrics")
    return sendText(res, 200, ctx.requests.exposition(), "text/plain; version=0.0.4; charset=utf-8; escaping=values");
  if (path === "/readyz") {
    // As kube-apiserver: `[+]check ok` / `[-]check failed: reason withheld` lines, 500 when a check fails.
    const failing = ctx.readyzFailing?.() ?? [];
    const checks = [
      "ping",
      "log",
      "etcd",
      "etcd-readiness",
      "informer-sync",
      "poststarthook/start-apiserver-admission-initializer",
    ];
    if (failing.length === 0 && !url.searchParams.has("verbose")) return sendText(res, 200, "ok");
    const lines = checks.map((c) => (failing.includes(c) ? `[-]${c} failed: reason withheld` : `[+]${c} ok`));
    const body = `${lines.join("\n")}\n${failing.length ? "readyz check failed" : "readyz check passed"}\n`;
    return sendText(res, failing.length ? 500 : 200, body);
  }
  if (path === "/healthz" || path === "/livez") return sendText(res, 200, "ok");
  if (path === "/version") return sendJson(res, 200, VERSION_INFO);
  if (path === "/api") return sendJson(res, 200, apiVersions(req.headers.host ?? ""));
  if (path === "/apis") return sendJson(res, 200, apiGroupList(ctx.registry));
  if (path === "/openapi/v3") return sendJson(res, 200, openApiIndex(ctx.registry));
  if (path.startsWith("/openapi/v3/")) {
    const gv = path.slice("/openapi/v3/".length).split("/");
    const doc =
      gv[0] === "api"
        ? openApiDocument(ctx.registry, "", gv[1] ?? "")
        : openApiDocument(ctx.registry, gv[1] ?? "", gv[2] ?? "");
    return doc ? sendJson(res, 200, doc) : sendText(res, 404, "404 page not found\n");
  }
  const parts = path.split("/").filter(Boolean);
  const isCore = parts[0] === "api";
  if (!isCore && parts[0] !== "apis") return sendText(res, 404, "404 page not found\n");
  const group = isCore ? "" : (parts[1] ?? "");
  const version = isCore ? (parts[1] ?? "") : (parts[2] ?? "");
  const rest = parts.slice(isCore ? 2 : 3);
  if (!isCore && parts.length === 2) {
    const found = apiGroup(ctx.registry, group);
    return found ? sendJson(res, 200, found) : sendText(res, 404, "404 page not found\n");
  }
  if (rest.length === 0) {
    const list = apiResourceList(ctx.registry, group, version);
    return list ? sendJson(res, 200, list) : sendText(res, 404, "404 page not found\n");
  }
  const target = parseResourcePath(rest);
  const type = ctx.registry.find(group, version, target.resource);
  if (!type)
    return sendJson(res, 404, failure(404, "NotFound", "the server could not find the requested resource", {}).body);
  if (type.name === "selfsubjectaccessreviews" && req.method === "POST") return serveAccessReview(req, res, ctx, user);
  const injected = ctx.failures?.get(type.group ? `${type.group}/${type.name}` : type.name);
  if (injected) return answerInjected(res, injected, ctx);
  if (type.name === "pods" && target.subresource === "log" && req.method === "GET" && target.name) {
    const namespace = target.namespace ?? "";
    if (!ctx.authorizer.allowed(user, { verb: "get", group: "", resource: "pods/log", namespace, name: target.name })) {
      return sendJson(
        res,
        403,
        failure(403, "Forbidden", forbiddenMessage(user, { verb: "get", group: "", resource: "pods/log", namespace }), {
          kind: "pods",
        }).body,
      );
    }
    const pod = ctx.store.get(type, namespace, target.name);
    // A node whose kubelet is stopped cannot be reached: kube-apiserver answers 500 with its dial error, as it did
    // for the real node's stopped kubelet (issue 50).
    const nodeName = typeof pod.spec?.nodeName === "string" ? pod.spec.nodeName : undefined;
    const nodes = nodeName ? ctx.registry.findByKind("v1", "Node") : undefined;
    let node: KubeObject | undefined;
    try {
      node = nodes && nodeName ? ctx.store.get(nodes, undefined, nodeName) : undefined;
    } catch {}
    if (node?.metadata.annotations?.[KUBELET_ANNOTATION] === "stopped")
      return sendJson(
        res,
        500,
        failure(
          500,
          "",
          `Get "https://${nodeName}:10250/containerLogs/${namespace}/${target.name}/${url.searchParams.get("container") ?? ""}": dial tcp ${nodeAddress(node)}:10250: connect: connection refused`,
          {},
        ).body,
      );
    // kube-apiserver v1.32 negotiates pods/log like any resource: `Accept: text/plain` alone is refused (406),
    // what a client must send is `*/*` or one of these (found on the real control plane, issue 40).
    const accept = String(req.headers.accept ?? "*/*");
    if (!/(^|,)\s*(\*\/\*|application\/(json|yaml|vnd\.kubernetes\.protobuf))\s*(;|,|$)/.test(accept))
      return sendJson(
        res,
        406,
        failure(
          406,
          "NotAcceptable",
          "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
          {},
        ).body,
      );
    const q = url.searchParams;
    const text = ctx.logs?.(namespace, target.name, q.get("container") ?? "", q.get("previous") === "true");
    if (text === undefined) {
      // As a real apiserver answers when it cannot reach the kubelet (fixtures writes/pod-46).
      return sendJson(
        res,
        500,
        failure(500, "", `Get "https://node:10250/containerLogs/${namespace}/${target.name}": no logs recorded`).body,
      );
    }
    let lines = text.split("\n");
    const tail = Number(q.get("tailLines") ?? 0);
    if (tail > 0) lines = lines.slice(-tail - (text.endsWith("\n") ? 1 : 0));
    let body = lines.join("\n");
    const limit = Number(q.get("limitBytes") ?? 0);
    if (limit > 0) body = body.slice(0, limit);
    return sendText(res, 200, body);
  }
  if (
    target.subresource === "scale" &&
    SCALABLE.has(type.kind) &&
    target.name &&
    ["GET", "PUT", "PATCH"].includes(req.method ?? "")
  ) {
    const namespace = type.namespaced ? target.namespace : undefined;
    const verb = req.method === "GET" ? "get" : req.method === "PUT" ? "update" : "patch";
    const attributes = {
      verb,
      group: type.group,
      resource: type.name,
      name: target.name,
      ...(namespace ? { namespace } : {}),
    };
    if (!ctx.authorizer.allowed(user, attributes))
      return sendJson(
        res,
        403,
        failure(403, "Forbidden", forbiddenMessage(user, attributes), { kind: type.name }).body,
      );
    const contentType = (req.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
    const body = req.method === "GET" ? undefined : { contentType, value: await readJson(req, type) };
    return sendJson(res, 200, serveScale(ctx.store, type, namespace, target.name, req.method ?? "GET", body));
  }
  if (target.subresource && !(target.subresource === "status" && type.status)) {
    return sendJson(res, 404, failure(404, "NotFound", "the server could not find the requested resource", {}).body);
  }
  const namespace = type.namespaced ? target.namespace : undefined;
  // As kube-apiserver's request info: a list or watch selecting one name is authorized for that name.
  const selected = /^metadata\.name=([^,]+)$/.exec(url.searchParams.get("fieldSelector") ?? "")?.[1];
  const name = target.name ?? selected;
  const attributes = {
    verb: verbOf(req.method ?? "GET", Boolean(target.name), url.searchParams),
    group: type.group,
    resource: target.subresource ? `${type.name}/${target.subresource}` : type.name,
    ...(namespace ? { namespace } : {}),
    ...(name ? { name } : {}),
  };
  if (!ctx.authorizer.allowed(user, { ...attributes, resource: type.name })) {
    return sendJson(
      res,
      403,
      failure(403, "Forbidden", forbiddenMessage(user, { ...attributes, resource: type.name }), { kind: type.name })
        .body,
    );
  }
  if (type.deprecationWarning) res.setHeader("Warning", `299 - ${JSON.stringify(type.deprecationWarning)}`);
  await serveResource(req, res, ctx, url, type, namespace, target.name, target.subresource as "status" | undefined);
}

function authenticate(req: IncomingMessage, ctx: Context): SimUser | "invalid" | "anonymous" {
  const socket = req.socket as TLSSocket;
  if (socket.authorized) return { name: "admin", rules: "all" };
  const header = req.headers.authorization;
  if (!header) return "anonymous";
  const token = /^Bearer\s+(.+)$/i.exec(header)?.[1];
  return (token && ctx.authorizer.user(token.trim())) || "invalid";
}

function verbOf(method: string, named: boolean, q: URLSearchParams): string {
  if (method === "GET") return named ? "get" : q.get("watch") === "true" || q.get("watch") === "1" ? "watch" : "list";
  if (method === "POST") return "create";
  if (method === "PUT") return "update";
  if (method === "PATCH") return "patch";
  if (method === "DELETE") return named ? "delete" : "deletecollection";
  return method.toLowerCase();
}

/** POST selfsubjectaccessreviews: answers whether the caller may do what `spec.resourceAttributes` says (201). */
async function serveAccessReview(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: Context,
  user: SimUser,
): Promise<void> {
  const body = (await readOptionalJson(req)) as
    | { spec?: { resourceAttributes?: Record<string, string>; nonResourceAttributes?: Record<string, string> } }
    | undefined;
  const spec = body?.spec ?? {};
  if (!spec.resourceAttributes === !spec.nonResourceAttributes) {
    const message =
      'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified';
    return sendJson(
      res,
      422,
      failure(422, "Invalid", `.authorization.k8s.io "" is invalid: spec.resourceAttributes: ${message}`, {
        group: "authorization.k8s.io",
        causes: [{ reason: "FieldValueInvalid", message, field: "spec.resourceAttributes" }],
      }).body,
    );
  }
  const a = spec.resourceAttributes;
  const allowed = a
    ? ctx.authorizer.allowed(user, {
        verb: a.verb ?? "",
        group: a.group ?? "",
        resource: a.resource ?? "",
        ...(a.namespace ? { namespace: a.namespace } : {}),
      })
    : true;
  sendJson(res, 201, {
    kind: "SelfSubjectAccessReview",
    apiVersion: "authorization.k8s.io/v1",
    metadata: { creationTimestamp: null },
    spec,
    status: allowed ? { allowed: true, reason: `allowed for ${user.name}` } : { allowed: false },
  });
}

function parseResourcePath(rest: string[]): {
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
} {
  if (rest[0] === "namespaces" && rest.length >= 3) {
    return { namespace: rest[1], resource: rest[2] ?? "", name: rest[3], subresource: rest[4] };
  }
  return { resource: rest[0] ?? "", name: rest[1], subresource: rest[2] };
}

async function serveResource(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: Context,
  url: URL,
  type: ResourceType,
  namespace: string | undefined,
  name: string | undefined,
  subresource: "status" | undefined,
): Promise<void> {
  const q = url.searchParams;
  const method = req.method ?? "GET";
  const store = ctx.store;
  if (method === "GET" && !name) {
    const filter = selectorOf(q, type);
    if (q.get("watch") === "true" || q.get("watch") === "1")
      return serveWatch(req, res, ctx, type, namespace, q, filter);
    return serveList(req, res, ctx, type, namespace, q, filter);
  }
  if (method === "GET" && name) return sendObject(req, res, ctx, 200, asServed(type, store.get(type, namespace, name)));
  if (method === "POST" && !name) {
    const created = store.create(type, namespace, await readJson(req, type), {
      dryRun: q.get("dryRun") === "All",
      manager: fieldManager(req, q),
    });
    return sendObject(req, res, ctx, 201, asServed(type, created));
  }
  if (method === "PUT" && name)
    return sendObject(
      req,
      res,
      ctx,
      200,
      asServed(type, store.update(type, namespace, name, await readJson(req, type), subresource, fieldManager(req, q))),
    );
  if (method === "PATCH" && name) {
    const contentType = (req.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
    return sendObject(
      req,
      res,
      ctx,
      200,
      asServed(
        type,
        store.patch(type, namespace, name, contentType, await readJson(req, type), subresource, fieldManager(req, q)),
      ),
    );
  }
  if (method === "DELETE" && name) {
    const body = await readOptionalJson(req);
    const grace = q.get("gracePeriodSeconds") ?? body?.gracePeriodSeconds;
    return sendJson(
      res,
      200,
      store.delete(
        type,
        namespace,
        name,
        grace === undefined || grace === null ? {} : { gracePeriodSeconds: Number(grace) },
      ),
    );
  }
  if (method === "DELETE" && !name) {
    const items = store.list(type, namespace, selectorOf(q, type));
    for (const item of items)
      store.delete(type, item.metadata.namespace, item.metadata.name, { gracePeriodSeconds: 0 });
    return sendJson(res, 200, {
      kind: `${type.kind}List`,
      apiVersion: apiVersion(type),
      metadata: { resourceVersion: String(store.resourceVersion()) },
      items,
    });
  }
  return sendJson(
    res,
    405,
    failure(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {}).body,
  );
}

function selectorOf(q: URLSearchParams, type: ResourceType) {
  const labels = parseLabelSelector(q.get("labelSelector"));
  const fields = parseFieldSelector(q.get("fieldSelector"), type.kind);
  return (o: KubeObject) => labels(o) && fields(o);
}

function serveList(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: Context,
  type: ResourceType,
  namespace: string | undefined,
  q: URLSearchParams,
  filter: (o: KubeObject) => boolean,
): void {
  const rv = q.get("resourceVersion");
  const match = q.get("resourceVersionMatch");
  if (match && !rv) {
    throw failure(
      422,
      "Invalid",
      `resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`,
      {
        causes: [
          {
            reason: "FieldValueForbidden",
            message: "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
            field: "resourceVersionMatch",
          },
        ],
      },
    );
  }
  if (rv && rv !== "0" && Number(rv) > ctx.store.resourceVersion()) {
    throw failure(504, "Timeout", `Too large resource version: ${rv}, current: ${ctx.store.resourceVersion()}`, {
      causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    });
  }
  if (match === "Exact" && rv && Number(rv) < ctx.store.compactedResourceVersion()) {
    throw failure(410, "Expired", `The resourceVersion for the provided list is too old.`);
  }
  // Served form only for the page that goes out: paging through 150,000 pods must not copy all of them per page.
  let items = ctx.store.list(type, namespace, filter);
  const metadata: Record<string, unknown> = { resourceVersion: String(ctx.store.resourceVersion()) };
  const limit = Number(q.get("limit") ?? 0);
  const token = q.get("continue");
  if (token) {
    const decoded = decodeContinue(token);
    if (decoded.rv < ctx.store.compactedResourceVersion()) {
      throw failure(
        410,
        "Expired",
        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
      );
    }
    metadata.resourceVersion = String(decoded.rv);
    // The list is in key order: the page starts after the token's key (binary search, not a scan per page).
    const keyAt = (i: number) => `${items[i]!.metadata.namespace ?? ""}/${items[i]!.metadata.name}`;
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keyAt(mid) > decoded.start) hi = mid;
      else lo = mid + 1;
    }
    items = items.slice(lo);
  }
  if (limit > 0 && rv !== "0" && items.length > limit) {
    const last = items[limit - 1]!;
    metadata.continue = encodeContinue(
      Number(metadata.resourceVersion),
      `${last.metadata.namespace ?? ""}/${last.metadata.name}`,
    );
    metadata.remainingItemCount = items.length - limit;
    items = items.slice(0, limit);
  }
  items = items.map((o) => asServed(type, o));
  if (wantsTable(req)) {
    const table = toTable(type.kind, items, String(metadata.resourceVersion), ctx.now(), {
      includeObject: q.get("includeObject") ?? undefined,
    });
    sendJson(res, 200, table);
    return;
  }
  const stripped = items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
  const message = ctx.protobuf === false ? undefined : protobufMessageFor(req, type, apiVersion(type));
  if (message) {
    // A garbled list (garbleProtobuf) is bytes that do not open as protobuf at all.
    const garble = ctx.garbling.get(type.name) ?? 0;
    if (garble > 0) ctx.garbling.set(type.name, garble - 1);
    sendProtobufList(res, type, apiVersion(type), message, { metadata, items: stripped }, garble > 0);
    return;
  }
  sendJson(res, 200, { kind: `${type.kind}List`, apiVersion: apiVersion(type), metadata, items: stripped });
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv, start: `${start}\u0000` })).toString("base64url");
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { rv: number; start: string };
    return { rv: Number(parsed.rv), start: String(parsed.start).replace(/\0$/, "") };
  } catch {
    throw badRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
}

function sendObject(req: IncomingMessage, res: ServerResponse, ctx: Context, code: number, object: KubeObject): void {
  if (wantsTable(req))
    sendJson(res, code, toTable(object.kind, [object], object.metadata.resourceVersion ?? "", ctx.now()));
  else sendJson(res, code, object);
}

/** Exposed for the conformance tests: the timestamp format of the store. */
export { timestamp };

/**
 * Who writes (managedFields' `manager`), as kube-apiserver names it: the `fieldManager` parameter (kubectl
 * sends kubectl-client-side-apply, kubectl-set, kubectl-edit …), else the user agent up to its first `/`.
 */
function fieldManager(req: IncomingMessage, q: URLSearchParams): string {
  const given = q.get("fieldManager");
  if (given) return given.slice(0, 128);
  const agent = String(req.headers["user-agent"] ?? "")
    .split("/")[0]
    ?.trim();
  return (agent || "unknown").slice(0, 128);
}

/** A node's InternalIP, else its name: where kube-apiserver dials its kubelet. */
function nodeAddress(node: KubeObject): string {
  return (
    (node.status?.addresses ?? []).find((a: { type?: string }) => a.type === "InternalIP")?.address ??
    node.metadata.name
  );
}
