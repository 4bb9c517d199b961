/**
 * Joins a component's own classes with the caller's, the caller winning where both set the same
 * thing: a base class is dropped when the caller's classes hold one of its group (padding on an
 * axis, text size, width, height, font weight, text, background or border colour). Tailwind orders its CSS by utility, not by the
 * order in the class attribute, so two classes of a group on one element would otherwise race.
 */
const GROUPS: readonly RegExp[] = [
  /^px-/,
  /^py-/,
  /^text-(2xs|xs|sm|base|lg|xl|\[\d+px\])$/,
  /^w-/,
  /^h-/,
  /^font-(normal|medium|semibold|bold)$/,
  /^text-[a-z]+-\d{2,3}$/,
  /^bg-([a-z]+-\d{2,3}|white|transparent)$/,
  /^border-([a-z]+-\d{2,3}|transparent)$/,
];

const groupOf = (cls: string): RegExp | undefined => GROUPS.find((g) => g.test(cls));

export function cx(base: string, extra?: string | false | null): string {
  if (!extra) return base;
  const mine = extra.split(/\s+/).filter(Boolean);
  const taken = new Set(mine.map(groupOf).filter((g): g is RegExp => g !== undefined));
  const kept = base
    .split(/\s+/)
    .filter(Boolean)
    .filter((c) => {
      const g = groupOf(c);
      return g === undefined || !taken.has(g);
    });
  return [...kept, ...mine].join(" ");
}
