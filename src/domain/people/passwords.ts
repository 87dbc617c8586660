import { hash, verify } from '@node-rs/argon2';
import { ApiError } from '../../errors.js';

/**
 * Passwords are kept as argon2id PHC strings (@node-rs/argon2, prebuilt binaries), at OWASP's first
 * recommended setting (m=19 MiB, t=2, p=1).
 */
const OPTIONS = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 512;

export function assertPasswordAcceptable(password: string): void {
  if (password.length < PASSWORD_MIN) throw new ApiError('parameter_invalid', `A password needs at least ${PASSWORD_MIN} characters.`, 'password');
  if (password.length > PASSWORD_MAX) throw new ApiError('parameter_invalid', `A password has at most ${PASSWORD_MAX} characters.`, 'password');
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

// Verified against when no account has the email, so that an unknown email costs what a wrong password does. One
// per process: a hash of a constant, the same for every installation.
let decoy: Promise<string> | null = null;

/** Whether the password matches; with no hash (unknown email, or an account without a password) a decoy is verified and false returned. */
export async function passwordMatches(passwordHash: string | null, password: string): Promise<boolean> {
  if (passwordHash === null) {
    decoy ??= hashPassword('decoy password that nobody has');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}

/** How an email is looked up: case never makes two accounts. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export function assertEmail(email: string, param = 'email'): string {
  const e = email.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(e) || e.length > 320) throw new ApiError('parameter_invalid', `"${email}" is not an email address.`, param);
  return e;
}
