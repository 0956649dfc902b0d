import { omitted } from './omitted';

/** `@ethersproject/abi`: the SDK's contract call parameters and results only. */
export const defaultAbiCoder = {
  encode: (): never => omitted('Smart-contract ABI encoding'),
  decode: (): never => omitted('Smart-contract ABI decoding'),
};
