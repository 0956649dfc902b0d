export * from './canonical-json';
export * from './envelope';
export * from './failure';
export * from './ids';
export * from './json-schema';
export * from './payloads';
export * from './stream-id';
export * from './wire-type';
