import type { ReactNode } from "react";

/** One column: its header, how a row's cell reads, and its classes (width, alignment, tone). */
export interface Column<Row> {
  key: string;
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** Classes of the header cell (a width such as `w-[12%]` belongs here). */
  headerClassName?: string;
  /** Classes of each body cell. */
  cellClassName?: string;
  /** Right-aligned (numbers, versions). */
  numeric?: boolean;
}

/**
 * A table of rows: a small uppercase header, one row per item with a hover tint, and, when there
 * are no rows, the `empty` message in a dashed box instead of an empty table. `dense` tightens the
 * rows for panels. A table with fixed layout (the default) takes its widths from the columns.
 */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  rowProps,
  empty,
  dense = false,
  fixed = true,
  caption,
  testId,
}: {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  /** Extra attributes of a row (data-testid, data-*). */
  rowProps?: (row: Row) => Record<string, string | undefined>;
  empty: ReactNode;
  dense?: boolean;
  fixed?: boolean;
  /** A caption for screen readers (visually hidden). */
  caption?: string;
  testId?: string;
}) {
  if (rows.length === 0) {
    return (
      <p
        className={`rounded border border-dashed border-slate-300 text-center text-slate-500 ${dense ? "p-3" : "p-6"}`}
        data-testid={testId ? `${testId}-empty` : undefined}
      >
        {empty}
      </p>
    );
  }
  const pad = dense ? "py-1" : "py-1.5";
  const last = columns.length - 1;
  const edge = (i: number) => (i === last ? "" : "pr-2");
  return (
    <table
      className={`w-full border-collapse text-left ${fixed ? "table-fixed" : ""} ${dense ? "text-xs" : ""}`}
      data-testid={testId}
    >
      {caption ? <caption className="sr-only">{caption}</caption> : null}
      <thead className="border-b border-slate-200 text-2xs text-slate-500 uppercase tracking-wide">
        <tr>
          {columns.map((c, i) => (
            <th
              key={c.key}
              scope="col"
              className={[i === 0 ? pad : "", edge(i), c.numeric ? "text-right" : "", "font-medium", c.headerClassName]
                .filter(Boolean)
                .join(" ")}
            >
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} className="border-b border-slate-100 align-top hover:bg-white" {...rowProps?.(row)}>
            {columns.map((c, i) => (
              <td
                key={c.key}
                className={[i === 0 ? pad : "", edge(i), c.numeric ? "text-right" : "", c.cellClassName]
                  .filter(Boolean)
                  .join(" ")}
              >
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
