// The peer of bench/oidc: panva's oidc-provider on Node with its in-memory adapter (the default),
// configured like our provider in the benchmark: one confidential client (client_secret_basic,
// authorization_code + client_credentials), one user, PKCE required, opaque access tokens, RS256
// ID tokens, client credentials and introspection enabled. Login and consent are our own minimal
// interaction routes (oidc-provider leaves them to the application); the password check is a
// constant-time comparison: Node 20 has no argon2id (the first-login case compares our argon2id
// logins with Keycloak's published sizing instead).
//
//   PORT=3400 BENCH_CONFIG='{"client_id":...}' node bench/oidc/peer/server.mjs
import { generateKeyPairSync, randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import Provider from "oidc-provider";

const port = Number(process.env.PORT ?? 3400);
const cfg = JSON.parse(process.env.BENCH_CONFIG ?? "{}");
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const rs256 = { ...privateKey.export({ format: "jwk" }), kid: "bench-rs256", alg: "RS256", use: "sig" };

const USER = {
  sub: "bench-user-1",
  username: cfg.username,
  password: Buffer.from(cfg.password),
  claims: { name: "Bench User", given_name: "Bench", family_name: "User", email: "bench@example.com", email_verified: true },
};

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: cfg.client_id,
      client_secret: cfg.client_secret,
      redirect_uris: [cfg.redirect_uri],
      grant_types: ["authorization_code", "client_credentials"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
      scope: "openid profile email",
    },
  ],
  jwks: { keys: [rs256] },
  cookies: { keys: [randomBytes(32).toString("base64url")] },
  claims: { openid: ["sub"], profile: ["name", "given_name", "family_name"], email: ["email", "email_verified"] },
  scopes: ["openid", "profile", "email"],
  async findAccount(_ctx, id) {
    if (id !== USER.sub) return undefined;
    return { accountId: id, claims: async () => ({ sub: id, ...USER.claims }) };
  },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
  },
  pkce: { required: () => true },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
});
provider.on("server_error", (_ctx, error) => console.error("peer server_error", error));

async function form(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title, body) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><main><h1>${esc(title)}</h1>${body}</main></body></html>`;

function password_ok(username, password) {
  const given = Buffer.from(password);
  const same = given.length === USER.password.length && timingSafeEqual(given, USER.password);
  return username === USER.username && same;
}

/** GET shows the login or consent form of the pending interaction; POST submits it. */
async function interaction(req, res, uid, action) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  if (req.method === "GET") {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.setHeader("cache-control", "no-store");
    if (prompt.name === "login") {
      return res.end(
        page(
          "Sign in",
          `<form method="post" action="/interaction/${esc(uid)}/login"><input name="username"><input name="password" type="password"><button>Sign in</button></form>`,
        ),
      );
    }
    return res.end(
      page("Allow?", `<p>${esc(params.client_id)} asks for ${esc(params.scope)}</p><form method="post" action="/interaction/${esc(uid)}/confirm"><button>Allow</button></form>`),
    );
  }
  const body = await form(req);
  if (action === "login" && prompt.name === "login") {
    if (!password_ok(body.get("username") ?? "", body.get("password") ?? "")) {
      res.statusCode = 200;
      res.setHeader("content-type", "text/html; charset=utf-8");
      return res.end(page("Sign in", "<p>Wrong username or password.</p>"));
    }
    return provider.interactionFinished(req, res, { login: { accountId: USER.sub } }, { mergeWithLastSubmission: false });
  }
  if (action === "confirm" && prompt.name === "consent") {
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    const missing = prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    if (missing.missingResourceScopes) for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes)) grant.addResourceScope(indicator, scopes.join(" "));
    const grantId = await grant.save();
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }
  res.statusCode = 400;
  res.end(`unexpected ${action} for prompt ${prompt.name}`);
}

const INTERACTION = /^\/interaction\/([\w-]+)(?:\/(login|confirm))?$/;
const callback = provider.callback();
const server = http.createServer((req, res) => {
  const match = INTERACTION.exec(req.url ?? "");
  if (match === null) return callback(req, res);
  interaction(req, res, match[1], match[2]).catch((error) => {
    console.error("peer interaction error", error);
    if (!res.headersSent) res.statusCode = 500;
    res.end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, "127.0.0.1", () => console.log(`peer listening on ${issuer}`));
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => process.exit(0)).closeAllConnections());
