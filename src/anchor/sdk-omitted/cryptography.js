import { omitted } from './omitted';

/**
 * `@hiero-ledger/cryptography` without `Mnemonic`: the SDK imports its whole
 * index, and `Mnemonic` brings ~50 KiB of word lists (BIP-39 and Hedera's
 * legacy list) that a Worker signing with a DER key from a secret never reads.
 * Everything else is the package's own code, reached by path (the alias
 * covers the package name and its subpaths). JavaScript, as the package is:
 * its `src/` has no declarations to type-check against.
 */
export { default as BadKeyError } from '../../../node_modules/@hiero-ledger/cryptography/src/BadKeyError.js';
export { default as BadMnemonicError } from '../../../node_modules/@hiero-ledger/cryptography/src/BadMnemonicError.js';
export { default as BadMnemonicReason } from '../../../node_modules/@hiero-ledger/cryptography/src/BadMnemonicReason.js';
export { default as Key } from '../../../node_modules/@hiero-ledger/cryptography/src/Key.js';
export { default as KeyList } from '../../../node_modules/@hiero-ledger/cryptography/src/KeyList.js';
export { default as PrivateKey } from '../../../node_modules/@hiero-ledger/cryptography/src/PrivateKey.js';
export { default as PublicKey } from '../../../node_modules/@hiero-ledger/cryptography/src/PublicKey.js';

const HARDENED = 0x80000000;
// The derivation paths the package exports beside `Mnemonic` (the SDK re-exports them).
export const HEDERA_PATH = [44, 3030, 0, 0];
export const SLIP44_ECDSA_HEDERA_PATH = [44 | HARDENED, 3030 | HARDENED, 0 | HARDENED, 0];
export const SLIP44_ECDSA_ETH_PATH = [44 | HARDENED, 60 | HARDENED, 0 | HARDENED, 0, 0];

const notBundled = () => omitted('Mnemonic phrases (the Hedera SDK)');

/** The SDK's `Mnemonic` wraps this one: every way in says it is not bundled. */
export const Mnemonic = {
  _generate: notBundled,
  fromWords: notBundled,
  fromString: notBundled,
  toSeed: notBundled,
};
