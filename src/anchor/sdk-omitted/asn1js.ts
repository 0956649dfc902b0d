import { omitted } from './omitted';

/** `asn1js`: the SDK reads encrypted PEM private keys with it (`PrivateKey.fromPem`). */
export const fromBER = (): never => omitted('Reading PEM private keys');
