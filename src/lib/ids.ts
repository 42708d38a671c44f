import { randomFillSync, randomInt } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes from a pool refilled 4 KiB at a time: one call into the CSPRNG per 409 ULIDs. A
 * randomBytes(10) per event id was 1.3 % of a booking create's service CPU (profile of 20 clients
 * creating); Node's randomUUID keeps such a pool for the same reason. The bytes are used at once.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function randomPart(length: number): Buffer {
  if (poolAt + length > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += length;
  return pool.subarray(poolAt - length, poolAt);
}

/** A ULID (48-bit millisecond time, 80 random bits, Crockford base32) for the given instant. */
export function ulid(timeMs: number): string {
  let time = '';
  let t = Math.floor(timeMs);
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomPart(10);
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
