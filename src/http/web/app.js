// The search page's one script: plain browser JavaScript, no build step, no third-party code. It talks only to
// this service (same origin): POST /projects/search, /project-documents/batch-metadata and
// /projects-documents/batch-search. The selection and question live in the URL, so a search can be shared.
'use strict';

const KEY_STORAGE = 'carbon-docs.apiKey';
const PAGE_SIZE = 20;
/** The first sentence of an answer given on little evidence (src/services/search.ts ANSWER_HEDGE; a test keeps them equal). */
const ANSWER_HEDGE = 'The passages found may answer this only in part.';
const FILTERS = ['registry', 'country', 'methodology', 'type', 'status'];

const $ = (id) => document.getElementById(id);
const state = {
  /** key "Registry:id" -> {registry, projectId, name, indexedDocuments} */
  picked: new Map(),
  cursor: null,
  findRequest: null,
  /** document types offered for the picked projects */
  docTypes: [],
  /** types ticked in a shared link, applied once the picked projects' types are known */
  restoreTypes: [],
};

const keyOf = (p) => `${p.registry}:${p.projectId}`;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// ---- API access ---------------------------------------------------------------------------------------------

function apiKey() {
  try {
    return sessionStorage.getItem(KEY_STORAGE) || '';
  } catch {
    return '';
  }
}

class ApiError extends Error {
  constructor(message, status, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(path, body) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const key = apiKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  let res;
  try {
    res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body) });
  } catch {
    throw new ApiError('The service could not be reached. Check that it is running, then try again.', 0, 'network');
  }
  let json = null;
  try {
    json = await res.json();
  } catch {
    // handled below
  }
  if (res.ok && json !== null) return json;
  const err = json && json.error;
  if (res.status === 401) {
    openKeyBox();
    throw new ApiError(
      apiKey() ? 'The service refused the API key. Enter a valid key above.' : 'This service needs an API key: enter it above, then try again.',
      401,
      'unauthorized',
    );
  }
  if (err && typeof err.message === 'string') {
    const words = {
      invalid_request: 'The request was refused',
      unknown_registry: 'Unknown registry',
      payload_too_large: 'Too much at once',
      rate_limited: 'Too many requests; wait a moment',
      unavailable: 'The service is temporarily unavailable',
      internal: 'The service failed',
    };
    const lead = words[err.code] || 'The service answered with an error';
    throw new ApiError(`${lead}: ${err.message}${err.requestId ? ` (request id ${err.requestId})` : ''}`, res.status, err.code);
  }
  throw new ApiError(`The service answered with HTTP ${res.status} and no explanation.`, res.status, 'http');
}

function setStatus(node, text, kind) {
  node.textContent = text;
  node.className = `status${kind ? ` ${kind}` : ''}`;
}

// ---- API key --------------------------------------------------------------------------------------------------

function openKeyBox() {
  const box = $('key-box');
  box.open = true;
  $('api-key').focus();
}

function showKeyState() {
  $('key-state').textContent = apiKey() ? 'A key is set for this tab.' : 'No key set (not needed unless the service asks for one).';
}

// ---- URL state ------------------------------------------------------------------------------------------------

function writeUrl() {
  const params = new URLSearchParams();
  const q = $('q').value.trim();
  if (q) params.set('q', q);
  for (const f of FILTERS) {
    const v = $(`f-${f}`).value.trim();
    if (v) params.set(f, v);
  }
  if (state.picked.size > 0) params.set('projects', [...state.picked.keys()].join(','));
  const question = $('question').value.trim();
  if (question) params.set('question', question);
  if ($('per-project').checked) params.set('perProject', '1');
  const types = [...new Set([...checkedTypes(), ...state.restoreTypes])];
  if (types.length > 0) params.set('types', types.join('|'));
  const search = params.toString();
  history.replaceState(null, '', `${location.pathname}${search ? `?${search}` : ''}${location.hash}`);
}

function readUrl() {
  const params = new URLSearchParams(location.search);
  $('q').value = params.get('q') || '';
  for (const f of FILTERS) $(`f-${f}`).value = params.get(f) || '';
  $('question').value = params.get('question') || '';
  $('per-project').checked = params.get('perProject') === '1';
  const picked = [];
  for (const part of (params.get('projects') || '').split(',')) {
    const i = part.lastIndexOf(':');
    const id = Number(part.slice(i + 1));
    if (i > 0 && Number.isSafeInteger(id) && id > 0) picked.push({ registry: part.slice(0, i), projectId: id });
  }
  const types = (params.get('types') || '').split('|').filter(Boolean);
  return { picked, types, question: $('question').value.trim() };
}

// ---- Find -----------------------------------------------------------------------------------------------------

function findRequest() {
  const body = { limit: PAGE_SIZE };
  const q = $('q').value.trim();
  if (q) body.query = q;
  for (const f of FILTERS) {
    const v = $(`f-${f}`).value.trim();
    if (v) body[f] = v;
  }
  return body;
}

function remember(listId, value) {
  if (!value) return;
  const list = $(listId);
  if ([...list.options].some((o) => o.value === value) || list.options.length >= 200) return;
  list.append(el('option', { value }));
}

function projectMeta(p) {
  return [`${p.registry} ${p.projectId}`, p.location, p.methodology, p.type, p.status, p.proponent].filter(Boolean).join(' · ');
}

function docsLabel(n) {
  return n === 1 ? '1 indexed document' : `${n} indexed documents`;
}

function renderResult(p) {
  const key = keyOf(p);
  const id = `pick-${key.replace(/[^A-Za-z0-9]/g, '-')}`;
  const box = el('input', {
    type: 'checkbox',
    id,
    checked: state.picked.has(key),
    onchange: (e) => {
      if (e.target.checked) state.picked.set(key, { ...p });
      else state.picked.delete(key);
      renderPicked();
      writeUrl();
    },
  });
  return el(
    'li',
    {},
    el(
      'label',
      { for: id },
      box,
      el(
        'span',
        {},
        el('span', { class: 'name', text: p.name || `${p.registry} ${p.projectId}` }),
        el('span', { class: 'meta', text: projectMeta(p) }),
        el('span', { class: `meta docs${p.indexedDocuments > 0 ? '' : ' none'}`, text: docsLabel(p.indexedDocuments) }),
      ),
    ),
  );
}

async function find(more) {
  const status = $('find-status');
  const button = $('find-button');
  if (!more) {
    state.findRequest = findRequest();
    state.cursor = null;
  }
  const body = { ...state.findRequest, ...(more && state.cursor ? { cursor: state.cursor } : {}) };
  button.disabled = true;
  $('more-button').disabled = true;
  $('results').setAttribute('aria-busy', 'true');
  setStatus(status, 'Searching projects…', 'busy');
  try {
    const res = await api('/projects/search', body);
    if (!more) $('results').replaceChildren();
    for (const p of res.projects) {
      $('results').append(renderResult(p));
      remember('methodologies', p.methodology);
      remember('types', p.type);
      remember('statuses', p.status);
    }
    state.cursor = res.nextCursor;
    $('more-button').hidden = !res.nextCursor;
    const shown = $('results').children.length;
    setStatus(
      status,
      res.total === 0
        ? 'No project matches these words and filters.'
        : `${res.total} project${res.total === 1 ? '' : 's'} found${shown < res.total ? `, ${shown} shown` : ''}. Tick the ones to ask.`,
    );
  } catch (err) {
    setStatus(status, err.message, 'error');
  } finally {
    button.disabled = false;
    $('more-button').disabled = false;
    $('results').removeAttribute('aria-busy');
  }
}

// ---- Picked projects and document types ---------------------------------------------------------------------

function renderPicked() {
  const list = $('picked');
  list.replaceChildren();
  for (const [key, p] of state.picked) {
    const label = `${p.name || key}${typeof p.indexedDocuments === 'number' ? ` (${docsLabel(p.indexedDocuments)})` : ''}`;
    list.append(
      el(
        'li',
        {},
        el('span', { text: label, title: label }),
        el('button', {
          type: 'button',
          'aria-label': `Remove ${p.name || key}`,
          text: '×',
          onclick: () => {
            state.picked.delete(key);
            const box = document.getElementById(`pick-${key.replace(/[^A-Za-z0-9]/g, '-')}`);
            if (box) box.checked = false;
            renderPicked();
            writeUrl();
          },
        }),
      ),
    );
  }
  $('picked-empty').hidden = state.picked.size > 0;
  scheduleDocTypes();
}

function checkedTypes() {
  return [...document.querySelectorAll('#doc-types input:checked')].map((i) => i.value);
}

let docTypesTimer = null;
function scheduleDocTypes() {
  clearTimeout(docTypesTimer);
  docTypesTimer = setTimeout(loadDocTypes, 250);
}

/** The document types of the picked projects, read from their registry records (documentGroups). */
async function loadDocTypes() {
  const keep = [...checkedTypes(), ...state.restoreTypes];
  const projects = [...state.picked.values()];
  const types = new Set();
  if (projects.length > 0) {
    try {
      const res = await api('/project-documents/batch-metadata', {
        projectList: projects.map((p) => ({ project_id: p.projectId, registry: p.registry })),
        raw: true,
      });
      for (const raw of Object.values(res)) {
        for (const group of (raw && Array.isArray(raw.documentGroups) && raw.documentGroups) || []) {
          for (const doc of (group && Array.isArray(group.documents) && group.documents) || []) {
            if (doc && typeof doc.documentType === 'string' && doc.documentType.trim()) types.add(doc.documentType.trim());
          }
        }
      }
    } catch {
      // Offering no restriction is a fine fallback; the question still works.
    }
  }
  state.docTypes = [...types].sort();
  const box = $('doc-types');
  box.replaceChildren(
    ...state.docTypes.map((t, i) =>
      el('label', { class: 'check' }, el('input', { type: 'checkbox', value: t, id: `doc-type-${i}`, checked: keep.includes(t), onchange: writeUrl }), t),
    ),
  );
  $('types-box').hidden = state.docTypes.length === 0;
  state.restoreTypes = [];
}

/** Names of projects picked through a shared link, from their cleaned records. */
async function loadPickedNames() {
  const projects = [...state.picked.values()];
  if (projects.length === 0) return;
  try {
    const res = await api('/project-documents/batch-metadata', {
      projectList: projects.map((p) => ({ project_id: p.projectId, registry: p.registry })),
    });
    for (const p of projects) {
      const rec = res[String(p.projectId)];
      if (rec && typeof rec.name === 'string') p.name = rec.name;
    }
  } catch {
    // Keep "Registry:id" labels.
  }
  renderPicked();
}

// ---- Ask ------------------------------------------------------------------------------------------------------

function projectLabel(registry, projectId) {
  for (const p of state.picked.values()) {
    if (p.projectId === projectId && p.registry.toLowerCase() === String(registry).toLowerCase()) return p.name || `${registry} ${projectId}`;
  }
  return `${registry} ${projectId}`;
}

/** Text with its [n] markers turned into links to the citations that exist. */
function withMarkers(text, ids) {
  const frag = document.createDocumentFragment();
  let last = 0;
  for (const m of String(text).matchAll(/\[(\d+)\]/g)) {
    const n = Number(m[1]);
    if (!ids.has(n)) continue;
    frag.append(text.slice(last, m.index));
    frag.append(
      el('a', {
        href: `#citation-${n}`,
        'aria-label': `source ${n}`,
        text: `[${n}]`,
        onclick: (e) => {
          e.preventDefault();
          showCitation(n);
        },
      }),
    );
    last = m.index + m[0].length;
  }
  frag.append(text.slice(last));
  return frag;
}

function showCitation(n) {
  const item = $(`citation-${n}`);
  if (!item) return;
  for (const other of document.querySelectorAll('.citations li.flash')) other.classList.remove('flash');
  item.classList.add('flash');
  item.scrollIntoView({ block: 'start' });
  item.focus();
}

/** The passage with its quote (a verbatim part of it) highlighted, when the citation has one. */
function passage(c) {
  const text = String(c.text || '');
  const quote = typeof c.quote === 'string' ? c.quote : '';
  const at = quote ? text.indexOf(quote) : -1;
  if (at < 0) return el('blockquote', { class: 'passage', text });
  return el('blockquote', { class: 'passage' }, text.slice(0, at), el('mark', { text: quote }), text.slice(at + quote.length));
}

function documentLink(c) {
  const page = Number.isInteger(c.page) && c.page > 0 ? c.page : null;
  const uri = String(c.uri || '');
  if (!/^https?:\/\//i.test(uri) && !uri.startsWith('/')) return null;
  const href = page ? `${uri.split('#')[0]}#page=${page}` : uri;
  return el('a', { href, target: '_blank', rel: 'noopener noreferrer', class: 'open-doc', text: page ? `Open the document at page ${page}` : 'Open the document' });
}

function renderCitation(c) {
  const head = el(
    'p',
    { class: 'cite-head' },
    el('span', { class: 'num', text: `[${c.id}]` }),
    el('strong', { text: projectLabel(c.registry, c.projectId) }),
    ` · ${c.documentTitle || 'untitled document'}`,
    c.documentType ? ` · ${c.documentType}` : '',
    Number.isInteger(c.page) ? ` · page ${c.page}` : '',
  );
  const link = documentLink(c);
  return el('li', { id: `citation-${c.id}`, tabindex: '-1' }, head, passage(c), link ? el('p', { class: 'link' }, link) : null);
}

function renderAnswer(res) {
  const citations = Array.isArray(res.citations) ? res.citations : [];
  const ids = new Set(citations.map((c) => c.id));
  $('answer-area').hidden = false;
  const notFound = res.answered === false;
  $('not-found').hidden = !notFound;
  $('not-found').textContent = notFound
    ? 'Not found: the documents of the picked projects do not appear to answer this question. The closest passages are listed below so you can check.'
    : '';
  const answer = String(res.answer || '');
  // The service begins an answer given on little evidence with this sentence (src/services/search.ts ANSWER_HEDGE).
  $('partial').hidden = notFound || !answer.startsWith(ANSWER_HEDGE);
  $('answer').replaceChildren(withMarkers(answer, ids));
  $('answer-model').textContent = res.answerModel ? `Answer written by: ${res.answerModel}` : '';
  $('citations-title').textContent = notFound ? 'Closest passages' : 'Sources';

  const per = $('per-project-answers');
  per.replaceChildren();
  const projects = Array.isArray(res.projects) ? res.projects : [];
  for (const p of projects) {
    const picked = state.picked.get(`${p.registry}:${p.projectId}`) || [...state.picked.values()].find((x) => x.projectId === p.projectId);
    if (picked && typeof p.indexedDocuments === 'number') picked.indexedDocuments = p.indexedDocuments;
  }
  renderPicked();
  const answers = projects.filter((p) => typeof p.answer === 'string');
  if (answers.length > 0) {
    per.append(el('h3', { text: 'Per project' }));
    for (const p of answers) {
      per.append(
        el(
          'div',
          { class: `project-answer${p.answered === false ? ' unanswered' : ''}` },
          el(
            'p',
            {},
            el('strong', { text: projectLabel(p.registry, p.projectId) }),
            p.answered === false ? ' · not found in its documents' : p.answer.startsWith(ANSWER_HEDGE) ? ' · partial match: check its sources' : '',
          ),
          el('p', { class: 'answer' }, withMarkers(p.answer, ids)),
        ),
      );
    }
  }
  $('citations').replaceChildren(...citations.map(renderCitation));
  if (citations.length === 0) $('citations').append(el('li', { text: 'No passage was found in the picked projects\' indexed documents.' }));
}

async function ask() {
  const status = $('ask-status');
  const question = $('question').value.trim();
  if (state.picked.size === 0) {
    setStatus(status, 'Pick at least one project first (tick it in the list of projects found).', 'error');
    return;
  }
  if (!question) {
    setStatus(status, 'Write a question first.', 'error');
    $('question').focus();
    return;
  }
  writeUrl();
  const body = {
    projectList: [...state.picked.values()].map((p) => ({ project_id: p.projectId, registry: p.registry })),
    query: question,
  };
  if ($('per-project').checked) body.perProject = true;
  const types = checkedTypes();
  if (types.length > 0) body.documentTypes = types;
  $('ask-button').disabled = true;
  $('answer-area').setAttribute('aria-busy', 'true');
  setStatus(status, `Searching the documents of ${state.picked.size} project${state.picked.size === 1 ? '' : 's'}…`, 'busy');
  try {
    const res = await api('/projects-documents/batch-search', body);
    renderAnswer(res);
    setStatus(status, res.answered === false ? 'Done: no answer found in the documents.' : 'Done.');
  } catch (err) {
    setStatus(status, err.message, 'error');
  } finally {
    $('ask-button').disabled = false;
    $('answer-area').removeAttribute('aria-busy');
  }
}

// ---- Start ----------------------------------------------------------------------------------------------------

function start() {
  $('find-form').addEventListener('submit', (e) => {
    e.preventDefault();
    writeUrl();
    find(false);
  });
  $('more-button').addEventListener('click', () => find(true));
  $('ask-form').addEventListener('submit', (e) => {
    e.preventDefault();
    ask();
  });
  $('per-project').addEventListener('change', writeUrl);
  $('question').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      ask();
    }
  });
  $('key-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const key = $('api-key').value.trim();
    try {
      if (key) sessionStorage.setItem(KEY_STORAGE, key);
    } catch {
      // Storage refused (private mode): the key still works for this page view.
    }
    $('api-key').value = '';
    showKeyState();
    // Whatever failed for want of a key runs again.
    find(false);
    if (state.picked.size > 0) scheduleDocTypes();
  });
  $('key-forget').addEventListener('click', () => {
    try {
      sessionStorage.removeItem(KEY_STORAGE);
    } catch {
      // nothing stored
    }
    showKeyState();
  });
  showKeyState();

  const restored = readUrl();
  state.restoreTypes = restored.types;
  for (const p of restored.picked) state.picked.set(keyOf(p), { ...p, name: '' });
  renderPicked();
  find(false);
  if (restored.picked.length > 0) {
    // A shared link with a question answers it at once, with the document types it names. Only the link's own
    // question: one typed while the link's projects load is asked when its author asks it.
    loadPickedNames()
      .then(loadDocTypes)
      .then(() => {
        if (restored.question && $('question').value.trim() === restored.question) ask();
      });
  }
}

start();
