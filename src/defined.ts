/**
 * `obj` without its undefined properties. Lets optional settings be passed on as they are, instead of one
 * `...(x ? { x } : {})` per setting, and keeps an absent value from overriding a default spread before it.
 */
export function defined<T extends Record<string, unknown>>(obj: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: { [K in keyof T]?: Exclude<T[K], undefined> } = {};
  for (const key of Object.keys(obj) as (keyof T)[]) {
    const value = obj[key];
    if (value !== undefined) out[key] = value as Exclude<T[keyof T], undefined>;
  }
  return out;
}
