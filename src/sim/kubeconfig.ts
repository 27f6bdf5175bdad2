import { stringify } from "yaml";

/**
 * A kubeconfig for the simulator (YAML text): server URL, CA data, and a bearer token and/or a client
 * certificate. `kubectl --kubeconfig FILE` and `mon run --kubeconfig FILE` both read it.
 */
export function renderKubeconfig(options: {
  server: string;
  caCert: string;
  token?: string;
  clientCert?: string;
  clientKey?: string;
  name?: string;
}): string {
  const name = options.name ?? "mon-sim";
  const b64 = (text: string) => Buffer.from(text).toString("base64");
  const user: Record<string, string> = {};
  if (options.token) user.token = options.token;
  if (options.clientCert && options.clientKey) {
    user["client-certificate-data"] = b64(options.clientCert);
    user["client-key-data"] = b64(options.clientKey);
  }
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server: options.server, "certificate-authority-data": b64(options.caCert) } }],
    users: [{ name: "admin", user }],
    contexts: [{ name, context: { cluster: name, user: "admin" } }],
    "current-context": name,
    preferences: {},
  });
}
