/**
 * Parts of `@hashgraph/sdk`'s dependency tree that the Worker never reaches
 * (contract ABI coding, PEM key files, the pino logger, the mnemonic word lists) are swapped at build
 * time for the modules in this folder (`[alias]` in wrangler.toml, the same
 * in vitest.config.ts), which keeps ~170 KiB of code out of the Worker bundle.
 * Reaching one is a programming error, reported as such.
 */
export function omitted(feature: string): never {
  throw new Error(
    `${feature} is not part of the Wirestream Worker bundle (src/anchor/sdk-omitted)`,
  );
}
