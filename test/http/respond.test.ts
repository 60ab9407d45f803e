import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { orderedObjectJson, orderedObjectOfJson, serializedJson } from '../../src/http/respond.js';

describe('JSON in the order given', () => {
  it('keeps integer-like keys in insertion order, where JSON.stringify would sort them', () => {
    const entries: [string, unknown][] = [
      ['5533', { a: 1 }],
      ['12', null],
      ['7', undefined],
    ];
    expect(
      JSON.stringify(
        Object.fromEntries([
          ['5533', 1],
          ['12', 2],
        ]),
      ),
    ).toBe('{"12":2,"5533":1}');
    expect(orderedObjectJson(entries)).toBe('{"5533":{"a":1},"12":null,"7":null}');
    expect(
      orderedObjectOfJson([
        ['9', '[1,2]'],
        ['1', '"x"'],
      ]),
    ).toBe('{"9":[1,2],"1":"x"}');
  });

  it('serves such text as an application/json response, unchanged', async () => {
    const app = new Hono();
    app.get('/x', (c) =>
      serializedJson(
        c,
        orderedObjectJson([
          ['2', 1],
          ['1', 2],
        ]),
      ),
    );
    const res = await app.request('/x');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.text()).toBe('{"2":1,"1":2}');
  });
});
