/**
 * The operator's brand (IDP_BRAND_*): the name, logo, favicon, colour and extra stylesheet shown
 * on every page and in every mail. src/app/brand.ts reads the files once at start and hands their
 * bytes here; this module checks them (by their first bytes, never by the file name), derives the
 * colours and names the URLs under /static/brand/ they are served at (http/endpoints/ops/static.ts).
 */
import { createHash } from "node:crypto";
import type { Config } from "../../config/schema.ts";

/** A file of the brand, served as `/static/<name>?v=<version>` (the version changes with its bytes, so it is cached long). */
export type BrandFile = { readonly name: string; readonly type: string; readonly bytes: Uint8Array; readonly version: string };

export type BrandColors = {
  /**
   * The primary button and the header mark: the operator's colour, unless neither white nor dark
   * text reads on it (a mid grey), then darkened until white text does.
   */
  readonly brand: string;
  /** White or near-black, whichever reads on `brand` (WCAG 2.2 SC 1.4.3: at least 4.5:1). */
  readonly brand_text: string;
  readonly brand_hover: string;
  /** Links and accents on the light card: the colour darkened until it reads (4.5:1). */
  readonly accent_light: string;
  readonly accent_light_hover: string;
  /** The same on the dark card (prefers-color-scheme: dark): lightened until it reads. */
  readonly accent_dark: string;
  readonly accent_dark_hover: string;
};

export type Brand = {
  /** IDP_BRAND_NAME, or the issuer's host. */
  readonly name: string;
  readonly colors: BrandColors | null;
  readonly logo: BrandFile | null;
  readonly favicon: BrandFile | null;
  /** Our generated colour stylesheet (/static/brand/colors.css), then the operator's (/static/brand/custom.css): linked after style.css. */
  readonly stylesheets: readonly BrandFile[];
};

/** Largest logo or favicon accepted (bytes): a header image, not a photo. */
export const BRAND_IMAGE_MAX_BYTES = 512 * 1024;
/** Largest custom stylesheet accepted (bytes). */
export const BRAND_CSS_MAX_BYTES = 256 * 1024;

/** A brand file the start refuses; the message names the setting and the file. */
export class BrandError extends Error {
  override name = "BrandError";
}

type ImageKind = { ext: string; type: string };
const PNG: ImageKind = { ext: "png", type: "image/png" };
const WEBP: ImageKind = { ext: "webp", type: "image/webp" };
const SVG: ImageKind = { ext: "svg", type: "image/svg+xml" };
const ICO: ImageKind = { ext: "ico", type: "image/x-icon" };

function starts_with(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return bytes.length >= at + prefix.length && prefix.every((byte, i) => bytes[at + i] === byte);
}

/**
 * What an image is by its first bytes (the file name proves nothing): PNG's 8-byte signature
 * (PNG §5.2), WebP's RIFF…WEBP header, an ICO header (reserved 0, type 1), or SVG: UTF-8 text
 * whose first element is `<svg` after an optional BOM, XML declaration, comments and doctype.
 */
export function sniff_image(bytes: Uint8Array): ImageKind | null {
  if (starts_with(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return PNG;
  if (starts_with(bytes, [0x52, 0x49, 0x46, 0x46]) && starts_with(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return WEBP;
  if (starts_with(bytes, [0x00, 0x00, 0x01, 0x00]) && bytes.length >= 6 && bytes[4]! + bytes[5]! > 0) return ICO;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, 4096));
  } catch {
    return null;
  }
  const head = text.replace(/^\uFEFF/, "").replace(/^(\s+|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>)*/i, "");
  return /^<svg[\s>]/.test(head) ? SVG : null;
}

function version(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("base64url").slice(0, 16);
}

function brand_image(setting: string, path: string, bytes: Uint8Array, base: string, allowed: readonly ImageKind[]): BrandFile {
  if (bytes.length > BRAND_IMAGE_MAX_BYTES) throw new BrandError(`${setting}: ${path} is ${bytes.length} bytes; at most ${BRAND_IMAGE_MAX_BYTES} are accepted`);
  const kind = sniff_image(bytes);
  if (kind === null || !allowed.includes(kind)) {
    throw new BrandError(
      `${setting}: ${path} is not ${allowed
        .map((k) => k.ext.toUpperCase())
        .join(", ")
        .replace(/, ([^,]*)$/, " or $1")} (checked by its content, not its name)`,
    );
  }
  return { name: `brand/${base}.${kind.ext}`, type: kind.type, bytes, version: version(bytes) };
}

function rgb(hex: string): [number, number, number] {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

function to_hex([r, g, b]: readonly number[]): string {
  return `#${[r, g, b]
    .map((c) =>
      Math.round(Math.min(255, Math.max(0, c!)))
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
}

/** WCAG 2.2 relative luminance. */
function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2.2 contrast ratio of two colours (1 to 21). */
export function contrast_ratio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** `color` mixed with `toward` by `amount` (0 to 1). */
function mix(color: string, toward: string, amount: number): string {
  const a = rgb(color);
  const b = rgb(toward);
  return to_hex(a.map((c, i) => c + (b[i]! - c) * amount));
}

/** The colour moved toward `toward` in small steps until it has 4.5:1 against every background. */
function readable_on(color: string, backgrounds: readonly string[], toward: string): string {
  for (let step = 0; step <= 20; step++) {
    const candidate = mix(color, toward, step / 20);
    if (backgrounds.every((bg) => contrast_ratio(candidate, bg) >= 4.5)) return candidate;
  }
  return toward;
}

/** Text on white/near-black, from style.css: the light card and page, the dark card and page. */
const WHITE = "#ffffff";
const DARK_TEXT = "#1b1f24";
const LIGHT_BACKGROUNDS = ["#ffffff", "#f4f5f7"];
const DARK_BACKGROUNDS = ["#1c2025", "#121417"];

/** Every colour the pages and mails need from the operator's one colour. */
export function brand_colors(color: string): BrandColors {
  // WCAG 2.2 SC 1.4.3: white text when it reads (4.5:1), else dark text; when neither does, the
  // button is darkened until white text reads.
  const white_reads = contrast_ratio(WHITE, color) >= 4.5;
  const dark_reads = contrast_ratio(DARK_TEXT, color) >= 4.5;
  const brand = white_reads || dark_reads ? color : readable_on(color, [WHITE], "#000000");
  const brand_text = white_reads || !dark_reads ? WHITE : DARK_TEXT;
  // Hovering moves away from the text colour, so the contrast only grows.
  const brand_hover = mix(brand, brand_text === WHITE ? "#000000" : WHITE, 0.15);
  const accent_light = readable_on(color, LIGHT_BACKGROUNDS, "#000000");
  const accent_dark = readable_on(color, DARK_BACKGROUNDS, WHITE);
  return {
    brand,
    brand_text,
    brand_hover,
    accent_light,
    accent_light_hover: mix(accent_light, "#000000", 0.2),
    accent_dark,
    accent_dark_hover: mix(accent_dark, WHITE, 0.2),
  };
}

/** The stylesheet that puts the colours into style.css's custom properties. */
export function colors_css(c: BrandColors): string {
  return (
    `/* Generated from IDP_BRAND_COLOR. */\n` +
    `:root {\n  --brand: ${c.brand};\n  --brand-text: ${c.brand_text};\n  --brand-hover: ${c.brand_hover};\n  --accent: ${c.accent_light};\n  --accent-hover: ${c.accent_light_hover};\n}\n` +
    `@media (prefers-color-scheme: dark) {\n  :root {\n    --accent: ${c.accent_dark};\n    --accent-hover: ${c.accent_dark_hover};\n  }\n}\n`
  );
}

/** The files of the brand as read from disk (src/app/brand.ts), each with the path it came from. */
export type BrandSources = {
  logo?: { path: string; bytes: Uint8Array };
  favicon?: { path: string; bytes: Uint8Array };
  css?: { path: string; bytes: Uint8Array };
};

/** Checks the brand files and derives the brand; raises BrandError naming the setting. */
export function make_brand(config: Config, sources: BrandSources = {}): Brand {
  const settings = config.brand;
  const colors = settings.color === undefined ? null : brand_colors(settings.color);
  const stylesheets: BrandFile[] = [];
  if (colors !== null) {
    const bytes = new TextEncoder().encode(colors_css(colors));
    stylesheets.push({ name: "brand/colors.css", type: "text/css; charset=utf-8", bytes, version: version(bytes) });
  }
  if (sources.css !== undefined) {
    const { path, bytes } = sources.css;
    if (bytes.length > BRAND_CSS_MAX_BYTES) throw new BrandError(`IDP_BRAND_CSS: ${path} is ${bytes.length} bytes; at most ${BRAND_CSS_MAX_BYTES} are accepted`);
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw new BrandError(`IDP_BRAND_CSS: ${path} is not UTF-8 text`);
    }
    stylesheets.push({ name: "brand/custom.css", type: "text/css; charset=utf-8", bytes, version: version(bytes) });
  }
  return {
    name: settings.name ?? new URL(config.issuer).host,
    colors,
    logo: sources.logo === undefined ? null : brand_image("IDP_BRAND_LOGO", sources.logo.path, sources.logo.bytes, "logo", [PNG, WEBP, SVG]),
    favicon: sources.favicon === undefined ? null : brand_image("IDP_BRAND_FAVICON", sources.favicon.path, sources.favicon.bytes, "favicon", [SVG, PNG, ICO]),
    stylesheets,
  };
}

/** Where a brand file is served: under the issuer, versioned by its content. */
export function brand_url(issuer: string, file: BrandFile): string {
  return `${issuer}/static/${file.name}?v=${file.version}`;
}

/** Every brand file, by its name under /static/. */
export function brand_files(brand: Brand): BrandFile[] {
  return [...(brand.logo ? [brand.logo] : []), ...(brand.favicon ? [brand.favicon] : []), ...brand.stylesheets];
}
