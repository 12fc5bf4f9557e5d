/**
 * POST /admin/users/:id: saves the profile form. The form carries the ETag of the user as shown
 * (oidc/admin/etag.ts, the API's If-Match rule): a user changed since by someone else is not
 * overwritten, the page says so. The fields are checked by the API's schema (UserPatchSchema)
 * and applied by its rule (oidc/admin/users.ts change_user).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { check_if_match, etag_of } from "../../../oidc/admin/etag.ts";
import { change_user } from "../../../oidc/admin/users.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { check_profile } from "../../../oidc/accounts/profile.ts";
import { attribute_text, read_user_attributes } from "../../../oidc/attributes/values.ts";
import type { JsonValue } from "../../../store/types.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { UserPatchSchema } from "../admin/schemas.ts";
import { user_of, user_view } from "../admin/users/find.ts";
import { user_page } from "./user.ts";

const text = z.string().max(2048).optional();
/** The prefix of an attribute's field (as on the account page). */
const ATTRIBUTE_FIELD = "attribute.";
/** More fields than this are not the profile form (MAX_ATTRIBUTES of attributes/definitions.ts, plus the profile's). */
const MAX_FIELDS = 110;

export const AdminConsoleUserUpdateRequest = Fw.Request(
  "AdminConsoleUserUpdateRequest",
  z
    .object({
      csrf: z.string().max(256).optional(),
      etag: z.string().max(64).optional(),
      name: text,
      given_name: text,
      family_name: text,
      email: text,
      email_verified: z.literal("on").optional(),
      phone_number: text,
    })
    // `attribute.<name>`: the string[] of the longest list is about MAX_ITEMS × MAX_ITEM characters.
    .catchall(z.string().max(16_384))
    .refine((form) => Object.keys(form).length <= MAX_FIELDS, "too many fields"),
  { from: ["body"], on_invalid: invalid_form },
);

const FIELDS = ["name", "given_name", "family_name", "email", "phone_number"] as const;

/**
 * The attribute fields of the form checked by the account page's rules (accounts/profile.ts, for
 * every declared attribute here): the values that differ from the stored ones (null clears), or
 * AdminError naming each refused attribute. A field the form does not send is left alone.
 */
async function attribute_changes(idp: Provider, user_id: string, form: Readonly<Record<string, string | undefined>>): Promise<Record<string, JsonValue | null>> {
  const stored = await read_user_attributes(idp.store, user_id);
  // Only the fields changed from what the page showed: a required attribute the user never had
  // does not stop a save of their other fields.
  const typed: Record<string, string> = {};
  for (const [key, value] of Object.entries(form)) {
    const name = key.slice(ATTRIBUTE_FIELD.length);
    if (key.startsWith(ATTRIBUTE_FIELD) && value !== undefined && value.trim() !== attribute_text(stored[name])) typed[name] = value;
  }
  const definitions = await idp.store.list_attribute_definitions();
  const unknown = Object.keys(typed).filter((name) => !definitions.some((d) => d.name === name));
  if (unknown.length > 0)
    throw new AdminError(
      "invalid_request",
      `${unknown.join(", ")}: not a declared attribute`,
      unknown.map((field) => ({ field, message: "is not a declared attribute" })),
    );
  const checked = check_profile(definitions, { names: {}, attributes: typed });
  if (!checked.ok) throw new AdminError("invalid_request", checked.problems.map((p) => `${p.field}: ${p.message}`).join("; "), checked.problems);
  return Object.fromEntries(Object.entries(checked.values).filter(([name, value]) => JSON.stringify(value) !== JSON.stringify(stored[name] ?? null)));
}

export const AdminConsoleUserUpdate = (idp: Provider) =>
  class AdminConsoleUserUpdate extends Fw.Renderable(Fw.Endpoint(AdminConsoleUserUpdateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/users/:id`;

    async call() {
      const gate = await console_gate(idp, this, "edit_users");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_user_update_request;
      check_console_csrf(gate.admin, input.csrf);
      const current = await user_of(idp, this.route_params.id ?? "");
      const ip = client_ip(this.context, idp.config);
      try {
        check_if_match(input.etag ?? null, etag_of(await user_view(idp, current)));
        // An emptied field clears the member (null), as in the API.
        const patch: Record<string, unknown> = {};
        for (const field of FIELDS) patch[field] = (input[field] ?? "").trim() === "" ? null : input[field]!.trim();
        patch.email_verified = input.email_verified === "on" && patch.email !== null;
        const parsed = UserPatchSchema.safeParse(patch);
        if (!parsed.success) {
          const errors = parsed.error.issues.map((issue) => ({ field: String(issue.path[0] ?? "form"), message: issue.message }));
          throw new AdminError("invalid_request", errors.map((e) => `${e.field}: ${e.message}`).join("; "), errors);
        }
        // Only what differs counts as changed (the audit names it).
        const changed = Object.fromEntries(Object.entries(parsed.data).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(current[key as keyof typeof current])));
        const attributes = await attribute_changes(idp, current.id, input as Record<string, string | undefined>);
        const { user } = await change_user(idp.store, current, changed, idp.now());
        if (Object.keys(attributes).length > 0) await idp.store.set_user_attribute_values(user.id, attributes, idp.now());
        await record_console_event(idp, gate.admin.user, ip, {
          action: "user_updated",
          user_id: user.id,
          // The names of the changed fields and attributes, never the values.
          details: { changed: Object.keys(changed), ...(Object.keys(attributes).length > 0 && { attributes: Object.keys(attributes) }) },
        });
        return this.redirect_to(`${console_url(idp, `/users/${user.id}`)}?done=user_updated`, 303);
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, gate.admin.user, ip, {
          action: "user_updated",
          outcome: "failure",
          user_id: current.id,
          details: { reason: error instanceof AdminError ? error.error : "error" },
        });
        const typed = Object.fromEntries(
          Object.entries(input)
            .filter(([key]) => key.startsWith(ATTRIBUTE_FIELD))
            .map(([key, value]) => [key.slice(ATTRIBUTE_FIELD.length), String(value ?? "")]),
        );
        return this.view(
          "admin/user",
          await user_page(idp, gate.admin, current, { error: words, typed_attributes: typed }),
          error instanceof AdminError && error.error === "precondition_failed" ? 412 : 422,
        );
      }
    }
  };
