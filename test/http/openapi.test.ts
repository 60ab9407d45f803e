import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, postJson, type TestApp } from './fixture.js';

type Json = Record<string, unknown>;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every `$ref` in the document, with where it was found. */
function refs(node: unknown, at = '#'): Array<{ ref: string; at: string }> {
  if (Array.isArray(node)) return node.flatMap((n, i) => refs(n, `${at}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node as Json).flatMap(([k, v]) =>
    k === '$ref' && typeof v === 'string' ? [{ ref: v, at }] : refs(v, `${at}/${k}`),
  );
}

function resolvePointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Json)[key];
  }
  return node;
}

/**
 * The structural rules of OpenAPI 3.1 that a client generator relies on: version, info, paths starting with '/',
 * operations with unique ids and described responses keyed by status codes, JSON request bodies with schemas,
 * every $ref resolving, security requirements naming declared schemes.
 */
function structuralProblems(doc: Json): string[] {
  const problems: string[] = [];
  if (typeof doc.openapi !== 'string' || !/^3\.[01]\.\d+$/.test(doc.openapi)) problems.push(`openapi version ${String(doc.openapi)}`);
  const info = doc.info as Json | undefined;
  if (typeof info?.title !== 'string' || typeof info.version !== 'string') problems.push('info.title / info.version');
  const paths = doc.paths as Record<string, Json> | undefined;
  if (paths === undefined || typeof paths !== 'object') return [...problems, 'no paths object'];
  const components = (doc.components ?? {}) as Json;
  const schemes = Object.keys((components.securitySchemes ?? {}) as Json);
  const operationIds = new Set<string>();
  for (const [p, item] of Object.entries(paths)) {
    if (!p.startsWith('/')) problems.push(`path ${p} does not start with /`);
    for (const [method, op] of Object.entries(item)) {
      if (!HTTP_METHODS.includes(method)) continue;
      const o = op as Json;
      const where = `${method.toUpperCase()} ${p}`;
      if (typeof o.operationId === 'string') {
        if (operationIds.has(o.operationId)) problems.push(`${where}: duplicate operationId`);
        operationIds.add(o.operationId);
      }
      const responses = o.responses as Record<string, Json> | undefined;
      if (responses === undefined || Object.keys(responses).length === 0) problems.push(`${where}: no responses`);
      for (const [status, r] of Object.entries(responses ?? {})) {
        if (!/^([1-5][0-9]{2}|[1-5]XX|default)$/.test(status)) problems.push(`${where}: response key ${status}`);
        if (typeof r.description !== 'string') problems.push(`${where} ${status}: no description`);
      }
      const body = o.requestBody as Json | undefined;
      if (body !== undefined) {
        const content = body.content as Record<string, Json> | undefined;
        if (content?.['application/json']?.schema === undefined) problems.push(`${where}: request body without a JSON schema`);
      }
      for (const req of (o.security ?? []) as Json[]) {
        for (const name of Object.keys(req)) if (!schemes.includes(name)) problems.push(`${where}: unknown security scheme ${name}`);
      }
    }
  }
  for (const req of (doc.security ?? []) as Json[]) {
    for (const name of Object.keys(req)) if (!schemes.includes(name)) problems.push(`unknown security scheme ${name}`);
  }
  for (const { ref, at } of refs(doc)) {
    if (resolvePointer(doc, ref) === undefined) problems.push(`${at}: $ref ${ref} does not resolve`);
  }
  return problems;
}

let t: TestApp;
let doc: Json;
beforeAll(async () => {
  t = await createTestApp({ MAX_BATCH_PROJECTS: '7', MAX_BODY_BYTES: '3000', RATE_LIMIT_PER_MINUTE: '600' });
  const res = await t.app.request('/openapi.json');
  expect(res.status).toBe(200);
  doc = (await res.json()) as Json;
});
afterAll(async () => {
  await t.close();
});

const schemaOf = (name: string): Json => (doc.components as { schemas: Record<string, Json> }).schemas[name] ?? {};
const operation = (p: string): Json => ((doc.paths as Record<string, Json>)[p]?.post ?? {}) as Json;

describe('GET /openapi.json', () => {
  it('is a structurally valid OpenAPI 3 document', () => {
    expect(structuralProblems(doc)).toEqual([]);
  });

  it('the structure check catches a broken document (so the test above can fail)', () => {
    const broken = JSON.parse(JSON.stringify(doc)) as Json;
    (broken.paths as Json)['no-slash'] = { post: { responses: {} } };
    ((broken.components as Json).schemas as Json).Error = undefined;
    const problems = structuralProblems(JSON.parse(JSON.stringify(broken)) as Json);
    expect(problems.some((p) => p.includes('does not start with /'))).toBe(true);
    expect(problems.some((p) => p.includes('no responses'))).toBe(true);
    expect(problems.some((p) => p.includes('#/components/schemas/Error'))).toBe(true);
  });

  it('describes both metadata paths as POST with JSON bodies and the CONTRACT error responses', () => {
    const paths = Object.keys(doc.paths as Json);
    expect(paths).toEqual(
      expect.arrayContaining(['/project-documents/metadata', '/project-documents/batch-metadata', '/projects-documents/batch-search']),
    );
    for (const p of ['/project-documents/metadata', '/project-documents/batch-metadata']) {
      const op = operation(p);
      expect(Object.keys(op.responses as Json)).toEqual(
        expect.arrayContaining(['200', '400', '401', '405', '413', '415', '429', '500', '503']),
      );
      expect((op.requestBody as Json).required).toBe(true);
    }
    expect(Object.keys(operation('/project-documents/metadata').responses as Json)).toContain('404');
  });

  it('documents both naming variants, generated from the validating schemas', () => {
    const ref = schemaOf('ProjectReference');
    expect(Object.keys(ref.properties as Json)).toEqual(expect.arrayContaining(['project_id', 'projectId', 'id', 'registry']));
    const single = schemaOf('MetadataRequest');
    expect(Object.keys(single.properties as Json)).toEqual(expect.arrayContaining(['projectId', 'id', 'registry', 'raw']));
    const batch = schemaOf('BatchMetadataRequest');
    const props = batch.properties as Record<string, Json>;
    expect(Object.keys(props)).toEqual(expect.arrayContaining(['projectList', 'list', 'query', 'raw']));
    // The configured limit (7 here) is what both the document and the validator use.
    expect(props.projectList?.maxItems).toBe(7);
    expect(props.list?.maxItems).toBe(7);
    expect(props.query?.maxLength).toBe(2000);
  });

  it('states the limits, the rate limit, and that query does not change the result', () => {
    const batchOp = operation('/project-documents/batch-metadata');
    expect(String(batchOp.description)).toMatch(/query.*does not change the result/);
    expect(String(batchOp.description)).toContain('7 projects');
    expect(String(batchOp.description)).toContain('3000 bytes');
    expect(JSON.stringify(schemaOf('BatchMetadataRequest'))).toContain('does not change the result');
    const info = doc.info as Json;
    expect(String(info.description)).toContain('3000 bytes');
    expect(String(info.description)).toContain('600 requests per minute');
  });

  it('its request examples are accepted by the endpoints it documents', async () => {
    for (const [p, name] of [
      ['/project-documents/metadata', 'MetadataRequest'],
      ['/project-documents/batch-metadata', 'BatchMetadataRequest'],
    ] as const) {
      const example = schemaOf(name).example;
      expect(example).toBeDefined();
      const res = await postJson(t.app, p, example);
      // 4086 is not in the fixture: the single endpoint says 404, the batch maps it to null; neither is a 400.
      expect([200, 404]).toContain(res.status);
    }
  });

  it('declares the two auth schemes, and requires them only when API_KEYS is set', async () => {
    expect(Object.keys((doc.components as Json).securitySchemes as Json)).toEqual(['bearerAuth', 'apiKeyHeader']);
    expect(doc.security).toBeUndefined();
    const keyed = await createTestApp({ API_KEYS: 'k1' });
    try {
      const res = await keyed.app.request('/openapi.json', { headers: { Authorization: 'Bearer k1' } });
      const d = (await res.json()) as Json;
      expect(d.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
      expect(structuralProblems(d)).toEqual([]);
    } finally {
      await keyed.close();
    }
  });

  it('documents every status /mcp answers (schemathesis found the 415 and 406 undocumented)', async () => {
    const documented = Object.keys(operation('/mcp').responses as Json);
    const statuses = [
      (await t.app.request('/mcp', { method: 'POST', body: '{}' })).status,
      (await postJson(t.app, '/mcp', {})).status,
      (await postJson(t.app, '/mcp', {}, { Accept: 'application/json, text/event-stream' })).status,
      (await postJson(t.app, '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { Accept: 'application/json, text/event-stream' }))
        .status,
    ];
    expect(statuses).toEqual([415, 406, 400, 200]);
    for (const s of statuses) expect(documented).toContain(String(s));
  });

  it('a list longer than the documented maxItems is a 413', async () => {
    const eight = Array.from({ length: 8 }, (_, i) => ({ id: i + 1, registry: 'CDM' }));
    expect((await postJson(t.app, '/project-documents/batch-metadata', { list: eight })).status).toBe(413);
    expect((await postJson(t.app, '/project-documents/batch-metadata', { list: eight.slice(0, 7) })).status).toBe(200);
  });
});

/**
 * Whether `value` matches `schema`, for the JSON Schema keywords the generated document uses (enough to compare the
 * document with the server; unknown keywords are not checked).
 */
function matches(schema: Json, value: unknown): boolean {
  if (typeof schema.$ref === 'string') return matches(resolvePointer(doc, schema.$ref) as Json, value);
  if (Array.isArray(schema.anyOf) && !(schema.anyOf as Json[]).some((s) => matches(s, value))) return false;
  if (Array.isArray(schema.oneOf) && (schema.oneOf as Json[]).filter((s) => matches(s, value)).length !== 1) return false;
  switch (schema.type) {
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
      const v = value as Json;
      if (Array.isArray(schema.required) && !(schema.required as string[]).every((k) => v[k] !== undefined)) return false;
      for (const [k, s] of Object.entries((schema.properties ?? {}) as Record<string, Json>))
        if (v[k] !== undefined && !matches(s, v[k])) return false;
      return true;
    }
    case 'array':
      return (
        Array.isArray(value) &&
        (typeof schema.minItems !== 'number' || value.length >= schema.minItems) &&
        (typeof schema.maxItems !== 'number' || value.length <= schema.maxItems) &&
        value.every((item) => schema.items === undefined || matches(schema.items as Json, item))
      );
    case 'string':
      return (
        typeof value === 'string' &&
        (typeof schema.pattern !== 'string' || new RegExp(schema.pattern, 'u').test(value)) &&
        (typeof schema.minLength !== 'number' || value.length >= schema.minLength) &&
        (typeof schema.maxLength !== 'number' || value.length <= schema.maxLength)
      );
    case 'integer':
      return (
        Number.isInteger(value) &&
        (typeof schema.exclusiveMinimum !== 'number' || (value as number) > schema.exclusiveMinimum) &&
        (typeof schema.maximum !== 'number' || (value as number) <= schema.maximum)
      );
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

describe('the OpenAPI document accepts no body the server refuses (issue 16.9)', () => {
  const one = { project_id: 5533, registry: 'Verra' };
  const cases: Array<[string, string, unknown]> = [
    ['/project-documents/batch-metadata', 'BatchMetadataRequest', { projectList: [one], list: [one] }],
    ['/project-documents/batch-metadata', 'BatchMetadataRequest', { query: 'x' }],
    ['/project-documents/batch-metadata', 'BatchMetadataRequest', { projectList: [{ registry: 'Verra' }] }],
    ['/project-documents/metadata', 'MetadataRequest', { projectId: '0', registry: 'Verra' }],
    ['/project-documents/metadata', 'MetadataRequest', { id: '000', registry: 'Verra' }],
    ['/project-documents/metadata', 'MetadataRequest', { id: '9999999999999999', registry: 'Verra' }],
    ['/project-documents/metadata', 'MetadataRequest', { registry: 'Verra' }],
    // Blank strings, refused by a refine that the document states as a pattern (found by schemathesis).
    ['/project-documents/metadata', 'MetadataRequest', { projectId: 5533, registry: '' }],
    ['/project-documents/metadata', 'MetadataRequest', { projectId: 5533, registry: ' \t' }],
    ['/projects-documents/batch-search', 'BatchSearchRequest', { list: [one], query: '   ' }],
    ['/projects-documents/batch-search', 'BatchSearchRequest', { list: [one], query: '???' }],
    ['/projects-documents/batch-search', 'BatchSearchRequest', { list: [one], query: 'x', documentTypes: [' '] }],
    ['/projects/search', 'ProjectSearchRequest', { country: '' }],
    ['/projects/search', 'ProjectSearchRequest', { status: ['Registered', ' '] }],
    ['/projects/search', 'ProjectSearchRequest', { methodology: 'V'.repeat(201) }],
  ];
  for (const [p, name, body] of cases) {
    it(`${name} ${JSON.stringify(body)}`, async () => {
      const res = await postJson(t.app, p, body);
      expect(res.status).toBe(400);
      expect(matches(schemaOf(name), body)).toBe(false);
    });
  }

  it('and accepts the bodies the server takes', async () => {
    for (const [p, name, body] of [
      ['/project-documents/batch-metadata', 'BatchMetadataRequest', { list: [one, { id: '0005533', registry: 'verra' }] }],
      ['/project-documents/metadata', 'MetadataRequest', { projectId: '5533', id: 5533, registry: 'Verra', raw: true }],
      ['/project-documents/metadata', 'MetadataRequest', { projectId: 5533, registry: ' verra ' }],
    ] as const) {
      expect((await postJson(t.app, p, body)).status).toBe(200);
      expect(matches(schemaOf(name), body)).toBe(true);
    }
  });
});
