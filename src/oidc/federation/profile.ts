/** What an upstream says of its user: claims through the operator's mapping, and its sign-in methods as ours. */
import type { UpstreamRow } from "../../store/types.ts";
import { AMR_FEDERATED, KEPT_UPSTREAM_AMR, UPSTREAM_MFA_AMR } from "../signin/methods.ts";
import { DEFAULT_CLAIM_MAPPING } from "./upstreams.ts";

export type UpstreamProfile = {
  subject: string;
  name: string | null;
  email: string | null;
  email_verified: boolean;
  picture: string | null;
  preferred_username: string | null;
  groups: string[];
};

/** The upstream's claims as a profile, through its claim mapping (DEFAULT_CLAIM_MAPPING where it names none). */
export function mapped_profile(claims: Record<string, unknown>, mapping: Record<string, string>): UpstreamProfile {
  const pick = (local: string): unknown => claims[mapping[local] ?? DEFAULT_CLAIM_MAPPING[local]!];
  const text = (local: string): string | null => {
    const value = pick(local);
    return typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : null;
  };
  const groups = pick("groups");
  return {
    subject: text("subject") ?? "",
    name: text("name"),
    email: text("email"),
    // Only an explicit true counts (OIDC Core §5.1: email_verified is a boolean).
    email_verified: pick("email_verified") === true,
    picture: text("picture"),
    preferred_username: text("preferred_username"),
    groups: Array.isArray(groups) ? groups.filter((g): g is string => typeof g === "string") : [],
  };
}

/**
 * What the upstream said about its own sign-in, as our methods: "fed", its password and
 * one-time-code methods, and "mfa" when it asserted a multi-factor sign-in (an amr of
 * UPSTREAM_MFA_AMR, or an `acr` the operator listed in `mfa_acr_values`; OIDC Core §2) and the
 * operator trusts it to (`trust_upstream_mfa`). An untrusted upstream's second factor is
 * dropped: the local one is asked for instead.
 */
export function upstream_methods(upstream: Pick<UpstreamRow, "trust_upstream_mfa" | "mfa_acr_values">, amr: unknown, acr: unknown): { amr: string[]; mfa: boolean } {
  const said = Array.isArray(amr) ? amr.filter((method): method is string => typeof method === "string") : [];
  const mfa = upstream.trust_upstream_mfa && (said.some((method) => UPSTREAM_MFA_AMR.includes(method)) || (typeof acr === "string" && upstream.mfa_acr_values.includes(acr)));
  const kept = KEPT_UPSTREAM_AMR.filter((method) => said.includes(method) && (upstream.trust_upstream_mfa || method === "pwd"));
  if (mfa && !kept.includes("mfa")) kept.push("mfa");
  return { amr: [AMR_FEDERATED, ...kept], mfa };
}
