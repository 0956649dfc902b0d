/**
 * Asks for the object's single alarm no later than `at` (an earlier request
 * wins). https://developers.cloudflare.com/durable-objects/api/alarms/
 */
export async function wakeBy(storage: DurableObjectStorage, at: number): Promise<void> {
  const current = await storage.getAlarm();
  if (current === null || current > at) await storage.setAlarm(at);
}
