/**
 * What the audit log keeps of forward authentication without a row per request: the first time
 * a session opens an application (`protected_app_access`), and a refusal by the application's
 * groups (`access_denied`, `details.stage` "forward_auth"), once per session, application and
 * rule.
 *
 * The first access is decided by the store (`record_protected_app_access` inserts the pair once,
 * atomically, so every instance agrees); a small memory of the pairs this instance saw already
 * spares that write on every later request, so a check of a known pair writes nothing. Refusals
 * are remembered in the same memory only (an instance restarted logs one again).
 */
import { record_event } from "../audit.ts";
import type { Provider } from "../provider.ts";
import type { ProtectedAppRow, SessionRow } from "../../store/types.ts";

/** Pairs remembered per provider; the oldest go first past this many (a busy instance writes again for those). */
const MEMORY = 10_000;
const seen = new WeakMap<Provider, Set<string>>();

function remembered(idp: Provider, key: string): boolean {
  let keys = seen.get(idp);
  if (keys === undefined) seen.set(idp, (keys = new Set()));
  if (keys.has(key)) return true;
  if (keys.size >= MEMORY) keys.delete(keys.values().next().value as string);
  keys.add(key);
  return false;
}

function forget(idp: Provider, key: string): void {
  seen.get(idp)?.delete(key);
}

/** Audits the session's first access to the application (once, whichever instance sees it first). */
export async function note_access(idp: Provider, session: SessionRow, app: ProtectedAppRow, host: string, ip: string | null): Promise<void> {
  const key = `a\n${session.id_hash}\n${app.name}`;
  if (remembered(idp, key)) return;
  try {
    if (!(await idp.store.record_protected_app_access(session.id_hash, app.name, idp.now()))) return;
  } catch (error) {
    // Not remembered: the next request tries again.
    forget(idp, key);
    throw error;
  }
  await record_event(idp, { type: "protected_app_access", outcome: "success", user_id: session.user_id, ip, details: { app: app.name, host } });
}

/** Audits a refusal by the application's groups, once per session, application and rule on this instance. */
export async function note_refusal(idp: Provider, session: SessionRow, app: ProtectedAppRow, rules: readonly string[], ip: string | null): Promise<void> {
  if (remembered(idp, `d\n${session.id_hash}\n${app.name}\n${rules.join(" ")}`)) return;
  await record_event(idp, {
    type: "access_denied",
    outcome: "failure",
    user_id: session.user_id,
    ip,
    details: { reason: "groups", stage: "forward_auth", app: app.name, ...(rules.length > 0 ? { rules: [...rules] } : {}) },
  });
}
