/**
 * Reads the brand files named by IDP_BRAND_LOGO, IDP_BRAND_FAVICON and IDP_BRAND_CSS once at
 * start and checks them (oidc/ui/brand.ts). A file that is missing, too large or of the wrong kind
 * stops the start with a ConfigError naming the setting, rather than a broken page later.
 */
import { readFileSync, statSync } from "node:fs";
import { BRAND_CSS_MAX_BYTES, BRAND_IMAGE_MAX_BYTES, BrandError, make_brand, type Brand, type BrandSources } from "../oidc/ui/brand.ts";
import { ConfigError, type Config } from "./config.ts";

function read(setting: string, path: string | undefined, max_bytes: number): { path: string; bytes: Uint8Array } | undefined {
  if (path === undefined) return undefined;
  try {
    // Refused before reading: a wrong path (a disk image) must not be read whole into memory.
    const size = statSync(path).size;
    if (size > max_bytes) throw new ConfigError(`Invalid configuration:\n  ${setting}: ${path} is ${size} bytes; at most ${max_bytes} are accepted`);
    return { path, bytes: new Uint8Array(readFileSync(path)) };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`Invalid configuration:\n  ${setting}: cannot read ${path}: ${(error as Error).message}`);
  }
}

/** The brand of this configuration, its files read and checked. */
export function load_brand(config: Config): Brand {
  const sources: BrandSources = {};
  const logo = read("brand.logo (IDP_BRAND_LOGO)", config.brand.logo, BRAND_IMAGE_MAX_BYTES);
  const favicon = read("brand.favicon (IDP_BRAND_FAVICON)", config.brand.favicon, BRAND_IMAGE_MAX_BYTES);
  const css = read("brand.css (IDP_BRAND_CSS)", config.brand.css, BRAND_CSS_MAX_BYTES);
  if (logo) sources.logo = logo;
  if (favicon) sources.favicon = favicon;
  if (css) sources.css = css;
  try {
    return make_brand(config, sources);
  } catch (error) {
    if (error instanceof BrandError) throw new ConfigError(`Invalid configuration:\n  ${error.message}`);
    throw error;
  }
}
