/** What a Community message could gain from Pro (spec 2.1 `app.hideProHints`). */
export interface ProHintContext {
  /** Configured providers Community does not deliver to. */
  readonly inactiveProviders: readonly string[];
  /** The maintenance annotations Pro would honour. */
  readonly maintenance: { readonly annotation: string; readonly untilAnnotation: string };
  /** Reasons (lower case) with a severityByReason entry, which Pro would apply. */
  readonly severityReasons: ReadonlySet<string>;
}
