import type { KubeObject } from "../model/inventory.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { KubeConnection } from "./connection.ts";
import { classifyStatus, healthReasonOf, KubeError } from "./errors.ts";
/** What an informer needs of a kind: its name (for logs) and collection path. */
export interface InformerKind {
  readonly kind: string;
  readonly path: string;
}
import { trimManagedFields } from "./trim.ts";
import { LineSplitter } from "./lines.ts";
import { asProjected } from "./project.ts";
import type { Shape } from "../model/projection.ts";
import type { ProtobufPlans } from "./protobuf/decode.ts";
import { decodeList, PROTOBUF_TYPE, WatchFrames } from "./protobuf/envelope.ts";
import { ProtobufError } from "./protobuf/wire.ts";

/** What client-go's protobuf clients accept: protobuf first, JSON as the fallback. */
const PROTOBUF_ACCEPT = `${PROTOBUF_TYPE}, application/json`;

/** One list page as the API server answers it. */
type ListPage = { metadata: { resourceVersion: string; continue?: string }; items: KubeObject[] };

/** One watch event as the API server sends it (JSON line or protobuf frame). */
type WireEvent = { type: string; object: KubeObject };

/** True when `response` is protobuf (an object, a list or a watch stream). */
function isProtobuf(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").startsWith(PROTOBUF_TYPE);
}
import { checkWatch } from "./watch-check.ts";

/** State of one informer as health reports it (spec 7.3 reasons). */
export type InformerState =
  | { readonly state: "syncing"; readonly reason: "cache_sync_pending" }
  | { readonly state: "synced" }
  | {
      readonly state: "failing";
      readonly reason:
        | "permission_denied"
        | "api_unavailable"
        | "watcher_failed"
        | "rate_limited"
        | "source_configuration_failed"
        | "timeout"
        | "canceled"
        | "component_stalled";
      readonly message: string;
      readonly attempts: number;
      /**
       * Since when mon is blind to this kind (epoch ms), for a stalled watch: when data was due — the check that
       * got no answer was sent, or, for changes a watch never delivered, when it was last known current.
       */
      readonly since?: number;
    };

/** Options of one informer. Backoff after a failure: `initialBackoffMs` doubling to `maxBackoffMs`, with jitter. */
export interface InformerOptions {
  readonly connection: KubeConnection;
  readonly kind: InformerKind;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly onEvent: (type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject) => void;
  readonly onState: (state: InformerState) => void;
  /** Relist interval in ms (spec 2.1 resyncSeconds); 0 disables. */
  readonly resyncMs?: number;
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Server-side watch timeout in seconds; the watch is re-opened from the last resourceVersion after it. */
  readonly watchTimeoutSeconds?: number;
  /**
   * A watch that receives nothing (no change, no bookmark) for this long is checked (kube/watch-check.ts): a
   * short second watch from the same resourceVersion asks the API server whether it has changes the silent watch
   * did not deliver. Bookmarks are not relied on: kube-apiserver sends none on a kind that has not changed since
   * the watch began (issue 40). A watch found behind, or whose check gets no answer (a proxy holding every
   * stream, a half-open connection), is stalled: the kind is reported failing (`component_stalled`, blind since
   * the data was due: the check's start, or when it was last known current for changes it did not deliver),
   * relisted and watched again. A quiet, current watch is checked again after the
   * same time. Injected clock; default 60 s, so a held stream is found within 60 s + `checkDeadlineMs`; 0
   * disables.
   */
  readonly checkAfterMs?: number;
  /** Real time a check may take to answer and end before the watch counts as held, ms. Default 15 s (a second of its own, and room for a slow server). */
  readonly checkDeadlineMs?: number;
  /**
   * A list that has not answered in full within this long is abandoned as `timeout` and retried with backoff
   * (a hung connection). Default 60 s, kube-apiserver's own request timeout.
   */
  readonly listTimeoutMs?: number;
  /** Objects per list page (`limit`), as client-go's pager; 0 lists everything in one answer. Default 500. */
  readonly pageSize?: number;
  /** A watch whose response headers have not arrived within this long is abandoned as `timeout`. Default 30 s. */
  readonly watchHeadersTimeoutMs?: number;
  /**
   * Lists and watches in protobuf, decoded straight into `shape` (issue 55): asked for first, JSON accepted as
   * the fallback (a server or proxy that answers JSON is read as JSON). An object or frame that does not decode is
   * skipped and reported to `onUndecodable`; the others go on.
   */
  readonly protobuf?: {
    readonly plans: ProtobufPlans;
    readonly shape: Shape;
    /** `shape` is the kind's declared projection: decoded objects are projected already (kube/project.ts). */
    readonly projected?: boolean;
    readonly onUndecodable?: (error: ProtobufError) => void;
  };
  /** Called when a stalled watch is reopened. */
  readonly onStall?: () => void;
  /** Called when data arrives again after a stall (the informer makes progress: `component_stalled` is over). */
  readonly onProgress?: () => void;
  /**
   * The loop ended while not stopped (a fault in a callback, a bug): reported with why, then the informer
   * starts again after the backoff — it never stops on its own (spec 7.3 `component_stopped`).
   */
  readonly onUnexpectedStop?: (why: string) => void;
}

/**
 * Real time a watch found behind is given to deliver what the check saw, ms: the API server sends a change to
 * every watcher at about the same time, so the silent watch's copy may still be on its way.
 */
const BEHIND_CONFIRM_MS = 2_000;

/** A running informer. */
export interface Informer {
  start(): void;
  stop(): void;
  /** True once the first list has been applied. */
  synced(): boolean;
}

/**
 * A list+watch informer over a KubeConnection (STYLE.md: "a typed informer wrapper is the only code that
 * talks to the API"). Lists, then watches from the list's resourceVersion with bookmarks. A watch that
 * ends is re-opened from the last resourceVersion; 410 Gone relists and emits only the differences, so no
 * change is lost or counted twice; any other failure (refused, reset, 401, 403, TLS) is reported and
 * retried with backoff. It never stops on its own.
 */
export function createInformer(options: InformerOptions): Informer {
  const { connection, kind, clock, logger } = options;
  // Protobuf until an answer does not even open as protobuf (a broken envelope, a proxy's mangling): then JSON.
  let protobuf = options.protobuf;
  const known = new Map<string, string>(); // namespace/name -> resourceVersion
  let stopped = false;
  let synced = false;
  let current: AbortController | undefined;
  let cancelResync: (() => void) | undefined;
  let needList = true;
  let resourceVersion = "";
  let failures = 0;
  let brokenStreams = 0;
  let stalled = false;
  /** Real data since the last stall or failure: the relist after a stall reports the kind synced again. */
  let reportSync = false;
  /** When the watch was last known current (epoch ms, injected clock): data arrived, or a check found it so. */
  let currentAt = clock.now();
  /** Set when a request ran out of its own deadline: the abort is a failure, not a relist or a reopen. */
  let timedOut: KubeError | undefined;
  /**
   * Aborts the current request as `timeout` after `ms` of real time unless cancelled. A hung connection hangs
   * in real time: this deadline is the runtime's timer, as every I/O deadline (kubelet reads, probes), not the
   * injected clock, which a test moves faster than a loopback request can answer.
   */
  const deadline = (ms: number, what: string): (() => void) => {
    const timer = setTimeout(() => {
      timedOut = new KubeError("timeout", `${what} ${kind.path}: no answer in ${Math.round(ms / 1000)} s`);
      current?.abort(new DOMException(timedOut.message, "TimeoutError"));
    }, ms);
    return () => clearTimeout(timer);
  };

  const emit = (type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject) => {
    const key = `${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}`;
    if (type === "DELETED") known.delete(key);
    else known.set(key, String(object.metadata?.resourceVersion ?? ""));
    try {
      options.onEvent(type, trimManagedFields(object));
    } catch (error) {
      logger.error(`informer ${kind.kind}: handler failed on ${key}: ${(error as Error).message}`);
    }
  };

  /** One page of a list: `limit` items from `cont` on (client-go's pager), or everything when `limit` is 0. */
  const page = async (signal: AbortSignal, limit: number, cont: string | undefined) => {
    const query = limit > 0 ? `?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ""}` : "";
    const cancelDeadline = deadline(options.listTimeoutMs ?? 60_000, "list");
    try {
      const pb = protobuf;
      if (!pb) return await connection.getJson<ListPage>(`${kind.path}${query}`, signal);
      const response = await connection.request(`${kind.path}${query}`, {
        signal,
        headers: { accept: PROTOBUF_ACCEPT },
      });
      if (!response.ok)
        throw classifyStatus(
          response.status,
          await response.text(),
          `GET ${kind.path}${query}`,
          response.headers.get("retry-after"),
        );
      if (!isProtobuf(response)) return JSON.parse(await response.text()) as ListPage;
      const list = decodeList(new Uint8Array(await response.arrayBuffer()), pb.plans, () => pb.shape, {
        onUndecodable: (error) => pb.onUndecodable?.(error),
      });
      if (pb.projected) for (const item of list.items) asProjected(item);
      return {
        metadata: { resourceVersion: list.resourceVersion, ...(list.continue ? { continue: list.continue } : {}) },
        items: list.items as unknown as KubeObject[],
      };
    } finally {
      cancelDeadline();
    }
  };

  const list = async (signal: AbortSignal) => {
    const seen = new Set<string>();
    const apiVersion = kind.path.startsWith("/api/") ? "v1" : kind.path.split("/").slice(2, 4).join("/");
    // Paginated as client-go lists (500 objects a page), so the API server never builds one giant answer; a
    // continue token that expired meanwhile (410) falls back to one unpaginated list, as client-go does.
    let limit = options.pageSize ?? 500;
    let cont: string | undefined;
    let snapshot = "";
    for (;;) {
      let body: Awaited<ReturnType<typeof page>>;
      try {
        body = await page(signal, limit, cont);
      } catch (error) {
        if (cont && error instanceof KubeError && error.failure === "gone") {
          limit = 0;
          cont = undefined;
          continue;
        }
        throw error;
      }
      for (const item of body.items) {
        item.kind ??= kind.kind;
        item.apiVersion ??= apiVersion;
        const key = `${item.metadata?.namespace ?? ""}/${item.metadata?.name ?? ""}`;
        seen.add(key);
        const before = known.get(key);
        if (before === undefined) emit("ADDED", item);
        else if (before !== item.metadata?.resourceVersion) emit("MODIFIED", item);
      }
      snapshot = body.metadata.resourceVersion;
      cont = limit > 0 ? body.metadata.continue || undefined : undefined;
      if (!cont) break;
    }
    for (const key of [...known.keys()]) {
      if (!seen.has(key)) {
        const [namespace, name] = key.split("/");
        emit("DELETED", { kind: kind.kind, apiVersion, metadata: { namespace: namespace || undefined, name } });
      }
    }
    resourceVersion = snapshot;
  };

  const watch = async (signal: AbortSignal) => {
    const timeout = options.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
    const query = `watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(resourceVersion)}&timeoutSeconds=${timeout}`;
    const cancelDeadline = deadline(options.watchHeadersTimeoutMs ?? 30_000, "watch");
    let response: Response;
    try {
      response = await connection.request(`${kind.path}?${query}`, {
        signal,
        stream: true,
        ...(protobuf ? { headers: { accept: PROTOBUF_ACCEPT } } : {}),
      });
    } finally {
      cancelDeadline();
    }
    if (!response.ok)
      throw classifyStatus(
        response.status,
        await response.text(),
        `watch ${kind.path}`,
        response.headers.get("retry-after"),
      );
    // Accepted from our resourceVersion: the cache is current again, though a quiet kind may send nothing (not
    // even a bookmark) for a minute. A resourceVersion too old comes as a 410 event on this stream: a relist.
    if (failures > 0) {
      failures = 0;
      options.onState({ state: "synced" });
    }
    if (!response.body) return;
    // Lines are found in the bytes and each decoded once (kube/lines.ts): no decoding stream, no growing string.
    const reader = response.body.getReader();
    const lines = new LineSplitter();
    // A protobuf watch: length-prefixed frames, each decoded on its own (one that does not decode is skipped).
    const pb = protobuf;
    const frames =
      pb && isProtobuf(response)
        ? new WatchFrames(pb.plans, () => pb.shape, { onUndecodable: (error) => pb.onUndecodable?.(error) })
        : undefined;
    let cancelIdle: (() => void) | undefined;
    let chunks = 0;
    let checking = false;
    // Blind since `since` (epoch ms): when data was due and did not come, not when mon last heard anything.
    const stall = (message: string, since: number) => {
      logger.warn(`informer ${kind.kind}: ${message}; relisting and watching again`);
      stalled = true;
      reportSync = true;
      needList = true;
      options.onStall?.();
      options.onState({ state: "failing", reason: "component_stalled", message, attempts: 1, since });
      current?.abort(new DOMException("stalled", "AbortError"));
    };
    const check = async () => {
      if (signal.aborted || checking) return;
      checking = true;
      const seen = chunks;
      const from = resourceVersion;
      // Asked now for what the watch should have delivered: if nothing comes, data was due from here.
      const asked = clock.now();
      // Data that arrives while the check runs proves the watch alive (and re-arms the timer itself).
      const moved = () => signal.aborted || chunks !== seen || resourceVersion !== from;
      try {
        const found = await checkWatch(connection, kind.path, from, options.checkDeadlineMs ?? 15_000, signal);
        if (moved()) return;
        if (found.verdict === "current" || found.verdict === "refused") {
          if (found.verdict === "current") currentAt = clock.now();
          else logger.debug(`informer ${kind.kind}: ${found.error.message}; checking again later`);
          armIdle();
          return;
        }
        if (found.verdict === "behind") {
          await new Promise((resolve) => setTimeout(resolve, BEHIND_CONFIRM_MS));
          if (moved()) return;
          // Changes were made after it was last known current and never came: blind since then.
          stall(
            `watch ${kind.path}: the API server has changes after resourceVersion ${from} that this watch did not deliver`,
            currentAt,
          );
          return;
        }
        stall(
          found.verdict === "held"
            ? found.message
            : `watch ${kind.path}: a check could not reach the API server (${found.error.message})`,
          asked,
        );
      } finally {
        checking = false;
      }
    };
    // The check is due `after` ms past the last data. One timer at a time, moved lazily: data only moves the due
    // time, and a timer that fires early waits the rest (no timer cancelled and set again per chunk, issue 55).
    let idleDueAt = 0;
    const waitIdle = (ms: number) => {
      cancelIdle = clock.setTimer(() => {
        cancelIdle = undefined;
        const left = idleDueAt - clock.now();
        if (left > 0) waitIdle(left);
        else void check();
      }, ms);
    };
    const armIdle = () => {
      const after = options.checkAfterMs ?? 60_000;
      if (after <= 0) return;
      idleDueAt = clock.now() + after;
      if (!cancelIdle) waitIdle(after);
    };
    currentAt = clock.now();
    armIdle();
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          // An accepted watch that breaks (an API server restarting) is reopened at once from the last
          // resourceVersion; three breaks in a row without any data count as a failure and back off.
          if (!signal.aborted && brokenStreams < 3) {
            brokenStreams += 1;
            logger.debug(`informer ${kind.kind}: watch stream ended (${(error as Error).message}); reopening`);
            return;
          }
          throw error;
        }
        const { value, done } = chunk;
        if (done) break;
        brokenStreams = 0;
        chunks++;
        currentAt = clock.now();
        if (stalled) {
          stalled = false;
          options.onProgress?.();
        }
        if (frames)
          for (const event of frames.push(value)) {
            if (pb?.projected && event.type !== "ERROR") asProjected(event.object);
            handleEvent(event as WireEvent);
          }
        else lines.push(value, handleLine);
        armIdle();
        if (failures > 0) {
          failures = 0;
          options.onState({ state: "synced" });
        }
      }
    } finally {
      cancelIdle?.();
    }
  };

  const handleLine = (line: string) => handleEvent(JSON.parse(line) as WireEvent);
  const handleEvent = (event: WireEvent) => {
    if (event.type === "ERROR") {
      const status = event.object as { code?: number; message?: string };
      if (status.code === 410) throw new KubeError("gone", status.message ?? "resource version too old", 410);
      throw new KubeError("http", `watch ${kind.path}: ${status.message ?? "error event"}`, status.code);
    }
    const rv = event.object?.metadata?.resourceVersion;
    if (rv) resourceVersion = String(rv);
    if (event.type === "BOOKMARK") return;
    if (event.type === "ADDED" || event.type === "MODIFIED" || event.type === "DELETED") emit(event.type, event.object);
  };

  const scheduleResync = () => {
    if (!options.resyncMs) return;
    cancelResync = clock.setTimer(() => {
      needList = true;
      current?.abort(new DOMException("resync", "AbortError"));
      scheduleResync();
    }, options.resyncMs);
  };

  const run = async () => {
    options.onState({ state: "syncing", reason: "cache_sync_pending" });
    while (!stopped) {
      current = new AbortController();
      try {
        if (needList) {
          await list(current.signal);
          needList = false;
          const report = !synced || failures > 0 || reportSync;
          synced = true;
          failures = 0;
          reportSync = false;
          if (report) options.onState({ state: "synced" });
        }
        await watch(current.signal);
      } catch (thrown) {
        if (stopped) break;
        const error = timedOut ?? thrown;
        // Not timed out: a resync asked for a relist, or a stalled watch is reopened.
        if (!timedOut && current.signal.aborted) continue;
        timedOut = undefined;
        if (error instanceof ProtobufError && protobuf) {
          // An answer that does not open as protobuf at all: counted and said once, and this kind read as JSON.
          protobuf.onUndecodable?.(error);
          logger.warn(`informer ${kind.kind}: an answer that is not protobuf (${error.message}); reading it as JSON`);
          protobuf = undefined;
          needList = true;
          continue;
        }
        if (error instanceof KubeError && error.failure === "gone") {
          logger.debug(`informer ${kind.kind}: ${error.message}; relisting`);
          needList = true;
          continue;
        }
        failures += 1;
        const reason =
          error instanceof KubeError && error.failure === "not_found"
            ? "api_unavailable"
            : (healthReasonOf(error, "watcher_failed") as Extract<InformerState, { state: "failing" }>["reason"]);
        const message = (error as Error).message;
        options.onState({ state: "failing", reason, message, attempts: failures });
        if (failures === 1 || failures % 10 === 0)
          logger.warn(`informer ${kind.kind}: ${message} (attempt ${failures}; retrying with backoff)`);
        const cap = options.maxBackoffMs ?? 30_000;
        // The server said when to come back (priority and fairness, 429): then, not later — at least 1 s.
        const retryAfter = error instanceof KubeError ? error.retryAfterMs : undefined;
        const base =
          retryAfter !== undefined
            ? Math.min(cap, Math.max(1_000, retryAfter))
            : Math.min(cap, (options.initialBackoffMs ?? 1_000) * 2 ** Math.min(failures - 1, 16));
        try {
          await clock.sleep(base * (0.8 + Math.random() * 0.4), current.signal);
        } catch {
          // stopped or resync during the backoff
        }
      }
    }
  };

  return {
    start() {
      scheduleResync();
      const supervise = (): void =>
        void run().then(
          () => restart("its loop ended"),
          (error: unknown) => restart((error as Error)?.message ?? String(error)),
        );
      const restart = (why: string) => {
        if (stopped) return;
        options.onUnexpectedStop?.(why);
        logger.error(`informer ${kind.kind}: stopped unexpectedly (${why}); starting again`);
        needList = true;
        void clock.sleep(options.initialBackoffMs ?? 1_000).then(() => {
          if (!stopped) supervise();
        });
      };
      supervise();
    },
    stop() {
      stopped = true;
      cancelResync?.();
      current?.abort(new DOMException("stopped", "AbortError"));
    },
    synced: () => synced,
  };
}
