/** The hashing and id primitives of crypto.ts on Deno (node:crypto and a UUIDv7 of our own). */
import { createHash, getRandomValues } from "node:crypto";

/** node:crypto encodes a string as UTF-8 with lone surrogates as U+FFFD, as Bun.SHA256 does. */
export function sha256_base64url(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("base64url");
}

// RFC 9562 §6.2, method 1: a 12-bit counter after the milliseconds, started at a random value in
// its lower half each new millisecond (room to count up), so the ids of one millisecond sort in
// the order they were made. When the counter runs out, the next ids borrow the next millisecond:
// the ids of this process never go backwards, even when the clock does.
let last_ms = 0;
let counter = 0;
const random = new Uint8Array(10);
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** A UUIDv7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, a 12-bit counter, 62 random bits. */
export function uuid_v7(): string {
  getRandomValues(random);
  const now = Date.now();
  if (now > last_ms) {
    last_ms = now;
    counter = ((random[8]! << 8) | random[9]!) & 0x7ff;
  } else if (++counter > 0xfff) {
    last_ms++;
    counter = 0;
  }
  const bytes = new Uint8Array(16);
  // 48-bit big-endian milliseconds (a number holds them exactly).
  const high = Math.floor(last_ms / 0x1_0000_0000);
  const low = last_ms >>> 0;
  bytes[0] = (high >>> 8) & 0xff;
  bytes[1] = high & 0xff;
  bytes[2] = low >>> 24;
  bytes[3] = (low >>> 16) & 0xff;
  bytes[4] = (low >>> 8) & 0xff;
  bytes[5] = low & 0xff;
  bytes[6] = 0x70 | (counter >>> 8); // version 7, then the counter's high 4 bits
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (random[0]! & 0x3f); // variant 10, then 62 random bits
  bytes.set(random.subarray(1, 8), 9);
  let hex = "";
  for (let i = 0; i < 16; i++) hex += HEX[bytes[i]!];
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
