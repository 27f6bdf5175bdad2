import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../config/load.ts";
import type { KubeConnection } from "../../kube/connection.ts";
import { CONFIG_DOMAIN } from "../../config-domain.ts";
import { healthAddress } from "./serve.ts";

/** Issue 29.12: where the health server listens, as a user of each way of running mon expects. */
describe("healthCheck.address", () => {
  const config = (yaml: string) => parseConfig(yaml, "config.yaml", {}, CONFIG_DOMAIN);
  const via = (source: string) => ({ source }) as KubeConnection;

  test("in a cluster: all interfaces (the kubelet probes the pod from outside it)", () => {
    expect(healthAddress({ config: config(""), connection: via("in-cluster") })).toEqual({});
  });

  test("with a kubeconfig (a workstation, the simulator): loopback only, and the log line says why", () => {
    for (const source of ["kubeconfig /home/me/.kube/config", "default kubeconfig", "built-in simulator"])
      expect(healthAddress({ config: config(""), connection: via(source) })).toEqual({
        hostname: "127.0.0.1",
        why: "loopback only: mon runs with a kubeconfig; healthCheck.address opens it",
      });
  });

  test("healthCheck.address wins either way", () => {
    const open = config("healthCheck:\n  address: 0.0.0.0\n");
    expect(healthAddress({ config: open, connection: via("default kubeconfig") })).toEqual({ hostname: "0.0.0.0" });
    const inside = config("healthCheck:\n  address: 10.0.0.7\n");
    expect(healthAddress({ config: inside, connection: via("in-cluster") })).toEqual({ hostname: "10.0.0.7" });
  });
});
