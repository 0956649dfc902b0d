// Task board and agent list from the read models (GET /v1/tasks, /v1/agents).
// An endpoint this deployment does not have (404) shows "not available"
// instead of an error, and is asked again only rarely.
const COLUMNS = [
  ['available', ['available', 'new']],
  ['claimed', ['claimed']],
  ['in progress', ['started']],
  ['blocked', ['blocked']],
  ['complete', ['complete']],
  ['ended', ['released', 'expired', 'revoked']],
];
/** How long one read may take before the board gives up on it until the next poll. */
const LOAD_TIMEOUT_MS = 10_000;

export class Board {
  constructor(client, taskEl, agentEl, noticeEl) {
    this.client = client;
    this.taskEl = taskEl;
    this.agentEl = agentEl;
    this.noticeEl = noticeEl;
    this.filter = '';
    this.tasks = [];
    this.timer = 0;
    this.clock = setInterval(() => this.#tickLeases(), 1000);
  }

  /** @param {string} query e.g. "correlation_id=project:kv" */
  watch(query) {
    this.filter = query;
    clearTimeout(this.timer);
    void this.#poll();
  }

  async #poll() {
    // Re-armed whatever happens: one failed draw or hung request must not
    // leave the board frozen for the life of the page.
    let missing = false;
    try {
      const [tasks, agents] = await Promise.all([
        this.#load(`/v1/tasks?limit=200${this.filter ? `&${this.filter}` : ''}`),
        this.#load('/v1/agents?limit=200'),
      ]);
      if (tasks.ok) this.#drawTasks(tasks.body?.tasks ?? []);
      else unavailable(this.taskEl, tasks.reason);
      if (agents.ok) this.#drawAgents(agents.body?.agents ?? []);
      else unavailable(this.agentEl, agents.reason);
      this.#drawNotice(tasks.stale ?? agents.stale ?? null);
      missing = !tasks.ok && !agents.ok;
    } catch (error) {
      console.warn('board: redraw failed', error);
    } finally {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.#poll(), missing ? 15_000 : 2_000);
    }
  }

  async #load(path) {
    try {
      // A read that has not answered in 10 s is given up; the next poll asks again.
      const res = await this.client.http.request('GET', path, {
        signal: AbortSignal.timeout(LOAD_TIMEOUT_MS),
      });
      return { ok: true, body: res.body, stale: res.headers.get('Wirestream-Stale-Models') };
    } catch (error) {
      if (error?.status === 404 && error.code === 'not-found')
        return { ok: false, reason: 'not available' };
      if (error?.status === 401 || error?.status === 403)
        return { ok: false, reason: 'needs a token with read scope' };
      if (error?.name === 'TimeoutError')
        return { ok: false, reason: 'unavailable (no answer in 10 s)' };
      return { ok: false, reason: `unavailable (${error?.message ?? error})` };
    }
  }

  /** Read models not kept live (a rebuild runs, or failed): the board may show old rows. */
  #drawNotice(stale) {
    this.noticeEl.hidden = !stale;
    this.noticeEl.dataset.models = stale ?? '';
    this.noticeEl.textContent = stale
      ? `Read models not kept up to date (${stale.split(',').join(', ')}): a rebuild is running or failed, so the board shows their last rows.`
      : '';
  }

  #drawTasks(tasks) {
    this.tasks = tasks;
    const columns = COLUMNS.map(([title, statuses]) => {
      const col = el('div', 'column');
      const cards = tasks.filter((t) => statuses.includes(t.status));
      col.append(el('h3', '', `${title} (${cards.length})`));
      for (const t of cards) {
        const card = el('div', 'card');
        card.dataset.status = t.status;
        card.append(el('div', '', `${t.task_id} #${t.attempt}`));
        if (t.role) card.append(el('div', 'muted', t.role));
        if (t.claimed_by) card.append(el('div', 'holder', t.claimed_by));
        if (t.lease_expires_at && (t.status === 'claimed' || t.status === 'started')) {
          const lease = el('div', 'lease');
          lease.dataset.expires = t.lease_expires_at;
          card.append(lease);
        }
        col.append(card);
      }
      return col;
    });
    this.taskEl.replaceChildren(...columns);
    this.#tickLeases();
  }

  #drawAgents(agents) {
    if (agents.length === 0) {
      this.agentEl.replaceChildren(el('p', 'muted', 'no agents yet'));
      return;
    }
    this.agentEl.replaceChildren(
      ...agents.map((a) => {
        const row = el('div', `agent${a.stale ? ' stale' : ''}`);
        const name = el('span', '', `${a.agent_id}${a.role ? ` · ${a.role}` : ''}`);
        const cap =
          a.max_units == null
            ? 'capacity ?'
            : `${a.available_units ?? '?'}/${a.max_units} units free`;
        const beat = a.last_heartbeat_at ? `beat ${ago(a.last_heartbeat_at)}` : 'no heartbeat';
        row.append(name, el('span', 'capacity', `${cap} · ${a.status} · ${beat}`));
        return row;
      }),
    );
  }

  #tickLeases() {
    for (const lease of this.taskEl.querySelectorAll('.lease')) {
      const left = Math.round((Date.parse(lease.dataset.expires) - Date.now()) / 1000);
      lease.textContent = left > 0 ? `lease ${left}s` : 'lease expired';
      lease.classList.toggle('expiring', left < 15);
    }
  }
}

function unavailable(target, reason) {
  target.replaceChildren(el('p', 'na', reason));
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function ago(iso) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 90 ? `${s}s ago` : `${Math.round(s / 60)}m ago`;
}
