// The one table of the dashboard's lists (coverage, dead letters, audit, jobs, journeys, a
// task's states): a header row of column titles, one row per item, each row's cells from the
// page. Keyed rows, scoped headers, and the same markup everywhere, so that styles and tests
// read every list alike.
import type { ReactNode } from 'react';

/** Attributes a row may carry besides its key: data-* for tests and styles, a class. */
export type RowProps = { className?: string } & Record<`data-${string}`, string | undefined>;

export interface TableProps<T> {
  columns: readonly ReactNode[];
  rows: readonly T[];
  rowKey: (row: T, index: number) => string | number;
  /** The row's cells (<td>s). */
  children: (row: T, index: number) => ReactNode;
  rowProps?: (row: T, index: number) => RowProps;
  caption?: ReactNode;
  testId?: string;
  className?: string;
}

export function Table<T>({
  columns,
  rows,
  rowKey,
  children,
  rowProps,
  caption,
  testId,
  className,
}: TableProps<T>) {
  return (
    <table data-testid={testId} className={className}>
      {caption === undefined ? null : <caption>{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th scope="col" key={i}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={rowKey(row, i)} {...rowProps?.(row, i)}>
            {children(row, i)}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
