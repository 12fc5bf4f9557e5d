/**
 * Discovery advertises the scopes and claim names of the operator's attributes
 * (oidc/attributes/claims.ts), and Bun answers it natively from a frozen copy: this poll notices
 * a definition added, renamed or removed (by `idp attributes`, the admin API or the console, in
 * any instance) and has the copy recomputed, within one interval, as the key poll does for JWKS.
 */
import type { Provider } from "../oidc/provider.ts";

export type AttributeWatch = { stop(): void };

export function watch_attributes(idp: Provider, refresh: () => Promise<unknown>, ms: number, on_error: (error: unknown) => void): AttributeWatch {
  const signature = async () => JSON.stringify((await idp.store.list_attribute_definitions()).map((d) => [d.scope, d.claim]));
  let last: Promise<string> = signature().catch(() => "");
  const tick = async () => {
    const [before, now] = [await last, await signature()];
    last = Promise.resolve(now);
    if (before !== now) await refresh();
  };
  const timer = setInterval(() => void tick().catch(on_error), ms);
  (timer as { unref?: () => void }).unref?.();
  return { stop: () => clearInterval(timer) };
}
