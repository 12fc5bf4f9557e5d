/**
 * POST /account/profile: a signed-in user changes their names and the custom attributes the
 * operator made user-editable (oidc/accounts/profile.ts). Fields `name`, `given_name`,
 * `family_name`, and `attribute.<name>` per attribute (a list comma-separated, a boolean
 * true/false, empty clears). Problems are shown on the page, next to the form, with what was typed.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { account_values } from "../../pages/account.ts";
import { account_page_scripts } from "../../pages/passkeys.ts";
import { check_profile, editable_attributes, save_profile, type ProfileProblem } from "../../../oidc/accounts/profile.ts";
import { ACCOUNT_PATHS, account_session, account_url, check_account_csrf, type AccountSession } from "../../../oidc/browser/account_guard.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";

/** The prefix of an attribute's field. */
export const ATTRIBUTE_FIELD = "attribute.";
/** More fields than this are not a profile form (MAX_ATTRIBUTES of attributes/definitions.ts, plus the names). */
const MAX_FIELDS = 110;

export const AccountProfileRequest = Fw.Request(
  "AccountProfileRequest",
  z
    .object({
      csrf: z.string().max(256).optional(),
      name: z.string().max(1024).optional(),
      given_name: z.string().max(1024).optional(),
      family_name: z.string().max(1024).optional(),
    })
    // `attribute.<name>`: the string[] of the longest list is about MAX_ITEMS × MAX_ITEM characters.
    .catchall(z.string().max(16_384))
    .refine((form) => Object.keys(form).length <= MAX_FIELDS, "too many fields"),
  { on_invalid: invalid_form },
);

export const AccountProfile = (idp: Provider) =>
  class AccountProfile extends Fw.Renderable(Fw.Endpoint(AccountProfileRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ACCOUNT_PATHS.profile}`;

    async call() {
      const session = await account_session(idp, this.cookies);
      if (session === null) return this.redirect_to(account_url(idp, "login"), 303);
      const form = this.account_profile_request as Record<string, string | undefined>;
      check_account_csrf(session, form.csrf);
      const attributes: Record<string, string> = {};
      for (const [key, value] of Object.entries(form)) if (key.startsWith(ATTRIBUTE_FIELD) && value !== undefined) attributes[key.slice(ATTRIBUTE_FIELD.length)] = value;
      const names = { name: form.name, given_name: form.given_name, family_name: form.family_name };
      const checked = check_profile(await editable_attributes(idp), {
        names: Object.fromEntries(Object.entries(names).filter(([, value]) => value !== undefined)) as Record<string, string>,
        attributes,
      });
      if (!checked.ok) return this.failed(session, checked.problems, form);
      await save_profile(idp, session.user, checked.patch, checked.values, client_ip(this.context, idp.config));
      return this.redirect_to(`${account_url(idp)}?done=profile_saved`, 303);
    }

    async failed(session: AccountSession, problems: ProfileProblem[], typed: Record<string, string | undefined>) {
      const values = await account_values(idp, session, { profile_problems: problems, profile_typed: typed });
      return this.view("account", { ...values, ...account_page_scripts(idp, this.response.headers) }, 400);
    }
  };
