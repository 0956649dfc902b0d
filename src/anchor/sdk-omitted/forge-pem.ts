import { omitted } from './omitted';

/** `forge-light/lib/pem.js`: the SDK reads encrypted PEM private keys with it (`PrivateKey.fromPem`). */
export default { decode: (): never => omitted('Reading PEM private keys') };
