/**
 * Which runtime this process runs on: the one place that asks. The composition root and the
 * adapter selectors (src/platform, src/fw/runtime, src/store drivers) read RUNTIME to load their
 * adapter for it; nothing else asks (docs/ARCHITECTURE.md, "The runtime seam").
 */
export type RuntimeName = "bun" | "deno";

export const RUNTIME: RuntimeName = "Deno" in globalThis ? "deno" : "bun";
