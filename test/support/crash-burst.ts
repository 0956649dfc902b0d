/**
 * Polls `probe` every 250 ms until `done` holds; after `ms` it throws with
 * `what` of the last value (what a crash test waits for, said in its words).
 */
export async function eventually<T>(
  ms: number,
  probe: () => Promise<T>,
  done: (v: T) => boolean,
  what: (v: T | undefined) => string,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await probe();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out after ${ms} ms: ${what(last)}`);
}

/** What `crashMidBurst` needs of a dev server. */
interface Crashable {
  faults(spec: Record<string, unknown>): Promise<void>;
  crashAndRestart(): Promise<void>;
}

/**
 * A burst cut by a SIGKILL: the stand-in holds every HCS answer for 1.5 s
 * (submits in flight at the crash), `clients` appenders run until the
 * runtime dies under them, and once `acked()` reaches `atLeast` the runtime
 * is killed and started again on the same state. `beforeCrash` runs just
 * before the kill (to tell the appenders a failure is now expected).
 * Answers once every appender has stopped and the faults are cleared.
 */
export async function crashMidBurst(
  server: Crashable,
  burst: {
    clients: number;
    appender: (client: number) => Promise<void>;
    acked: () => number;
    atLeast: number;
    beforeCrash: () => Promise<void> | void;
  },
): Promise<void> {
  await server.faults({ answerDelayMs: 1500 });
  const appenders = Array.from({ length: burst.clients }, (_, c) => burst.appender(c));
  await eventually(
    15_000,
    async () => burst.acked(),
    (n) => n >= burst.atLeast,
    (n) => `${n} acked`,
  );
  await burst.beforeCrash();
  await server.crashAndRestart();
  await Promise.all(appenders);
  await server.faults({});
}
