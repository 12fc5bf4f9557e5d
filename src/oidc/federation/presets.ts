/**
 * Well-known upstream identity providers, as data: what `idp upstreams add NAME --preset P`
 * fills in. The operator still gives the client id and secret registered there (README,
 * "Sign in with another identity provider", one section per preset).
 */
import type { UpstreamInput } from "./upstreams.ts";

export type Preset = Omit<UpstreamInput, "name" | "client_id" | "client_secret"> & {
  /** Placeholders the operator must fill in the URLs (`{tenant}`), with what they mean. */
  placeholders?: Record<string, string>;
};

export const PRESETS: Readonly<Record<string, Preset>> = {
  google: {
    kind: "oidc",
    display_name: "Google",
    issuer: "https://accounts.google.com",
    scopes: ["openid", "email", "profile"],
  },
  microsoft: {
    kind: "oidc",
    display_name: "Microsoft",
    // Entra ID: one tenant's issuer (a directory id or a verified domain). The multi-tenant
    // "common" endpoint's issuer carries a {tenantid} template that no fixed issuer can match.
    issuer: "https://login.microsoftonline.com/{tenant}/v2.0",
    scopes: ["openid", "email", "profile"],
    placeholders: { tenant: "the directory (tenant) id or a verified domain of your Entra ID tenant" },
  },
  gitlab: {
    kind: "oidc",
    display_name: "GitLab",
    issuer: "https://gitlab.com",
    scopes: ["openid", "email", "profile"],
  },
  github: {
    // GitHub is OAuth 2.0 without OpenID Connect: no ID Token; the user comes from its REST API.
    kind: "oauth2",
    display_name: "GitHub",
    authorization_endpoint: "https://github.com/login/oauth/authorize",
    token_endpoint: "https://github.com/login/oauth/access_token",
    userinfo_endpoint: "https://api.github.com/user",
    // /user shows only a public address, unverified: the verified primary one is listed here.
    emails_endpoint: "https://api.github.com/user/emails",
    scopes: ["read:user", "user:email"],
    claim_mapping: { subject: "id", preferred_username: "login", name: "name", email: "email", picture: "avatar_url" },
  },
};

/** The preset with its placeholders filled in; throws naming a missing placeholder value. */
export function preset_input(name: string, values: Record<string, string>): Preset {
  const preset = PRESETS[name];
  if (preset === undefined) throw new Error(`unknown preset "${name}" (${Object.keys(PRESETS).join(", ")})`);
  const fill = (text: string | undefined) =>
    text?.replace(/\{(\w+)\}/g, (_, key: string) => {
      const value = values[key];
      if (value === undefined || value === "") throw new Error(`preset ${name} needs --${key} (${preset.placeholders?.[key] ?? key})`);
      return encodeURIComponent(value);
    });
  const { placeholders: _placeholders, ...rest } = preset;
  return {
    ...rest,
    issuer: fill(rest.issuer),
    authorization_endpoint: fill(rest.authorization_endpoint),
    token_endpoint: fill(rest.token_endpoint),
    userinfo_endpoint: fill(rest.userinfo_endpoint),
    emails_endpoint: fill(rest.emails_endpoint),
  };
}
