import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Table, TableCell, TableHead, TableRow } from '@mui/material';
import { describe, expect, it, vi } from 'vitest';
import { PagedTable, RowAction, SortableHeaderCell } from './PagedTable';

const footer = (count: number) => ({
  count,
  page: 0,
  size: 10,
  sizes: [10, 20],
  onPage: () => {},
  onSize: () => {},
});

describe('PagedTable', () => {
  it.each([
    [0, ['Nothing here']],
    [1, ['Ada']],
  ])('with %d rows in all its body holds %j', (count, texts) => {
    render(
      <PagedTable
        label="People"
        head={
          <>
            <TableCell>Name</TableCell>
            <TableCell>Actions</TableCell>
          </>
        }
        columns={2}
        empty="Nothing here"
        footer={footer(count)}
      >
        {count > 0 && (
          <TableRow>
            <TableCell>Ada</TableCell>
            <TableCell />
          </TableRow>
        )}
      </PagedTable>,
    );
    const table = screen.getByRole('table', { name: 'People' });
    const body = within(table).getAllByRole('row').slice(1);
    expect(body.map((row) => row.textContent)).toEqual(texts);
    if (count === 0) expect(within(body[0]!).getByRole('cell')).toHaveAttribute('colspan', '2');
    expect(screen.getByText(count === 0 ? '0–0 of 0' : '1–1 of 1')).toBeInTheDocument();
  });
});

describe('SortableHeaderCell', () => {
  it.each([
    [true, 'asc', 'ascending'],
    [true, 'desc', 'descending'],
    [false, 'desc', null],
  ] as const)('active %s, %s: aria-sort %s; a click sorts', async (active, direction, ariaSort) => {
    const onSort = vi.fn();
    render(
      <Table>
        <TableHead>
          <TableRow>
            <SortableHeaderCell active={active} direction={direction} onSort={onSort}>
              Name
            </SortableHeaderCell>
          </TableRow>
        </TableHead>
      </Table>,
    );
    const header = screen.getByRole('columnheader');
    if (ariaSort) expect(header).toHaveAttribute('aria-sort', ariaSort);
    else expect(header).not.toHaveAttribute('aria-sort');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Name' }));
    expect(onSort).toHaveBeenCalledOnce();
  });
});

describe('RowAction', () => {
  it.each([
    [undefined, true],
    [false, true],
    [true, false],
  ])('disabled %s: the button named for its row is enabled %s', async (disabled, enabled) => {
    const onClick = vi.fn();
    render(<RowAction title="Delete" label="Delete Ada" icon="x" disabled={disabled} onClick={onClick} />);
    const button = screen.getByRole('button', { name: 'Delete Ada' });
    if (enabled) {
      await userEvent.setup().click(button);
      expect(onClick).toHaveBeenCalledOnce();
    } else expect(button).toBeDisabled();
  });
});
