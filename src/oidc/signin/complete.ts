/**
 * Completing a sign-in: the browser's session starts once every step (password, second factor,
 * passkey, upstream) is done, and an application's interaction goes on to its next step.
 */
import { record_event } from "../audit.ts";
import { next_step, type ClientResponse } from "../authorize/decision.ts";
import { end_interaction, interaction_url, record_authentication, type Interaction } from "../authorize/interactions.ts";
import type { CookieReader, CookieToSet } from "../browser/cookies.ts";
import { clear_login_failures } from "../limits/login.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow, SessionRow, UserRow } from "../../store/types.ts";
import { end_session_by_cookie, start_session } from "./sessions.ts";

/**
 * Starts the browser's session once every step is done: the previous session ends (fixation,
 * another user), failed attempts are cleared, the sign-in is audited.
 */
export async function sign_in(
  idp: Provider,
  cookies: CookieReader,
  user: UserRow,
  amr: string[],
  ip: string,
  client_id: string | null,
  /** The browser's User-Agent header, kept with the session for the account page's list. */
  user_agent: string | null = null,
): Promise<{ session: SessionRow; cookie: CookieToSet }> {
  await end_session_by_cookie(idp, cookies);
  const started = await start_session(idp, user, amr, { user_agent, ip });
  await clear_login_failures(idp, ip, user.username);
  await record_event(idp, { type: "login", outcome: "success", user_id: user.id, client_id, ip, details: { amr } });
  return started;
}

/**
 * After the sign-in of an application's interaction (the password, or the password and the code):
 * what comes next with the new session — the response to the client, which ends the
 * interaction, or the URL of the next page (consent).
 */
export async function after_sign_in(
  idp: Provider,
  client: ClientRow,
  interaction: Interaction,
  session: SessionRow,
): Promise<{ kind: "respond"; response: ClientResponse } | { kind: "page"; url: string }> {
  const authentication = { user_id: session.user_id, session_id_hash: session.id_hash, auth_time: session.auth_time, amr: session.amr };
  const step = await next_step(idp, client, interaction.request, authentication, { login: true, consent: false });
  if (step.kind === "redirect") {
    await end_interaction(idp, interaction.id);
    return { kind: "respond", response: step.response };
  }
  await record_authentication(idp, interaction.id, authentication);
  return { kind: "page", url: interaction_url(idp, interaction.id, step.kind) };
}
