// Starts the webhook receiver (test/support/webhook-receiver.ts) once per
// test project on 127.0.0.1 and hands its URL to tests (`inject('webhookReceiverUrl')`).
import type { TestProject } from 'vitest/node';
import { startReceiver } from './support/webhook-receiver';

declare module 'vitest' {
  export interface ProvidedContext {
    webhookReceiverUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const receiver = await startReceiver();
  project.provide('webhookReceiverUrl', receiver.url);
  return () => receiver.close();
}
