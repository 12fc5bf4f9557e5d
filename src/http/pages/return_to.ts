/**
 * The authorization request a person was in when they left the sign-in page (forgot password,
 * a mailed link): carried as the `interaction` parameter so they land back on that sign-in, and
 * the application gets its answer, once they are done.
 */
import { account_url } from "../../oidc/browser/account_guard.ts";
import type { CookieReader } from "../../oidc/browser/cookies.ts";
import { PageError } from "../../oidc/errors.ts";
import { interaction_url, load_interaction } from "../../oidc/authorize/interactions.ts";
import type { Provider } from "../../oidc/provider.ts";

/** Interaction ids are random_token(32): anything else is dropped, never echoed. */
const INTERACTION_ID = /^[A-Za-z0-9_-]{43}$/;

export function interaction_param(value: string | undefined): string | null {
  return value !== undefined && INTERACTION_ID.test(value) ? value : null;
}

/** The query parameters that carry the interaction on (none without one). */
export function interaction_params(id: string | null): Record<string, string> {
  return id === null ? {} : { interaction: id };
}

/**
 * Where to sign in next: the interaction's sign-in page when it is still alive and belongs to
 * this browser (interactions.ts binds it), else the account's own sign-in.
 */
export async function sign_in_url(idp: Provider, cookies: CookieReader, interaction_id: string | null): Promise<string> {
  if (interaction_id === null) return account_url(idp, "login");
  try {
    const interaction = await load_interaction(idp, interaction_id, cookies);
    if (interaction !== null) return interaction_url(idp, interaction.id, "login");
  } catch (error) {
    // Expired, or started in another browser: the account's sign-in still works.
    if (!(error instanceof PageError)) throw error;
  }
  return account_url(idp, "login");
}
