/** Codes, access and refresh tokens as we issue them: 12 hex digits of the issue time, then 43 base64url characters (32 random bytes). */
export const ISSUED_SECRET = /^[0-9a-f]{12}[A-Za-z0-9_-]{43}$/;
