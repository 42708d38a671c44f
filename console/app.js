// The operator console: plain ES modules and DOM APIs, no build step. Everything that comes from
// the API (partner names, URLs, receivers' answers) is written with textContent, never parsed as
// HTML, and the page's Content-Security-Policy runs no script but the service's own files.
import uPlot from '/console/vendor/uplot.js';

const STAFF = '/api/staff/v1';
const TOKEN_KEY = 'doorloom.staffToken';
const EVENT_TYPES = ['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed', 'booking.changed'];
/** A backlog this large or this old (seconds) puts an integration among the unhealthy. */
const BACKLOG_LARGE = 100;
const BACKLOG_OLD_SECONDS = 300;

const main = document.getElementById('main');
const notice = document.getElementById('notice');
const signOutButton = document.getElementById('sign-out');

// ---------------------------------------------------------------------------------------------
// DOM helpers: text is always text.

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, '');
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function show(...nodes) {
  main.replaceChildren(...nodes.filter((n) => n !== null && n !== undefined));
}

function say(message, kind = 'ok') {
  notice.hidden = false;
  notice.className = kind;
  notice.textContent = message;
}

function clearNotice() {
  notice.hidden = true;
  notice.textContent = '';
}

// ---------------------------------------------------------------------------------------------
// The staff token lives in sessionStorage only: gone with the tab, never in a URL.

const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || `HTTP ${status}`);
    this.status = status;
    this.code = body?.code || 'HTTP_ERROR';
    this.errors = body?.errors;
  }
}

async function api(method, path, body) {
  const headers = { accept: 'application/json', authorization: `Bearer ${token.get() ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(STAFF + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'omit',
  });
  let json = null;
  try {
    json = await res.json();
  } catch {
    // not JSON: reported by status below
  }
  if (res.status === 401) {
    token.clear();
    route();
    throw new ApiError(401, json);
  }
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

function describeError(error) {
  if (!(error instanceof ApiError)) return String(error?.message ?? error);
  const details = error.errors ? Object.entries(error.errors).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : JSON.stringify(v)}`) : [];
  return [`${error.message} (${error.status} ${error.code})`, ...details].join(' — ');
}

// ---------------------------------------------------------------------------------------------
// Dialogs: every action is confirmed, and its outcome shown.

const dialog = document.getElementById('dialog');
const dialogTitle = document.getElementById('dialog-title');
const dialogBody = document.getElementById('dialog-body');
const dialogOk = document.getElementById('dialog-ok');
const dialogCancel = document.getElementById('dialog-cancel');

/** Opens the dialog; resolves true when confirmed. `validate` may refuse (returns a message). */
function ask({ title, body = [], ok = 'Confirm', cancel = 'Cancel', danger = false, validate }) {
  dialogTitle.textContent = title;
  dialogBody.replaceChildren(...body);
  dialogOk.textContent = ok;
  dialogOk.className = danger ? 'danger' : 'primary';
  dialogOk.hidden = ok === null;
  dialogCancel.textContent = cancel;
  return new Promise((resolve) => {
    const onClose = () => {
      dialog.removeEventListener('close', onClose);
      resolve(dialog.returnValue === 'ok');
    };
    dialog.addEventListener('close', onClose);
    // what was shown (a credential) leaves the page with the dialog
    dialog.addEventListener('close', () => dialogBody.replaceChildren(), { once: true });
    dialog.returnValue = '';
    dialogOk.onclick = (event) => {
      const problem = validate?.();
      if (problem) {
        event.preventDefault();
        say(problem, 'error');
      }
    };
    dialog.showModal();
  });
}

/** A credential, shown once, with a copy button. */
async function showSecret(title, value) {
  const box = el('div', { class: 'secret', 'data-testid': 'secret' }, value);
  const status = el('span', { class: 'muted' });
  const copy = el(
    'button',
    {
      type: 'button',
      'data-testid': 'copy',
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(value);
          status.textContent = ' Copied.';
        } catch {
          status.textContent = ' Copy failed: select the text and copy it.';
        }
      },
    },
    'Copy',
  );
  await ask({
    title,
    body: [el('p', {}, 'Shown only this once. Store it now; it cannot be read again.'), box, el('p', {}, copy, status)],
    ok: null,
    cancel: 'Done',
  });
}

/** Confirms, runs, and reports what happened. */
async function act({ title, question, danger, run, done }) {
  if (!(await ask({ title, body: [el('p', {}, question)], ok: title, danger }))) {
    say(`${title}: cancelled, nothing changed.`);
    return;
  }
  try {
    const result = await run();
    say(result?.message ?? `${title}: done.`, 'ok');
    await done?.(result);
  } catch (error) {
    say(`${title} failed: ${describeError(error)}`, 'error');
  }
}

// ---------------------------------------------------------------------------------------------
// Formatting

function age(seconds) {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
  return `${Math.floor(seconds / 86400)}d ${Math.floor((seconds % 86400) / 3600)}h`;
}

const when = (timestamp) => (timestamp ? timestamp.replace('T', ' ').replace('+05:30', '') : '—');

/** -1 a booking undelivered past 30 minutes, 0 paused, 1 failing, 2 large or old backlog, 3 healthy, 4 disabled. */
function healthRank(row) {
  if (row.late_booking) return -1;
  if (row.status === 'paused') return 0;
  if (row.status === 'disabled') return 4;
  if (row.consecutive_failures > 0) return 1;
  if (row.undelivered_events >= BACKLOG_LARGE || (row.oldest_undelivered_age_seconds ?? 0) >= BACKLOG_OLD_SECONDS) return 2;
  return 3;
}

const HEALTH = [
  ['Booking late', 'bad'],
  ['Paused', 'bad'],
  ['Failing', 'bad'],
  ['Behind', 'warn'],
  ['Healthy', 'good'],
  ['Disabled', 'off'],
];

function healthBadge(row) {
  const [label, kind] = HEALTH[healthRank(row) + 1];
  return el('span', { class: `badge ${kind}` }, label);
}

/** Unhealthy first; among equals the most failures, then the oldest backlog, then the largest. */
function byHealth(a, b) {
  return (
    healthRank(a) - healthRank(b) ||
    b.consecutive_failures - a.consecutive_failures ||
    (b.oldest_undelivered_age_seconds ?? -1) - (a.oldest_undelivered_age_seconds ?? -1) ||
    b.undelivered_events - a.undelivered_events ||
    a.id - b.id
  );
}

// ---------------------------------------------------------------------------------------------
// Sign-in

function signIn() {
  signOutButton.hidden = true;
  const input = el('input', { type: 'password', id: 'token', name: 'token', autocomplete: 'off', spellcheck: 'false', required: true, placeholder: 'dls_…' });
  const problem = el('p', { class: 'muted', id: 'signin-problem' });
  const form = el(
    'form',
    {
      class: 'card signin',
      id: 'signin',
      onsubmit: async (event) => {
        event.preventDefault();
        const value = input.value.trim();
        if (!value) return;
        token.set(value);
        try {
          await api('GET', '/integrations?per_page=1');
          input.value = '';
          clearNotice();
          if (!location.hash || location.hash === '#/signin') location.hash = '#/';
          route();
        } catch (error) {
          token.clear();
          problem.textContent =
            error instanceof ApiError && (error.status === 401 || error.status === 403)
              ? 'That token is not a staff token.'
              : `Sign-in failed: ${describeError(error)}`;
          show(form);
        }
      },
    },
    el('h1', {}, 'Sign in'),
    el('label', { for: 'token' }, 'Staff token'),
    input,
    el('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    problem,
    el('p', { class: 'muted' }, 'The token is kept in this tab only (session storage) and sent as a bearer token.'),
  );
  show(form);
  input.focus();
}

signOutButton.addEventListener('click', () => {
  token.clear();
  clearNotice();
  location.hash = '#/';
  route();
});

// ---------------------------------------------------------------------------------------------
// Integrations table

const COLUMNS = [
  { key: 'health', label: 'Health', sort: byHealth, cell: (r) => healthBadge(r) },
  {
    key: 'name',
    label: 'Integration',
    sort: (a, b) => a.name.localeCompare(b.name),
    cell: (r) => el('span', {}, el('strong', {}, r.name), el('br'), el('span', { class: 'muted' }, r.slug)),
  },
  { key: 'brand', label: 'Brand', sort: (a, b) => a.brand.name.localeCompare(b.brand.name), cell: (r) => r.brand.name },
  {
    key: 'status',
    label: 'Status',
    sort: (a, b) => a.status.localeCompare(b.status),
    cell: (r) => (r.paused_reason ? `${r.status} (${r.paused_reason})` : r.status),
  },
  { key: 'failures', label: 'Failures', num: true, sort: (a, b) => a.consecutive_failures - b.consecutive_failures, cell: (r) => r.consecutive_failures },
  { key: 'backlog', label: 'Backlog', num: true, sort: (a, b) => a.undelivered_events - b.undelivered_events, cell: (r) => r.undelivered_events },
  {
    key: 'oldest',
    label: 'Oldest undelivered',
    num: true,
    sort: (a, b) => (a.oldest_undelivered_age_seconds ?? -1) - (b.oldest_undelivered_age_seconds ?? -1),
    cell: (r) => age(r.oldest_undelivered_age_seconds),
  },
  {
    key: 'last_success',
    label: 'Last success',
    sort: (a, b) => (a.last_success_at ?? '').localeCompare(b.last_success_at ?? ''),
    cell: (r) => when(r.last_success_at),
  },
  {
    key: 'last_failure',
    label: 'Last failure',
    sort: (a, b) => (a.last_failure_at ?? '').localeCompare(b.last_failure_at ?? ''),
    cell: (r) => when(r.last_failure_at),
  },
  { key: 'sequence', label: 'Last sequence', num: true, sort: (a, b) => a.last_sequence - b.last_sequence, cell: (r) => r.last_sequence },
  { key: 'covered', label: 'Properties', num: true, sort: (a, b) => a.covered_properties - b.covered_properties, cell: (r) => r.covered_properties },
];

const tableState = { sort: 'health', direction: 'ascending', filter: '', status: '' };

/** The critical alerts (a booking undelivered past 30 minutes), a page of 200 at a time. */
async function lateBookings() {
  const rows = [];
  for (let page = 1; ; page++) {
    const res = await api('GET', `/alerts?severity=critical&per_page=200&page=${page}`);
    rows.push(...res.data.filter((a) => a.name === 'booking_undelivered_30m'));
    if (page >= res.pagination.last_page || page >= 50) return rows;
  }
}

/** Integrations whose guests' bookings have not reached them for 30 minutes: above everything, in red. */
function escalations(alerts, rows) {
  if (alerts.length === 0) return null;
  const names = new Map(rows.map((r) => [r.id, r.name]));
  return el(
    'section',
    { class: 'escalations', id: 'escalations', role: 'alert' },
    el('h2', {}, `Bookings not delivered for over 30 minutes (${alerts.length})`),
    el('p', {}, 'Tell each property directly that the booking exists, then fix the partner’s receiver.'),
    el(
      'ul',
      {},
      alerts.map((a) =>
        el(
          'li',
          { dataset: { integration: String(a.integration.id), booking: String(a.detail.booking_id ?? '') } },
          el('a', { href: `#/integrations/${a.integration.id}` }, names.get(a.integration.id) ?? a.integration.slug),
          ` (${a.integration.slug}): booking `,
          el('strong', { class: 'booking-id' }, `#${a.detail.booking_id ?? '?'}`),
          a.detail.external_booking_id ? ` (${a.detail.external_booking_id})` : '',
          ' undelivered for ',
          el('strong', { class: 'booking-age' }, age(a.detail.event_age_seconds)),
        ),
      ),
    ),
  );
}

/** Every integration, a page of 200 at a time (the health order needs them all). */
async function allIntegrations() {
  const rows = [];
  for (let page = 1; ; page++) {
    const res = await api('GET', `/integrations?per_page=200&page=${page}`);
    rows.push(...res.data);
    if (page >= res.pagination.last_page || page >= 50) return rows;
  }
}

async function integrationsPage() {
  show(el('p', { class: 'muted' }, 'Loading integrations…'));
  const [rows, late] = await Promise.all([allIntegrations(), lateBookings()]);
  const lateBy = new Map(late.map((a) => [a.integration.id, a]));
  for (const r of rows) r.late_booking = lateBy.get(r.id) ?? null;
  const body = el('tbody');
  const header = el('tr');
  const table = el('table', { id: 'integrations' }, el('thead', {}, header), body);
  const summary = el('span', { class: 'muted', id: 'summary' });

  const render = () => {
    const column = COLUMNS.find((c) => c.key === tableState.sort) ?? COLUMNS[0];
    const needle = tableState.filter.toLowerCase();
    const visible = rows
      .filter((r) => !tableState.status || r.status === tableState.status)
      .filter((r) => !needle || r.name.toLowerCase().includes(needle) || r.slug.includes(needle) || r.brand.name.toLowerCase().includes(needle))
      .sort((a, b) => (tableState.direction === 'ascending' ? 1 : -1) * column.sort(a, b));
    header.replaceChildren(
      ...COLUMNS.map((c) =>
        el(
          'th',
          { class: c.num ? 'num' : undefined, 'aria-sort': c.key === tableState.sort ? tableState.direction : 'none', scope: 'col' },
          el(
            'button',
            {
              type: 'button',
              onclick: () => {
                tableState.direction = tableState.sort === c.key && tableState.direction === 'ascending' ? 'descending' : 'ascending';
                tableState.sort = c.key;
                render();
              },
            },
            c.label,
          ),
        ),
      ),
    );
    body.replaceChildren(
      ...visible.map((r) =>
        el(
          'tr',
          {
            class: r.late_booking ? 'row-link late' : 'row-link',
            dataset: { id: String(r.id), slug: r.slug },
            tabindex: '0',
            onclick: () => (location.hash = `#/integrations/${r.id}`),
            onkeydown: (e) => e.key === 'Enter' && (location.hash = `#/integrations/${r.id}`),
          },
          COLUMNS.map((c) => el('td', { class: c.num ? 'num' : undefined }, c.cell(r))),
        ),
      ),
    );
    const unhealthy = rows.filter((r) => healthRank(r) <= 2).length;
    summary.textContent = `${visible.length} of ${rows.length} integrations; ${unhealthy} need attention.`;
  };

  const filter = el('input', {
    type: 'text',
    placeholder: 'Filter by name, slug or brand',
    value: tableState.filter,
    oninput: (e) => ((tableState.filter = e.target.value), render()),
  });
  const status = el(
    'select',
    { onchange: (e) => ((tableState.status = e.target.value), render()), 'aria-label': 'Status' },
    ['', 'active', 'paused', 'disabled'].map((s) => el('option', { value: s, selected: s === tableState.status }, s || 'any status')),
  );
  render();
  show(
    escalations(late, rows),
    el('h1', {}, 'Integrations'),
    el('div', { class: 'toolbar' }, filter, status, el('button', { type: 'button', onclick: () => route() }, 'Refresh'), summary),
    table,
  );
}

// ---------------------------------------------------------------------------------------------
// Integration page

function configList(view, brand) {
  const w = view.webhook;
  const rows = [
    ['Name', view.name],
    ['Slug', view.slug],
    ['Brand', `${view.brand.name} (#${view.brand.id})`],
    ['Sandbox brand', brand.sandbox ? 'yes (test helpers under /sandbox allowed)' : 'no'],
    ['Status', view.status],
    ['Paused', w.paused_at ? `${when(w.paused_at)} — ${w.paused_reason}` : '—'],
    ['Webhook URL', w.url ?? 'none (events accumulate for replay)'],
    ['Subscribed kinds', w.event_types.join(', ') || 'none'],
    ['Response deadline', `${w.timeout_seconds} s`],
    ['Last sequence', w.last_sequence],
    ['Undelivered events', w.undelivered_events],
    ['Consecutive failures', w.consecutive_failures],
    ['Last success', when(w.last_success_at)],
    ['Last failure', when(w.last_failure_at)],
    ['Next attempt', when(view.delivery.next_attempt_at)],
    ['Delivered up to', view.delivery.cursor_sequence],
    ['Horizon', `${view.horizon_days} days`],
    ['Covered properties', view.covered_properties],
  ];
  return el(
    'dl',
    { class: 'config', id: 'config' },
    rows.map(([k, v]) => [el('dt', {}, k), el('dd', { dataset: { field: k } }, String(v))]),
  );
}

function chart(target, title, stats, series) {
  const width = Math.max(320, target.clientWidth || 600);
  target.replaceChildren();
  const data = [stats.minute_starts, ...series.map((s) => stats[s.key])];
  // eslint-disable-next-line no-new
  new uPlot(
    {
      title,
      width,
      height: 200,
      scales: { x: { time: true } },
      axes: [{}, { size: 50 }],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 1.5, fill: s.fill, points: { show: false } }))],
    },
    data,
    target,
  );
}

async function integrationPage(id) {
  show(el('p', { class: 'muted' }, 'Loading integration…'));
  const view = (await api('GET', `/integrations/${id}`)).data;
  const brand = (await api('GET', `/brands/${view.brand.id}`)).data;
  const reload = () => integrationPage(id);

  const actions = el('div', { class: 'actions' });
  if (view.status === 'paused' || view.webhook.consecutive_failures > 0) {
    actions.append(
      el(
        'button',
        {
          type: 'button',
          id: 'resume',
          class: 'primary',
          disabled: view.status === 'disabled',
          onclick: () =>
            act({
              title: 'Resume delivery',
              question: `Resume webhook delivery to ${view.name} now? Failures are reset and the blocked event is sent at once.`,
              run: () => api('POST', `/integrations/${id}/webhook/resume`),
              done: reload,
            }),
        },
        'Resume delivery',
      ),
    );
  }
  actions.append(
    view.status === 'disabled'
      ? el(
          'button',
          {
            type: 'button',
            id: 'enable',
            onclick: () =>
              act({
                title: 'Enable integration',
                question: `Enable ${view.name}? Its API key works again and delivery starts from the queue's head.`,
                run: () => api('PATCH', `/integrations/${id}`, { status: 'active' }),
                done: reload,
              }),
          },
          'Enable',
        )
      : el(
          'button',
          {
            type: 'button',
            id: 'disable',
            class: 'danger',
            onclick: () =>
              act({
                title: 'Disable integration',
                question: `Disable ${view.name}? Its API key stops working, no events are recorded or delivered for it.`,
                danger: true,
                run: () => api('PATCH', `/integrations/${id}`, { status: 'disabled' }),
                done: reload,
              }),
          },
          'Disable',
        ),
    el(
      'button',
      {
        type: 'button',
        id: 'rotate-key',
        class: 'danger',
        onclick: async () => {
          if (
            !(await ask({
              title: 'Rotate API key',
              body: [el('p', {}, `Issue a new API key for ${view.name}? The current key stops working at once.`)],
              ok: 'Rotate API key',
              danger: true,
            }))
          ) {
            say('Rotate API key: cancelled, nothing changed.');
            return;
          }
          try {
            const res = await api('POST', `/integrations/${id}/api-key/rotate`);
            say(`${res.message} The previous key no longer works.`, 'ok');
            await showSecret('New API key', res.data.api_key);
          } catch (error) {
            say(`Rotate API key failed: ${describeError(error)}`, 'error');
          }
        },
      },
      'Rotate API key',
    ),
    el(
      'button',
      {
        type: 'button',
        id: 'rotate-secret',
        onclick: async () => {
          if (
            !(await ask({
              title: 'Rotate webhook secret',
              body: [el('p', {}, `Issue a new webhook secret for ${view.name}? The previous one keeps verifying for 24 hours.`)],
              ok: 'Rotate webhook secret',
              danger: true,
            }))
          ) {
            say('Rotate webhook secret: cancelled, nothing changed.');
            return;
          }
          try {
            const res = await api('POST', `/integrations/${id}/webhook-secret/rotate`);
            say(`${res.message} The previous secret verifies for 24 hours more.`, 'ok');
            await showSecret('New webhook secret', res.data.webhook_secret);
          } catch (error) {
            say(`Rotate webhook secret failed: ${describeError(error)}`, 'error');
          }
        },
      },
      'Rotate webhook secret',
    ),
    el('button', { type: 'button', id: 'edit-webhook', onclick: () => editWebhook(view, reload) }, 'Edit webhook'),
    el(
      'button',
      {
        type: 'button',
        id: 'toggle-sandbox',
        onclick: () =>
          act({
            title: brand.sandbox ? 'End sandbox' : 'Make sandbox',
            question: brand.sandbox
              ? `Stop ${brand.name} being a sandbox? Its integrations lose the test-helper routes at once.`
              : `Make ${brand.name} a sandbox? Every integration of the brand may then act as its host (bookings, blocks, prices, archiving) through the test-helper routes.`,
            danger: !brand.sandbox,
            run: () => api('PATCH', `/brands/${brand.id}`, { sandbox: !brand.sandbox }),
            done: reload,
          }),
      },
      brand.sandbox ? 'End sandbox' : 'Make brand a sandbox',
    ),
  );

  const deliveriesChart = el('div', { class: 'chart', id: 'chart-deliveries' });
  const backlogChart = el('div', { class: 'chart', id: 'chart-backlog' });
  const attempts = el('section', { id: 'attempts' });
  const events = el('section', { id: 'events' });
  const properties = el('section', { id: 'properties' });

  show(
    el('p', {}, el('a', { href: '#/' }, '← All integrations')),
    el(
      'h1',
      {},
      view.name,
      ' ',
      healthBadge({ ...view, ...view.webhook, status: view.status, undelivered_events: view.webhook.undelivered_events, oldest_undelivered_age_seconds: null }),
    ),
    el('div', { class: 'card' }, configList(view, brand), actions),
    el('h2', {}, 'Last 24 hours'),
    el('div', { class: 'card grid2' }, deliveriesChart, backlogChart),
    attempts,
    events,
    properties,
  );

  await Promise.all([
    api('GET', `/integrations/${id}/delivery-stats?hours=24`).then((res) => {
      chart(deliveriesChart, 'Deliveries per minute', res.data, [
        { key: 'success', label: 'Success', color: '#067647' },
        { key: 'failure', label: 'Failure', color: '#b42318' },
      ]);
      chart(backlogChart, 'Backlog (undelivered events)', res.data, [{ key: 'backlog', label: 'Backlog', color: '#3b5bdb', fill: 'rgba(59,91,219,0.1)' }]);
    }),
    attemptsSection(attempts, id, null),
    eventsSection(events, id, view),
    propertiesSection(properties, id, 1),
  ]).catch((error) => say(`Loading failed: ${describeError(error)}`, 'error'));
}

async function attemptsSection(target, id, before) {
  const res = await api('GET', `/integrations/${id}/deliveries/recent?limit=25${before ? `&before=${before}` : ''}`);
  const rows = res.data.map((a) =>
    el(
      'tr',
      { dataset: { attempt: String(a.id) } },
      el('td', {}, when(a.attempted_at)),
      el('td', {}, a.event.type, a.event.sequence !== null ? ` #${a.event.sequence}` : ''),
      el('td', { class: 'num' }, a.attempt ?? '—'),
      el(
        'td',
        {},
        el('span', { class: `badge ${a.success ? 'good' : 'bad'}` }, a.status_code !== null ? String(a.status_code) : 'error'),
        a.error ? ` ${a.error}` : '',
      ),
      el('td', { class: 'num' }, `${a.duration_ms} ms`),
      // the receiver's answer: partner-controlled bytes, shown as text
      el('td', {}, el('pre', { class: 'answer' }, a.response_body ?? '')),
    ),
  );
  target.replaceChildren(
    el('h2', {}, 'Delivery attempts (newest first)'),
    rows.length === 0
      ? el('p', { class: 'muted' }, 'No attempts logged.')
      : el(
          'table',
          {},
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              ['Time', 'Event', 'Attempt', 'Result', 'Duration', 'Answer (first bytes)'].map((h) => el('th', { scope: 'col' }, h)),
            ),
          ),
          el('tbody', {}, rows),
        ),
    el(
      'div',
      { class: 'pager' },
      before ? el('button', { type: 'button', onclick: () => attemptsSection(target, id, null) }, 'Newest') : null,
      res.cursor.has_more
        ? el('button', { type: 'button', id: 'attempts-older', onclick: () => attemptsSection(target, id, res.cursor.next_before) }, 'Older')
        : null,
    ),
  );
}

async function eventsSection(target, id, view, after) {
  // the latest events by default: the page before the last sequence
  const start = after ?? Math.max(0, view.webhook.last_sequence - 50);
  const res = await api('GET', `/integrations/${id}/events?limit=50&after_sequence=${start}`);
  const rows = res.data.map((e) =>
    el(
      'tr',
      {},
      el('td', { class: 'num' }, e.sequence),
      el('td', {}, e.type),
      el('td', {}, e.window ? `${e.window.from} → ${e.window.to}` : '—'),
      el('td', {}, when(e.created_at)),
      el(
        'td',
        {},
        el('span', { class: `badge ${e.delivery.status === 'delivered' ? 'good' : e.delivery.status === 'pending' ? 'warn' : 'off'}` }, e.delivery.status),
      ),
      el('td', { class: 'num' }, e.delivery.attempts),
      el(
        'td',
        {},
        e.delivery.delivered_at
          ? when(e.delivery.delivered_at)
          : e.delivery.last_attempt
            ? `last: ${e.delivery.last_attempt.status_code ?? e.delivery.last_attempt.error}`
            : '—',
      ),
    ),
  );
  target.replaceChildren(
    el('h2', {}, `Events (sequence ${start + 1} on)`),
    rows.length === 0
      ? el('p', { class: 'muted' }, 'No events.')
      : el(
          'table',
          {},
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              ['Sequence', 'Kind', 'Window', 'Recorded', 'Delivery', 'Attempts', 'Delivered / last'].map((h) => el('th', { scope: 'col' }, h)),
            ),
          ),
          el('tbody', {}, rows),
        ),
    el(
      'div',
      { class: 'pager' },
      start > 0 ? el('button', { type: 'button', onclick: () => eventsSection(target, id, view, Math.max(0, start - 50)) }, 'Earlier') : null,
      res.cursor.has_more ? el('button', { type: 'button', onclick: () => eventsSection(target, id, view, res.cursor.next_after_sequence) }, 'Later') : null,
    ),
  );
}

async function propertiesSection(target, id, page) {
  const res = await api('GET', `/properties?integration_id=${id}&per_page=25&page=${page}`);
  target.replaceChildren(
    el('h2', {}, `Covered properties (${res.pagination.total})`),
    res.data.length === 0
      ? el('p', { class: 'muted' }, 'None.')
      : el(
          'table',
          {},
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              ['Id', 'Name', 'External id', 'City', 'Status'].map((h) => el('th', { scope: 'col' }, h)),
            ),
          ),
          el(
            'tbody',
            {},
            res.data.map((p) =>
              el(
                'tr',
                {},
                el('td', { class: 'num' }, p.id),
                el('td', {}, p.name),
                el('td', {}, p.external_id ?? '—'),
                el('td', {}, p.city),
                el('td', {}, p.status),
              ),
            ),
          ),
        ),
    el(
      'div',
      { class: 'pager' },
      page > 1 ? el('button', { type: 'button', onclick: () => propertiesSection(target, id, page - 1) }, 'Previous') : null,
      page < res.pagination.last_page ? el('button', { type: 'button', onclick: () => propertiesSection(target, id, page + 1) }, 'Next') : null,
      el('span', { class: 'muted' }, `page ${res.pagination.page} of ${res.pagination.last_page}`),
    ),
  );
}

async function editWebhook(view, reload) {
  const url = el('input', { type: 'url', id: 'webhook-url', value: view.webhook.url ?? '', placeholder: 'https://… (empty: no delivery)' });
  const timeout = el('input', { type: 'number', id: 'webhook-timeout', min: '1', max: '30', value: String(view.webhook.timeout_seconds) });
  const boxes = EVENT_TYPES.map((t) => el('input', { type: 'checkbox', value: t, checked: view.webhook.event_types.includes(t) }));
  const body = [
    el('label', { for: 'webhook-url' }, 'Webhook URL'),
    url,
    el('label', {}, 'Subscribed kinds'),
    el(
      'div',
      { class: 'types' },
      boxes.map((b) => el('label', {}, b, b.value)),
    ),
    el('label', { for: 'webhook-timeout' }, 'Response deadline (seconds, 1 to 30)'),
    timeout,
  ];
  const validate = () => {
    const n = Number(timeout.value);
    if (!Number.isInteger(n) || n < 1 || n > 30) return 'The response deadline is a whole number of seconds from 1 to 30.';
    return null;
  };
  if (!(await ask({ title: `Edit webhook of ${view.name}`, body, ok: 'Save webhook', validate }))) {
    say('Edit webhook: cancelled, nothing changed.');
    return;
  }
  const change = {
    url: url.value.trim() === '' ? null : url.value.trim(),
    event_types: boxes.filter((b) => b.checked).map((b) => b.value),
    timeout_seconds: Number(timeout.value),
  };
  try {
    const res = await api('PATCH', `/integrations/${view.id}`, { webhook: change });
    say(
      `${res.message} URL ${res.data.webhook.url ?? 'removed'}; ${res.data.webhook.event_types.length} kinds; deadline ${res.data.webhook.timeout_seconds} s.`,
      'ok',
    );
    await reload();
  } catch (error) {
    say(`Edit webhook failed: ${describeError(error)}`, 'error');
  }
}

// ---------------------------------------------------------------------------------------------
// Routing (the hash never carries the token)

async function route() {
  if (!token.get()) return signIn();
  signOutButton.hidden = false;
  const match = /^#\/integrations\/(\d+)$/.exec(location.hash);
  try {
    if (match) await integrationPage(Number(match[1]));
    else await integrationsPage();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return;
    show(el('p', {}, `Could not load: ${describeError(error)}`), el('p', {}, el('a', { href: '#/' }, 'Back to the list')));
  }
}

window.addEventListener('hashchange', () => {
  clearNotice();
  route();
});
route();
