/** Most characters of a client's input an error message or detail repeats. */
export const MAX_ECHO_CHARS = 200;

/** A client's input as an error repeats it: cut to MAX_ECHO_CHARS, saying how long it was when cut. */
export function cut(value: string): string {
  return value.length <= MAX_ECHO_CHARS ? value : `${value.slice(0, MAX_ECHO_CHARS)}... (${value.length} characters)`;
}

/** `cut(value)` quoted as JSON, for a message: `unknown registry "Verr"`. */
export function quoted(value: string): string {
  return value.length <= MAX_ECHO_CHARS
    ? JSON.stringify(value)
    : `${JSON.stringify(value.slice(0, MAX_ECHO_CHARS))}... (${value.length} characters)`;
}
