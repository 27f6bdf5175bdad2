import type { IncomingMessage, ServerResponse } from "node:http";
import { apiVersion, asServed, wantsTable } from "./http-io.ts";
import type { ResourceType } from "./resources.ts";
import { protobufFrame, protobufMessageFor, WATCH_CONTENT_TYPE } from "./serve-protobuf.ts";
import { expired, failure } from "./status.ts";
import type { KubeObject, ObjectStore, WatchEvent } from "./store.ts";
import { toTable } from "./table.ts";

/** What serving a watch needs of the simulated API server. */
export interface WatchContext {
  readonly store: ObjectStore;
  readonly now: () => number;
  /** Interval between BOOKMARK events in ms (kube-apiserver: about 60 s). */
  readonly bookmarkIntervalMs?: number | undefined;
  /** Timers for bookmarks (a test's fake clock); real timers by default. */
  readonly timers?: { setTimer(fn: () => void, delayMs: number): () => void } | undefined;
  /** Every open stream, closed when the server stops or drops its watches. */
  readonly streams: Set<ServerResponse>;
  /** Open watch streams and the resource (plural) each watches. */
  readonly watchesByResource: Map<ServerResponse, string>;
  /** Streams told to go silent (stallWatches, holdWatches): nothing more is written on them, not even their end. */
  readonly stalled: WeakSet<ServerResponse>;
  /** While on, a new watch is held from its start: no headers, nothing (holdWatches). */
  readonly holding?: { readonly on: boolean };
  /** Serve protobuf frames to a client that asks for them first (default true). */
  readonly protobuf?: boolean | undefined;
  /** Protobuf watch events still to send garbled, by resource (SimServer.garbleProtobuf). */
  readonly garbling?: Map<string, number>;
}

/**
 * Serves one watch as kube-apiserver does: headers at once; history replayed from `resourceVersion` (410
 * Expired when it was compacted), or the initial events and their end bookmark; then every change, with
 * bookmarks when asked; ended after `timeoutSeconds`.
 */
export function serveWatch(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: WatchContext,
  type: ResourceType,
  namespace: string | undefined,
  q: URLSearchParams,
  filter: (o: KubeObject) => boolean,
): void {
  const rv = q.get("resourceVersion");
  const bookmarks = q.get("allowWatchBookmarks") === "true";
  const sendInitial = q.get("sendInitialEvents");
  if (sendInitial === "true" && q.get("resourceVersionMatch") !== "NotOlderThan") {
    throw failure(
      422,
      "Invalid",
      'Invalid value: "": sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
      {},
    );
  }
  if (ctx.holding?.on) {
    // Held by a proxy: the request is in, nothing comes back until the connection is closed.
    ctx.streams.add(res);
    ctx.stalled.add(res);
    res.on("close", () => ctx.streams.delete(res));
    return;
  }
  const table = wantsTable(req);
  const message = table || ctx.protobuf === false ? undefined : protobufMessageFor(req, type, apiVersion(type));
  res.writeHead(200, {
    "Content-Type": message ? WATCH_CONTENT_TYPE : "application/json",
    "Cache-Control": "no-cache, private",
    "Audit-Id": crypto.randomUUID(),
  });
  // kube-apiserver sends the headers at once; a client must not wait for the first event to learn the watch is open.
  res.flushHeaders();
  ctx.streams.add(res);
  ctx.watchesByResource.set(res, type.name);
  let first = true;
  const write = (event: WatchEvent) => {
    if (res.destroyed || res.writableEnded || ctx.stalled.has(res)) return;
    let object = event.type === "BOOKMARK" || event.type === "ERROR" ? event.object : asServed(type, event.object);
    if (table && event.type !== "BOOKMARK" && event.type !== "ERROR") {
      object = toTable(type.kind, [object], object.metadata.resourceVersion, ctx.now(), {
        withColumns: first,
        includeObject: q.get("includeObject") ?? undefined,
      });
      first = false;
    }
    const garble = message && event.type !== "BOOKMARK" ? (ctx.garbling?.get(type.name) ?? 0) : 0;
    if (garble > 0) ctx.garbling?.set(type.name, garble - 1);
    if (message) res.write(protobufFrame(event.type, object, message, apiVersion(type), garble > 0));
    else res.write(`${JSON.stringify({ type: event.type, object })}\n`);
  };
  const initial = !rv || rv === "0" || sendInitial === "true";
  let from = Number(rv ?? 0);
  if (initial) {
    for (const object of ctx.store.list(type, namespace, filter)) write({ type: "ADDED", object });
    from = ctx.store.resourceVersion();
    if (bookmarks) write({ type: "BOOKMARK", object: bookmark(type, from, true) });
  }
  const stop = ctx.store.watch(type, namespace, from, filter, write);
  if (!stop) {
    write({ type: "ERROR", object: expired(rv ?? "0", ctx.store.compactedResourceVersion()) as unknown as KubeObject });
    ctx.streams.delete(res);
    res.end();
    return;
  }
  const timers: ReturnType<typeof setTimeout>[] = [];
  let cancelBookmark: (() => void) | undefined;
  if (bookmarks) {
    const every = ctx.bookmarkIntervalMs ?? 60_000;
    // As kube-apiserver v1.32's watch cache: a bookmark every minute from the watch's start, but only once the
    // kind has changed after the resourceVersion the watch began at — a quiet kind's watch gets none at all
    // (docs/simulator.md "Compared with the real control plane").
    const send = () => {
      const published = ctx.store.publishedResourceVersion(type);
      if (Math.min(published, ctx.store.lastChangeOf(type)) > from)
        write({ type: "BOOKMARK", object: bookmark(type, published, false) });
    };
    if (ctx.timers) {
      const source = ctx.timers;
      const arm = () => {
        cancelBookmark = source.setTimer(() => {
          send();
          arm();
        }, every);
      };
      arm();
    } else timers.push(setInterval(send, every));
  }
  const timeout = Number(q.get("timeoutSeconds") ?? 0);
  if (timeout > 0)
    timers.push(
      setTimeout(() => {
        if (!ctx.stalled.has(res)) res.end();
      }, timeout * 1000),
    );
  const cleanup = () => {
    stop();
    cancelBookmark?.();
    for (const t of timers) clearTimeout(t);
    ctx.streams.delete(res);
    ctx.watchesByResource.delete(res);
  };
  res.on("close", cleanup);
  res.on("finish", cleanup);
}

function bookmark(type: ResourceType, rv: number, initialEnd: boolean): KubeObject {
  const metadata: Record<string, unknown> = { resourceVersion: String(rv), creationTimestamp: null };
  if (initialEnd) {
    const blueprint = `${JSON.stringify({ kind: `${type.kind}List`, apiVersion: apiVersion(type), metadata: {}, items: null })}\n`;
    metadata.annotations = {
      "k8s.io/initial-events-end": "true",
      "kubernetes.io/initial-events-list-blueprint": Buffer.from(blueprint).toString("base64"),
    };
  }
  const object: KubeObject = { kind: type.kind, apiVersion: apiVersion(type), metadata };
  if (type.kind === "Pod") Object.assign(object, { spec: { containers: null }, status: {} });
  return object;
}
