import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Submits `messages` to HCS topic `topicId` on the stand-in at `url` (a new
 * topic when `topicId` is null) as its operator, with the SDK's gRPC-web
 * build, the way any holder of the topic's submit key could. Returns the id.
 */
export async function submitToStandin(
  url: string,
  topicId: string | null,
  messages: string[],
): Promise<string> {
  (globalThis as { window?: unknown }).window ??= globalThis;
  const sdk = await import(
    pathToFileURL(path.join(ROOT, 'node_modules/@hashgraph/sdk/lib/browser.js')).href
  );
  const info = (await (await fetch(`${url}/__standin/info`)).json()) as Record<string, string>;
  const host = url.replace(/^http:\/\//, '');
  const client = new sdk.Client({ network: { [host]: '0.0.3' }, scheduleNetworkUpdate: false });
  client.setOperator(info.operatorId, sdk.PrivateKey.fromStringDer(info.operatorKey));
  let id = topicId;
  if (id === null) {
    const created = await (await new sdk.TopicCreateTransaction().execute(client)).getReceipt(
      client,
    );
    id = String(created.topicId.toString());
  }
  for (const message of messages) {
    const tx = new sdk.TopicMessageSubmitTransaction({ topicId: id, message });
    await (await tx.execute(client)).getReceipt(client);
  }
  client.close();
  return id;
}

/**
 * Runs `check` while the stand-in's mirror serves a wrong running hash for
 * message `seq` of `topicId` (`POST /__standin/tamper`), then restores it.
 */
export async function whileTampered<T>(
  url: string,
  topicId: string,
  seq: number,
  check: () => Promise<T>,
): Promise<T> {
  const tamper = (restore: boolean) =>
    fetch(`${url}/__standin/tamper`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ topicId, sequenceNumber: seq, restore }),
    });
  const res = await tamper(false);
  if (res.status !== 200) throw new Error(`tamper: ${res.status} ${await res.text()}`);
  try {
    return await check();
  } finally {
    await tamper(true);
  }
}
