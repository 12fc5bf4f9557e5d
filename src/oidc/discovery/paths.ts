/**
 * The protocol endpoints' paths, relative to the issuer: discovery builds every URL it
 * advertises from these, and the HTTP layer mounts its routes on them.
 */
export const PATHS = {
  discovery: "/.well-known/openid-configuration",
  jwks: "/.well-known/jwks.json",
  authorize: "/authorize",
  token: "/token",
  userinfo: "/userinfo",
  register: "/register",
  revoke: "/revoke",
  introspect: "/introspect",
  logout: "/logout",
  // RFC 9126 §2: the pushed authorization request endpoint.
  par: "/par",
  // RFC 8628 §3.1: the device authorization endpoint.
  device_authorization: "/device_authorization",
} as const;
