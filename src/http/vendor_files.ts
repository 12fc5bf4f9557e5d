/**
 * Files of installed packages served under /static/ with ours (no CDN: the pages load scripts
 * from this origin only): static name → path from the repository root. ops/static.ts serves
 * them from the repository; scripts/embed.ts embeds them in the executable.
 */
export const VENDOR_FILES: Readonly<Record<string, string>> = {
  // The WebAuthn browser helper (window.SimpleWebAuthnBrowser) that static/passkeys.js uses.
  "vendor/simplewebauthn-browser.js": "node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js",
};
