// Starts the Hedera stand-in network once per test project on 127.0.0.1 and
// hands its URL to tests (`inject('standinUrl')`), including those in workerd.
import type { TestProject } from 'vitest/node';
import { startStandin } from '../tools/hedera-standin/index.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    standinUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const standin = await startStandin({ host: '127.0.0.1', port: 0 });
  project.provide('standinUrl', standin.url);
  return () => standin.close();
}
