import { randomBytes, randomInt } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A ULID (48-bit millisecond time, 80 random bits, Crockford base32) for the given instant. */
export function ulid(timeMs: number): string {
  let time = '';
  let t = Math.floor(timeMs);
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let rand = '';
  // 80 bits = 16 base32 characters; consume the bytes five bits at a time.
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      rand += CROCKFORD[(acc >> bits) & 31];
    }
  }
  return time + rand;
}

/** `prefix` + `length` random base62 characters, unbiased. */
export function randomToken(prefix: string, length: number): string {
  let out = prefix;
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}
