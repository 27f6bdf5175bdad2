import { CONFIG_DOMAIN } from "../config-domain.ts";
import * as load from "../config/load.ts";

/**
 * The configuration pipeline bound to the product's domain (every provider, every catalogue reason), for tests:
 * the same functions `mon run` and `mon lint` call.
 */
type Env = Readonly<Record<string, string | undefined>>;

/** `parseConfig` with the product's providers and reasons. */
export const parseConfig = (text: string, file: string | undefined, env: Env) =>
  load.parseConfig(text, file, env, CONFIG_DOMAIN);

/** `checkConfig` with the product's providers and reasons. */
export const checkConfig = (text: string, file: string | undefined, env: Env) =>
  load.checkConfig(text, file, env, CONFIG_DOMAIN);

/** `loadConfig` with the product's providers and reasons. */
export const loadConfig = (options: { env: Env; path?: string }) =>
  load.loadConfig({ ...options, domain: CONFIG_DOMAIN });

/** `checkConfigSource` with the product's providers and reasons. */
export const checkConfigSource = (options: { env: Env; path?: string }) =>
  load.checkConfigSource({ ...options, domain: CONFIG_DOMAIN });
