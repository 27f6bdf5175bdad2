import { defineCommand } from "citty";
import { runInstallCommand } from "../../install/command.ts";

/**
 * `mon install [features]` (spec 4.4, 9.3; docs/install.md "The installer"): installs or changes mon in a
 * cluster with the user's kubeconfig. Every question is also a flag; on a terminal without `--yes` the
 * unanswered ones are asked with consola's prompts (the provider catalog drives the provider's questions),
 * elsewhere the current installation's values are kept. `mon install features` lists the feature catalog of the
 * installed release. Exit 0 done, 1 refused (one line per problem), 2 bad flags.
 */
export default defineCommand({
  meta: { name: "install", description: "Install or change mon in a cluster (configuration, credentials, license)." },
  args: {
    action: { type: "positional", required: false, description: "features: list the installed release's features" },
    kubeconfig: { type: "string", description: "Path to a kubeconfig (default: KUBECONFIG, then ~/.kube/config)" },
    namespace: { type: "string", description: "mon's namespace", default: "mon" },
    "cluster-name": { type: "string", description: "app.clusterName" },
    provider: { type: "string", description: "An alert provider to add or reconfigure (mon features lists them)" },
    set: {
      type: "string",
      description: "An option of --provider as name=value (repeatable; credentials go to the Secret)",
    },
    "remove-provider": { type: "string", description: "Remove an alert provider and its credentials" },
    overlay: { type: "boolean", description: "Watch MonConfig overlays (--no-overlay turns it off)" },
    rbac: { type: "string", description: "full or least-privilege" },
    "watch-secrets": {
      type: "boolean",
      description: "Watch Secrets (--no-watch-secrets: no Secret permission at all)",
    },
    image: { type: "string", description: "The image (a mirror for air-gapped clusters)" },
    "proxy-url": {
      type: "string",
      description: "app.proxyURL (with credentials: stored in the Secret); empty removes it",
    },
    "ca-bundle": { type: "string", description: "A PEM file of CAs for outgoing HTTPS (app.caBundlePath)" },
    "egress-ports": {
      type: "string",
      description: "More egress ports in the NetworkPolicy (proxy, providers): 3128,8443",
    },
    ha: {
      type: "boolean",
      description: "Pro HA: a leader and a warm standby on the state volume (--no-ha: one replica)",
    },
    replicas: { type: "string", description: "Replicas with --ha (default 2)" },
    "network-policy": { type: "boolean", description: "The NetworkPolicy of the network-policy component" },
    "api-server": {
      type: "string",
      description:
        "No Service proxy in the cluster: run on the node's network and reach the API server at host:port (empty removes it)",
    },
    "license-key": { type: "string", description: "Add or replace the Pro license key" },
    "remove-license": { type: "boolean", description: "Remove the license key (the binding is released)" },
    uninstall: {
      type: "boolean",
      description: "Remove what mon install created and release the license binding (keeps the key, state and CRD)",
      default: false,
    },
    purge: {
      type: "boolean",
      description: "With --uninstall: also the license Secrets, the state volume, the CRD and the namespace",
      default: false,
    },
    yes: { type: "boolean", description: "Ask nothing: flags and the current installation decide", default: false },
    "dry-run": { type: "boolean", description: "Print what would be applied (Secret values hidden)", default: false },
  },
  run: ({ args, rawArgs }) => runInstallCommand(args, rawArgs),
});
