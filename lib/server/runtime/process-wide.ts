/**
 * State that must exist once per server process. Next bundles each route on its own, so a
 * module-level variable exists once per route bundle: keep such state on globalThis instead.
 */
export function processWide<T>(name: string, create: () => T): T {
  const store = globalThis as typeof globalThis & Record<symbol, T | undefined>;
  const key = Symbol.for(`reflect-inspector:${name}`);
  store[key] ??= create();
  return store[key];
}
