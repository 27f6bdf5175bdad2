/** A Kubernetes label selector (metav1.LabelSelector): namespaceSelector, a NetworkPolicy's podSelector. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: string;
    readonly values?: readonly string[];
  }[];
}

/**
 * Whether `selector` selects an object with `labels`, as the apiserver decides it: every matchLabels pair and
 * every matchExpression (In, NotIn, Exists, DoesNotExist) must hold; an empty selector selects everything.
 * An unknown operator selects nothing.
 */
export function selects(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const listed = has && (e.values ?? []).includes(labels[e.key]!);
    if (
      e.operator === "In"
        ? !listed
        : e.operator === "NotIn"
          ? listed
          : e.operator === "Exists"
            ? !has
            : e.operator === "DoesNotExist"
              ? has
              : true
    )
      return false;
  }
  return true;
}

/** Whether a selector is empty: it selects every object. */
export function selectsAll(selector: LabelSelector | undefined): boolean {
  return Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;
}
