/**
 * Who is hurt by an incident (issue 32 "who is hurt"): how users reach what fails and what of it is left,
 * how many replicas of each workload remain, and which other workloads depend on it.
 */
export interface Impact {
  /** The ways users reach a Service that loses backends: an Ingress, a Gateway API route, a LoadBalancer, a NodePort. */
  readonly entryPoints: readonly EntryPoint[];
  /** Services hurt that no user entry point leads to (internal ones), `namespace/name`. */
  readonly internal: readonly ServiceBackends[];
  /** The incident's workloads: available replicas of those desired. */
  readonly workloads: readonly { readonly workload: string; readonly available: number; readonly desired: number }[];
  /** Other workloads whose configuration names a hurt Service (`kind namespace/name`), at most 5 named. */
  readonly dependents: readonly string[];
  /** Dependents found beyond those named. */
  readonly moreDependents: number;
}

/** A Service's ready backends: pods it selects that are ready and not failing, of all it selects. */
export interface ServiceBackends {
  readonly service: string;
  readonly ready: number;
  readonly total: number;
}

/** One way users reach a hurt Service: `via` (`ingress web`, `httproute shop`, `a LoadBalancer`) and its hosts. */
export interface EntryPoint extends ServiceBackends {
  readonly via: string;
  readonly hosts: readonly string[];
}
