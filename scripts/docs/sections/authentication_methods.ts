// README: the acr classes and RFC 8176 amr values, from src/oidc/signin/methods.ts.
import { ACR_MEANING, ACR_VALUES_SUPPORTED, AMR_TABLE, PASSKEY_ACR_VALUES, type Amr } from "../../../src/oidc/signin/methods.ts";

export const document = "README.md";

const yes = (flag: boolean) => (flag ? "yes" : "no");
const UPSTREAM: Record<string, string> = { kept: "kept", mfa: "counts as `mfa` (trusted upstreams)", dropped: "dropped" };

export function render(): string {
  const acr = [
    "| `acr` | met by | advertised |",
    "| --- | --- | --- |",
    ...ACR_VALUES_SUPPORTED.map((value) => `| \`${value}\` | ${ACR_MEANING[value]} | ${PASSKEY_ACR_VALUES.includes(value) ? "with passkeys on" : "always"} |`),
  ];
  const amr = [
    "| `amr` | means | second factor | phishing-resistant | issued by us | from an upstream |",
    "| --- | --- | --- | --- | --- | --- |",
    ...(Object.keys(AMR_TABLE) as Amr[]).map((value) => {
      const f = AMR_TABLE[value];
      return `| \`${value}\` | ${f.meaning} | ${yes(f.second_factor)} | ${yes(f.phishing_resistant)} | ${yes(f.issued)} | ${UPSTREAM[f.from_upstream]} |`;
    }),
  ];
  return [...acr, "", ...amr].join("\n");
}
