import { describe, expect, it } from 'vitest';
import { defined } from '../src/defined.js';

describe('defined', () => {
  it('drops undefined properties and keeps every other value, falsy ones included', () => {
    const out = defined({ a: 1, b: undefined, c: null, d: 0, e: '', f: false });
    expect(out).toStrictEqual({ a: 1, c: null, d: 0, e: '', f: false });
    expect('b' in out).toBe(false);
  });

  it('lets a default spread before it stand when the value is absent', () => {
    const limit: number | undefined = undefined;
    expect({ limit: 10, ...defined({ limit }) }).toStrictEqual({ limit: 10 });
    expect({ limit: 10, ...defined({ limit: 5 }) }).toStrictEqual({ limit: 5 });
  });
});
