import { SELF } from 'cloudflare:test';
import type { SocketLike, WebSocketConstructor } from '../../../src/client';

type Listener = (event: never) => void;

/**
 * The SDK's WebSocket over the Worker under test: `new SelfSocket(url, protocols)`
 * upgrades through `SELF.fetch`, so a `WirestreamClient` in workerd follows a
 * stream as it would over the network. `SelfSocket.all` lists every socket made.
 */
export class SelfSocket implements SocketLike {
  static readonly all: SelfSocket[] = [];
  readyState = 0;
  #ws: WebSocket | null = null;
  #closeAsked: { code?: number; reason?: string } | null = null;
  readonly #listeners = new Map<string, Listener[]>();

  constructor(
    readonly url: string,
    protocols?: string | string[],
  ) {
    SelfSocket.all.push(this);
    const headers: Record<string, string> = { Upgrade: 'websocket' };
    if (protocols) {
      headers['Sec-WebSocket-Protocol'] = [protocols].flat().join(', ');
    }
    const target = url.replace(/^ws/, 'http');
    void SELF.fetch(target, { headers }).then(
      (res) => {
        const ws = res.webSocket;
        if (res.status !== 101 || !ws) return this.#closed(1006, `upgrade refused: ${res.status}`);
        ws.accept();
        this.#ws = ws;
        ws.addEventListener('message', (e) => this.#emit('message', { data: e.data }));
        ws.addEventListener('close', (e) => this.#closed(e.code, e.reason));
        this.readyState = 1;
        this.#emit('open', {});
        if (this.#closeAsked) this.close(this.#closeAsked.code, this.#closeAsked.reason);
      },
      (error: unknown) => this.#closed(1006, String(error)),
    );
  }

  send(data: string): void {
    this.#ws?.send(data);
  }

  close(code?: number, reason?: string): void {
    if (!this.#ws) {
      this.#closeAsked = { code, reason };
      return;
    }
    try {
      this.#ws.close(code, reason);
    } catch {
      // already closing
    }
    this.#closed(code ?? 1000, reason ?? '');
  }

  addEventListener(type: string, listener: Listener): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }

  #closed(code: number, reason: string): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.#emit('close', { code, reason });
  }

  #emit(type: string, event: unknown): void {
    for (const l of this.#listeners.get(type) ?? []) (l as (e: unknown) => void)(event);
  }
}

export const SelfWebSocket = SelfSocket as unknown as WebSocketConstructor;
