/**
 * The edition mon runs as (spec 1.10): Pro settings take effect only in `pro`. Injected at the composition
 * root; until license handling exists users always get `community` and only tests inject `pro`.
 */
export type Edition = "community" | "pro";
