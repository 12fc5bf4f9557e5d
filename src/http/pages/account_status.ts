/**
 * The page a sign-in shows instead of signing in an account that is not active
 * (oidc/accounts/account_status.ts): what to do, and for an unverified address a button that
 * mails the confirmation link again (a ticket bound to this browser, verification.ts).
 */
import type { StatusRefusal } from "../../oidc/accounts/account_status.ts";
import { page_form_token } from "../../oidc/browser/page_forms.ts";
import { begin_resend_ticket } from "../../oidc/accounts/verification.ts";
import type { CookieReader, CookieToSet } from "../../oidc/browser/cookies.ts";
import type { Provider } from "../../oidc/provider.ts";
import type { UserRow } from "../../store/types.ts";
import { layout_values } from "./layout.ts";

export const RESEND_VERIFICATION_PATH = "/email/verify/resend";

/** The values of views/message.eta for a refused sign-in, and the cookie to set with it. */
export async function status_page(
  idp: Provider,
  cookies: CookieReader,
  user: UserRow,
  refusal: StatusRefusal,
  back_url: string,
): Promise<{ values: Record<string, unknown>; cookie: CookieToSet }> {
  const { csrf, cookie } = page_form_token(idp, cookies, "resend_verification");
  const resend = refusal.status === "unverified" && idp.mail.enabled && user.email !== null;
  const ticket = resend ? await begin_resend_ticket(idp, user, cookie.value) : null;
  return {
    cookie,
    values: {
      ...layout_values(idp, refusal.title),
      heading: refusal.title,
      message: refusal.message,
      form:
        ticket === null
          ? null
          : {
              action: `${idp.config.issuer}${RESEND_VERIFICATION_PATH}`,
              csrf,
              hidden: [{ name: "ticket", value: ticket }],
              button: "Send the confirmation link again",
              primary: true,
            },
      link: { href: back_url, text: "Back to sign in" },
    },
  };
}
