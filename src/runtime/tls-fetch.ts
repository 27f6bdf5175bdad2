/** TLS material for one HTTPS peer (PEM text). */
export interface TlsMaterial {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  /** Skip server certificate verification (kubeconfig `insecure-skip-tls-verify`). */
  readonly insecureSkipVerify?: boolean;
  /** Server name to verify instead of the URL's host (kubeconfig `tls-server-name`). */
  readonly serverName?: string;
  /** HTTP(S) proxy URL for every request (outbound `app.proxyURL`). */
  readonly proxy?: string;
}

/** A request's options, and whether its answer is a long-lived stream (a watch). */
export interface StreamRequestInit extends RequestInit {
  /**
   * The answer is a stream that may stay silent for minutes (a watch of a quiet kind: kube-apiserver sends no
   * bookmark then). The runtime's own idle timeout is turned off for it — Bun's fetch otherwise fails a
   * response that sends no byte for 300 s (checked every minute or so) — and the caller keeps its own deadline.
   */
  readonly stream?: boolean;
}

/** A fetch bound to one TLS configuration. */
export type TlsFetch = (url: string, init?: StreamRequestInit) => Promise<Response>;

/**
 * The one place that hands TLS material to the runtime's fetch (the Bun adapter of the stack card).
 * Bun: the `tls` option of fetch. Deno: `Deno.createHttpClient`. Any other runtime gets the global
 * fetch and only works with publicly trusted certificates (Node is not a supported runtime for `mon run`).
 */
export function createTlsFetch(tls: TlsMaterial): TlsFetch {
  const runtime = globalThis as unknown as {
    Bun?: unknown;
    Deno?: { createHttpClient(o: Record<string, unknown>): unknown };
  };
  if (runtime.Bun) {
    const options = {
      ...(tls.ca ? { ca: tls.ca } : {}),
      ...(tls.cert ? { cert: tls.cert } : {}),
      ...(tls.key ? { key: tls.key } : {}),
      ...(tls.serverName ? { serverName: tls.serverName } : {}),
      rejectUnauthorized: !tls.insecureSkipVerify,
    };
    return (url, { stream, ...init } = {}) =>
      fetch(url, {
        ...init,
        tls: options,
        ...(tls.proxy ? { proxy: tls.proxy } : {}),
        ...(stream ? { timeout: false } : {}),
      } as RequestInit);
  }
  if (runtime.Deno) {
    // Deno's client takes the CA, a client certificate and a proxy; it has no server-name override and no
    // skipping of verification (Deno's own `--unsafely-ignore-certificate-errors` flag does that).
    const client = runtime.Deno.createHttpClient({
      ...(tls.ca ? { caCerts: [tls.ca] } : {}),
      ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
      ...(tls.proxy ? { proxy: { url: tls.proxy } } : {}),
    });
    return (url, { stream: _, ...init } = {}) => fetch(url, { ...init, client } as RequestInit);
  }
  return (url, { stream: _, ...init } = {}) => fetch(url, init);
}
