import { omitted } from './omitted';

/** `pino`: the SDK's optional `Logger`, which Wirestream does not use (it logs with `console`). */
export default function pino(): never {
  return omitted('The Hedera SDK logger');
}
