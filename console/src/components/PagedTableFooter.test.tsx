import { act, render, renderHook, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import i18n from '../i18n';
import { clampPage, PagedTableFooter, usePaging } from './PagedTableFooter';

const rows = ['a', 'b', 'c', 'd', 'e'];

describe('clampPage', () => {
  it.each([
    [0, 5, 2, 0],
    [2, 5, 2, 2],
    [3, 5, 2, 2],
    [7, 0, 10, 0],
  ])('page %d of %d rows at %d a page shows page %d', (page, count, size, shown) => {
    expect(clampPage(page, count, size)).toBe(shown);
  });
});

describe('usePaging', () => {
  it.each([
    [0, ['a', 'b']],
    [1, ['c', 'd']],
    [2, ['e']],
  ])('page %d at 2 a page holds %j', (page, names) => {
    const { result } = renderHook(() => usePaging([2, 4]));
    act(() => result.current.of(rows).footer.onPage(page));
    expect(result.current.of(rows).rows).toEqual(names);
    expect(result.current.of(rows).footer).toMatchObject({ count: 5, page, size: 2, sizes: [2, 4] });
  });

  it('shows the last page when the rows shrink under the one chosen', () => {
    const { result } = renderHook(() => usePaging([2, 4]));
    act(() => result.current.of(rows).footer.onPage(2));
    const shrunk = result.current.of(rows.slice(0, 3));
    expect(shrunk.rows).toEqual(['c']);
    expect(shrunk.footer.page).toBe(1);
  });

  it.each([
    ['a new page size', (paging: ReturnType<typeof usePaging>) => paging.of(rows).footer.onSize(4), 4],
    ['reset', (paging: ReturnType<typeof usePaging>) => paging.reset(), 2],
  ])('%s goes back to the first page', (_what, change, size) => {
    const { result } = renderHook(() => usePaging([2, 4]));
    act(() => result.current.of(rows).footer.onPage(1));
    act(() => change(result.current));
    expect(result.current.of(rows).footer).toMatchObject({ page: 0, size });
    expect(result.current.of(rows).rows).toEqual(rows.slice(0, size));
  });
});

describe('PagedTableFooter', () => {
  it('shows the rows of the page among all and asks for the next page', async () => {
    const onPage = vi.fn();
    render(
      <PagedTableFooter count={25} page={1} size={10} sizes={[10, 20]} onPage={onPage} onSize={vi.fn()} />,
    );
    expect(screen.getByText('11–20 of 25')).toBeInTheDocument();
    expect(screen.getByText('Rows per page')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
    expect(onPage).toHaveBeenCalledWith(2);
  });

  it('asks for a page size as a number, under the label of the language chosen', async () => {
    await i18n.changeLanguage('it');
    onTestFinished(async () => {
      await i18n.changeLanguage('en');
    });
    const onSize = vi.fn();
    render(
      <PagedTableFooter count={25} page={0} size={10} sizes={[10, 20]} onPage={vi.fn()} onSize={onSize} />,
    );
    await userEvent.click(screen.getByRole('combobox', { name: /Righe per pagina/ }));
    await userEvent.click(screen.getByRole('option', { name: '20' }));
    expect(onSize).toHaveBeenCalledWith(20);
  });
});
