import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A WebAuthn authenticator in software, for the API tests: it makes what a browser and a platform authenticator
 * would send (attestation `none`, ES256 assertions) with node:crypto, byte for byte as the WebAuthn spec lays them
 * out, so the server's real library verifies them. Each credential keeps its key and signature counter; a test can
 * sign for another origin, replay, or tamper with what it sends.
 */

// The least of CBOR (RFC 8949) an attestation object and a COSE key need: maps, byte and text strings, integers.
function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  if (n < 65_536) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

type Cbor = number | string | Buffer | Map<number | string, Cbor>;

export function cbor(v: Cbor): Buffer {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') {
    const bytes = Buffer.from(v, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (Buffer.isBuffer(v)) return Buffer.concat([head(2, v.length), v]);
  return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();
const b64u = (b: Buffer) => b.toString('base64url');

// Authenticator data flags (WebAuthn §6.1): user present, user verified, attested credential data.
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface SoftCredential {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

export interface CreationOptionsJSON {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
}

export interface RequestOptionsJSON {
  challenge: string;
  rpId?: string;
}

export class SoftwareAuthenticator {
  readonly credentials: SoftCredential[] = [];

  constructor(private readonly origin: string) {}

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  /** navigator.credentials.create() and toJSON(): a new ES256 credential, attestation `none`. */
  register(options: CreationOptionsJSON, opts: { origin?: string; rpId?: string } = {}) {
    const rpId = opts.rpId ?? options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    // COSE_Key (RFC 9053): kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
    const coseKey = cbor(new Map<number, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
    const credentialId = randomBytes(32);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const counter = Buffer.alloc(4);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([UP | UV | AT]), counter, Buffer.alloc(16), idLength, credentialId, coseKey]);
    const attestationObject = cbor(new Map<string, Cbor>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    const credential: SoftCredential = { id: b64u(credentialId), rpId, userHandle: options.user.id, privateKey, counter: 0 };
    this.credentials.push(credential);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64u(this.clientData('webauthn.create', options.challenge, opts.origin ?? this.origin)),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
  }

  /**
   * navigator.credentials.get() and toJSON(): an assertion by `credential` (the last registered by default), its
   * counter one more than before unless `counter` says otherwise.
   */
  assert(options: RequestOptionsJSON, opts: { credential?: SoftCredential; origin?: string; counter?: number; flags?: number } = {}) {
    const credential = opts.credential ?? this.credentials.at(-1);
    if (!credential) throw new Error('no credential registered');
    credential.counter = opts.counter ?? credential.counter + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.counter);
    const authData = Buffer.concat([sha256(options.rpId ?? credential.rpId), Buffer.from([opts.flags ?? UP | UV]), counter]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, opts.origin ?? this.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
  }
}

/** The flags a test may send instead of UP|UV (e.g. without user verification). */
export const AUTHENTICATOR_FLAGS = { UP, UV };
