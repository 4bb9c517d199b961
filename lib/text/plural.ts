/** "1 iteration", "2 iterations", "0 rows": the one place the UI pluralises a count. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
