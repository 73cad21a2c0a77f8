import { Table, TableHead, TableRow } from '@mui/material';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import { ListEmpty, ListTable, SelectAllCell } from './ListTable';

const renderHeader = (ids: string[], selected: string[], onSelect = vi.fn()) =>
  render(
    <Table>
      <TableHead>
        <TableRow>
          <SelectAllCell ids={ids} selected={selected} label="Select all" onSelect={onSelect} />
        </TableRow>
      </TableHead>
    </Table>,
  );

describe('SelectAllCell', () => {
  it.each([
    ['none selectable', [], [], { checked: false, disabled: true, mixed: false }],
    ['none selected', ['a', 'b'], [], { checked: false, disabled: false, mixed: false }],
    ['some selected', ['a', 'b'], ['a'], { checked: false, disabled: false, mixed: true }],
    ['all selected', ['a', 'b'], ['b', 'a', 'z'], { checked: true, disabled: false, mixed: false }],
  ])('with %s', (_what, ids, selected, state) => {
    renderHeader(ids, selected);
    const box = screen.getByRole('checkbox', { name: 'Select all' });
    expect((box as HTMLInputElement).checked).toBe(state.checked);
    expect((box as HTMLInputElement).disabled).toBe(state.disabled);
    expect(box.getAttribute('data-indeterminate')).toBe(String(state.mixed));
  });

  it.each([
    ['selects them all when not all are', ['a'], ['a', 'b']],
    ['selects none when all are', ['a', 'b'], []],
  ])('%s', async (_what, selected, after) => {
    const onSelect = vi.fn();
    renderHeader(['a', 'b'], selected, onSelect);
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select all' }));
    expect(onSelect).toHaveBeenCalledWith(after);
  });
});

describe('ListTable', () => {
  it.each([
    [true, 1],
    [false, 0],
  ])('loading %s shows %d progress bars', (loading, bars) => {
    render(
      <ListTable label="Things" loading={loading} loadingLabel="Loading" head={null} footer={undefined}>
        {null}
      </ListTable>,
    );
    expect(screen.getByRole('table', { name: 'Things' })).toBeInTheDocument();
    expect(screen.queryAllByRole('progressbar', { name: 'Loading' })).toHaveLength(bars);
  });

  it.each([
    ['en', 'Rows per page', '16–30 of 40'],
    ['it', 'Righe per pagina', '16–30 di 40'],
    ['fr', 'Lignes par page', '16–30 sur 40'],
  ])('pages with labels in the language chosen (%s)', async (language, perPage, shown) => {
    await i18n.changeLanguage(language);
    try {
      render(
        <ListTable
          label="Things"
          loading={false}
          loadingLabel="Loading"
          head={null}
          footer={{ count: 40, page: 1, size: 15, sizes: [15, 30], onPage: vi.fn(), onSize: vi.fn() }}
        >
          {null}
        </ListTable>,
      );
      expect(screen.getByText(shown)).toBeInTheDocument();
      expect(screen.getByText(perPage, { exact: false })).toBeInTheDocument();
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});

describe('ListEmpty', () => {
  it.each([
    [{ label: 'Create', to: '/thing/create' }, ['/thing/create']],
    [undefined, []],
  ])('with create %j links to %j', (create, links) => {
    render(
      <MemoryRouter>
        <ListEmpty text="Nothing yet" {...(create && { create })} />
      </MemoryRouter>,
    );
    expect(screen.getByTestId('empty')).toHaveTextContent('Nothing yet');
    expect(screen.queryAllByRole('link').map((a) => a.getAttribute('href'))).toEqual(links);
  });
});
