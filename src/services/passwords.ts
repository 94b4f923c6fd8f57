import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/**
 * Operators' passwords, hashed with scrypt (Node's crypto, OpenSSL's implementation): a memory-hard
 * function, so that a stolen table is slow to guess. Kept as `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`
 * so that a later, dearer cost still reads the hashes made before it.
 */
const COST = { log2N: 15, r: 8, p: 1 }
const KEY_BYTES = 32

function derive(password: string, salt: Buffer, log2N: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** log2N
  // scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is just below this cost's.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r }
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))))
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, COST.log2N, COST.r, COST.p)
  return ['scrypt', COST.log2N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$')
}

export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, log2N, r, p, salt, key] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !key) return false
  const expected = Buffer.from(key, 'base64')
  const given = await derive(password, Buffer.from(salt, 'base64'), Number(log2N), Number(r), Number(p))
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** A hash no password matches, checked against when no operator has the email (the same time either way). */
export const NO_OPERATOR_HASH = `scrypt$${COST.log2N}$${COST.r}$${COST.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_BYTES).toString('base64')}`
