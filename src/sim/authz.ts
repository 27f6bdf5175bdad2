/**
 * One RBAC-like rule: verbs on resources of API groups, optionally only in some namespaces and only on some
 * objects by name (RBAC's `resourceNames`). `*` matches anything. A rule with `paths` is a non-resource rule
 * (RBAC's `nonResourceURLs`, e.g. `/metrics`): it allows only those paths, with `get`.
 */
export interface SimRule {
  readonly groups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly namespaces?: readonly string[];
  readonly names?: readonly string[];
  readonly paths?: readonly string[];
}

/** Who a request is: a user name and its rules (`all` for the admin). */
export interface SimUser {
  readonly name: string;
  readonly rules: readonly SimRule[] | "all";
}

/** What a request asks to do (the attributes of a SubjectAccessReview). */
export interface Attributes {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly namespace?: string;
  /** The object's name: a get, update or delete of one object, or a list or watch selecting `metadata.name`. */
  readonly name?: string;
}

/**
 * The simulator's authorizer (ARCHITECTURE.md: "SelfSubjectAccessReview answered from a configurable rule
 * set"): tokens map to users; a user's rules allow a request when one rule matches its verb, group, resource
 * and (if the rule names namespaces) namespace. A cluster-scope request is allowed only by a rule without
 * namespaces, as with ClusterRoles.
 */
export class SimAuthorizer {
  private readonly users = new Map<string, SimUser>();

  /** Adds (or replaces) the user behind `token`. */
  addUser(token: string, user: SimUser): void {
    this.users.set(token, user);
  }

  /** Removes every token (revocation) except those listed. */
  keepOnly(tokens: readonly string[]): void {
    for (const token of [...this.users.keys()]) if (!tokens.includes(token)) this.users.delete(token);
  }

  /** The user behind a bearer token, if any. */
  user(token: string): SimUser | undefined {
    return this.users.get(token);
  }

  /** Whether `user` may do what `attributes` describe. */
  allowed(user: SimUser, attributes: Attributes): boolean {
    if (user.rules === "all") return true;
    return user.rules.some((rule) => {
      const any = (list: readonly string[], value: string) => list.includes("*") || list.includes(value);
      if (rule.paths) return false;
      // As RBAC: a rule naming objects never allows a request without a name (a create, a plain list).
      if (rule.names && (attributes.name === undefined || !rule.names.includes(attributes.name))) return false;
      if (
        !any(rule.verbs, attributes.verb) ||
        !any(rule.groups, attributes.group) ||
        !any(rule.resources, attributes.resource)
      )
        return false;
      if (!rule.namespaces) return true;
      return attributes.namespace !== undefined && any(rule.namespaces, attributes.namespace);
    });
  }
}

/**
 * Whether `user` may GET the non-resource path (RBAC's nonResourceURLs; a trailing `*` matches a prefix).
 * Health, version and discovery paths are open to every authenticated user, as Kubernetes' default
 * system:public-info-viewer and system:discovery roles make them; callers check only the others (/metrics).
 */
export function pathAllowed(user: SimUser, path: string): boolean {
  if (user.rules === "all") return true;
  return user.rules.some(
    (rule) =>
      rule.paths !== undefined &&
      (rule.verbs.includes("get") || rule.verbs.includes("*")) &&
      rule.paths.some((p) => p === "*" || p === path || (p.endsWith("*") && path.startsWith(p.slice(0, -1)))),
  );
}

/** kube-apiserver's 403 message: `pods is forbidden: User "x" cannot list resource "pods" in API group "" at the cluster scope`. */
export function forbiddenMessage(user: SimUser, attributes: Attributes): string {
  const qualified = attributes.group ? `${attributes.resource}.${attributes.group}` : attributes.resource;
  const scope = attributes.namespace ? `in the namespace "${attributes.namespace}"` : "at the cluster scope";
  return `${qualified} is forbidden: User "${user.name}" cannot ${attributes.verb} resource "${attributes.resource}" in API group "${attributes.group}" ${scope}`;
}
