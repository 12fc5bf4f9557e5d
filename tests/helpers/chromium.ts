/**
 * Debian's Chromium through playwright-core, for the browser tests: launching it (or skipping
 * with a clear message when it is not installed — CI installs it), screenshots of a page at
 * phone and desktop widths, and the axe-core accessibility check.
 *
 * On Deno the browser tests are skipped: playwright-core reads /proc as it loads (its WSL check,
 * /proc/sys/fs/binfmt_misc/WSLInterop), and Deno lets a process read /proc only under
 * --allow-all: neither --allow-read=/proc nor --allow-sys, nor every other permission together,
 * will do. The same browser suites run from Bun against a server on Deno instead
 * (IDP_E2E_TARGET=deno, tests/helpers/target.ts). playwright-core is therefore loaded only by
 * `launch`, never on Deno.
 */
import { mkdirSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { RUNTIME } from "./test_api.ts";

export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or null when they can. */
const unavailable =
  RUNTIME !== "bun"
    ? "playwright-core reads /proc, which Deno allows only under --allow-all (run them from Bun with IDP_E2E_TARGET=deno)"
    : existsSync(CHROMIUM)
      ? null
      : `${CHROMIUM} is missing (apt-get install chromium)`;
export const chromium_available = unavailable === null;
if (unavailable !== null) console.warn(`browser tests skipped: ${unavailable}`);

export const SCREENSHOTS = join(import.meta.dirname, "../../test-artifacts/screenshots");

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

/** Chromium, headless; `extra_args` are added to its command line (a host resolver rule, say). */
export async function launch(extra_args: readonly string[] = []): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
      ...extra_args,
    ],
  });
}

/** Saves `<name>-phone.png` and `<name>-desktop.png` (full page) and leaves the page at desktop width. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const [label, size] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${label}.png`), fullPage: true });
  }
}

/** Horizontal overflow in CSS pixels at the current width (0 when nothing scrolls sideways). */
export function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

const AXE = readFileSync(join(import.meta.dirname, "../../node_modules/axe-core/axe.min.js"), "utf8");

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: number };

/**
 * Runs axe-core (WCAG 2 A and AA rules) on the page. Our CSP forbids inline scripts, so the page
 * must come from a context made with `bypassCSP: true` (used for this check only).
 */
export async function axe(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: AXE });
  const result = (await page.evaluate(`axe.run(document, { runOnly: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] })`)) as {
    violations: { id: string; impact: string | null; help: string; nodes: unknown[] }[];
  };
  return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
}

/** The violations a page must not have: serious or critical ones. */
export function serious(violations: AxeViolation[]): string[] {
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.help}`);
}
