/**
 * The application page's settings as the template (views/admin/client.eta) lays them out: in
 * sections, each field with its label and hint (catalog keys), its value as the form holds it,
 * what a read-only role sees, and the words of a refusal that name it. The vocabulary is the
 * command line's and the API's (`idp clients add|update`, RFC 7591 §2 members); the choices
 * offered are the provider's own lists (oidc/discovery/metadata.ts).
 */
import type { FieldProblem } from "../../../oidc/admin/errors.ts";
import { GRANT_TYPES, TOKEN_AUTH_METHODS } from "../../../oidc/discovery/metadata.ts";
import { EXCHANGE_MODES, type SettingsForm } from "./client_form.ts";

type Kind = "text" | "url" | "textarea" | "checkbox" | "select" | "checkboxes" | "password";

/** A choice of a select or a set of checkboxes: a catalog label, or the wire value shown as code. */
type Choice = { value: string; label: string | null };

export type Field = {
  name: string;
  kind: Kind;
  label: string;
  hint: string | null;
  value: string | boolean | string[];
  choices: Choice[];
  rows: number;
  maxlength: number;
  /** The words of the refusal about this field, or null. */
  error: string | null;
};

export type Section = { id: string; heading: string; fields: Field[] };

/** A refusal's field (a metadata member, the API's `errors[].field`) → the form field it is about. */
function form_field(problem: FieldProblem): string {
  const { field, message } = problem;
  if (field === "response_types") return "grant_types";
  if (field === "groups") return "allowed_groups";
  if (field.startsWith("token_exchange")) {
    // The policy is one member in the API; here it is three fields (oidc/admin/clients.ts checked_token_exchange's words).
    if (field.includes("subject_clients") || message.startsWith("subject_clients")) return "token_exchange_subject_clients";
    if (field.includes("resources") || /resource/.test(message)) return "token_exchange_resources";
    return "token_exchange";
  }
  return field.split(".")[0]!;
}

/** The words of each refused form field. */
function field_errors(problems: readonly FieldProblem[]): Map<string, string> {
  const errors = new Map<string, string>();
  for (const problem of problems) {
    const name = form_field(problem);
    const known = errors.get(name);
    errors.set(name, known === undefined ? problem.message : `${known}; ${problem.message}`);
  }
  return errors;
}

/**
 * The sections of the form `form`, with the words of `problems`. `signing_algs`: the key ring's,
 * the ID Token algorithms a client may ask for; `admin`: the client may use the admin API, so a
 * change of its credentials asks for the administrator's password.
 */
export function settings_sections(form: SettingsForm, problems: readonly FieldProblem[], options: { signing_algs: readonly string[]; admin: boolean }): Section[] {
  const errors = field_errors(problems);
  const field = (name: keyof SettingsForm | "password", kind: Kind, label: string, extra: Partial<Field> = {}): Field => ({
    name,
    kind,
    label,
    hint: null,
    value: name === "password" ? "" : form[name],
    choices: [],
    rows: 3,
    maxlength: kind === "textarea" ? 20000 : 2048,
    error: errors.get(name) ?? null,
    ...extra,
  });
  const codes = (values: readonly string[]): Choice[] => values.map((value) => ({ value, label: null }));
  const algs = [...new Set([...options.signing_algs, ...(form.id_token_signed_response_alg === "" ? [] : [form.id_token_signed_response_alg])])];
  return [
    {
      id: "names",
      heading: "admin.client.section_names",
      fields: [
        field("client_name", "text", "account.name", { maxlength: 256 }),
        field("client_uri", "url", "admin.client.client_uri", { hint: "admin.client.https_hint" }),
        field("logo_uri", "url", "admin.client.logo_uri"),
        field("policy_uri", "url", "admin.client.policy_uri"),
        field("tos_uri", "url", "admin.client.tos_uri"),
      ],
    },
    {
      id: "sign-in",
      heading: "admin.client.section_sign_in",
      fields: [
        field("application_type", "select", "admin.client.application_type", {
          choices: [
            { value: "web", label: "admin.client.type_web" },
            { value: "native", label: "admin.client.type_native" },
          ],
        }),
        field("redirect_uris", "textarea", "admin.redirect_uris"),
        field("post_logout_redirect_uris", "textarea", "admin.client.post_logout_redirect_uris"),
        field("backchannel_logout_uri", "url", "admin.client.backchannel_logout_uri", { hint: "admin.client.backchannel_hint" }),
        field("backchannel_logout_session_required", "checkbox", "admin.client.backchannel_session_required"),
      ],
    },
    {
      id: "authentication",
      heading: "admin.client_auth",
      fields: [
        field("token_endpoint_auth_method", "select", "admin.client.auth_method", { hint: "admin.client.auth_method_hint", choices: codes(TOKEN_AUTH_METHODS) }),
        field("jwks_uri", "url", "admin.client.jwks_uri", { hint: "admin.client.keys_hint" }),
        field("jwks", "textarea", "admin.client.jwks", { rows: 4, maxlength: 65536 }),
        field("id_token_signed_response_alg", "select", "admin.client.id_token_alg", { choices: [{ value: "", label: "admin.client.alg_default" }, ...codes(algs)] }),
        ...(options.admin ? [field("password", "password", "admin.client.password", { hint: "admin.client.password_hint", maxlength: 4096 })] : []),
      ],
    },
    {
      id: "tokens",
      heading: "admin.client.section_tokens",
      fields: [
        field("grant_types", "checkboxes", "admin.grant_types", { choices: codes(GRANT_TYPES) }),
        field("scope", "text", "admin.client.scope", { hint: "admin.client.scope_hint", maxlength: 1000 }),
        field("skip_consent", "checkbox", "admin.client.skip_consent"),
        field("require_2fa", "checkbox", "admin.client.require_2fa"),
        field("resource_server", "checkbox", "admin.client.resource_server"),
        field("require_pushed_authorization_requests", "checkbox", "admin.client.require_par"),
        field("dpop_bound_access_tokens", "checkbox", "admin.client.dpop_bound"),
        field("fapi_profile", "checkbox", "admin.client.fapi", { hint: "admin.client.fapi_hint" }),
      ],
    },
    {
      id: "groups",
      heading: "admin.groups_policy",
      fields: [
        field("allowed_groups", "text", "admin.allowed_groups", { maxlength: 6500 }),
        field("groups_claim", "text", "admin.groups_claim", { maxlength: 256 }),
        field("groups_prefix", "text", "admin.groups_prefix", { maxlength: 256 }),
        field("groups_prefix_strip", "checkbox", "admin.groups_prefix_strip"),
        field("roles", "textarea", "admin.roles", { rows: 2 }),
      ],
    },
    {
      id: "exchange",
      heading: "admin.client.section_exchange",
      fields: [
        field("token_exchange", "select", "admin.client.token_exchange", {
          hint: "admin.client.token_exchange_hint",
          choices: EXCHANGE_MODES.map((mode) => ({ value: mode, label: `admin.client.exchange_${mode}` })),
        }),
        field("token_exchange_subject_clients", "text", "admin.client.exchange_subject_clients", { maxlength: 20000 }),
        field("token_exchange_resources", "textarea", "admin.client.exchange_resources", { rows: 2 }),
      ],
    },
  ];
}
