import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../test-support/render';
import { VariablesTab, type RunVariables } from './VariablesTab';

const LONG = `s3://bucket/${'very-long-path-segment/'.repeat(12)}input.tif`;
const SEVERAL: RunVariables = {
  compiled: true,
  sandboxes: [
    {
      id: 'n0',
      name: 'download',
      variables: [
        { name: 'SOURCE', value: LONG, source: 'session' },
        { name: 'MODE', value: 'fast', source: 'workflow' },
      ],
    },
    { id: 'n1', name: 'ndvi', variables: [{ name: 'BANDS', value: 'B4,B8', source: 'sandbox' }] },
    { id: 'n2', name: 'publish', variables: [] },
  ],
};

/** Each listed sandbox: its heading, then its rows as 'name=value (from)' or its empty text. */
function listed() {
  return screen.queryAllByRole('region').map((section) => {
    const heading = within(section).getByRole('heading').textContent;
    const rows = within(section).queryAllByTestId('variable-row');
    const lines = rows.map((row) => {
      const [name, value, from] = within(row).getAllByRole('cell');
      return `${name!.textContent}=${value!.textContent} (${from!.textContent})`;
    });
    return [heading, ...(lines.length ? lines : [section.textContent!.replace(heading ?? '', '')])];
  });
}

const show = (props: Partial<Parameters<typeof VariablesTab>[0]>) =>
  renderWithProviders(
    <VariablesTab
      variables={SEVERAL}
      loading={false}
      onRetry={() => undefined}
      selected={null}
      onShowAll={() => undefined}
      compact={false}
      {...props}
    />,
  );

describe('the variables tab (per sandbox: name, value and where it came from)', () => {
  it.each<[string, Partial<Parameters<typeof VariablesTab>[0]>, (string | null)[][], string | null]>([
    [
      'several sandboxes, grouped, one without variables',
      {},
      [
        ['download', `SOURCE=${LONG} (Session override)`, 'MODE=fast (Workflow)'],
        ['ndvi', 'BANDS=B4,B8 (Sandbox default)'],
        ['publish', 'No variable.'],
      ],
      null,
    ],
    [
      'the sandbox selected on the graph only',
      { selected: 'n1' },
      [['ndvi', 'BANDS=B4,B8 (Sandbox default)']],
      null,
    ],
    ['a selected sandbox without variables', { selected: 'n2' }, [['publish', 'No variable.']], null],
    [
      'a value no layer holds any more',
      {
        variables: {
          compiled: true,
          sandboxes: [{ id: 'n0', name: 'a', variables: [{ name: 'X', value: '1', source: 'unknown' }] }],
        },
      },
      [['a', 'X=1 (Changed since the run)']],
      null,
    ],
    [
      'no sandbox with variables',
      { variables: { compiled: true, sandboxes: [{ id: 'n0', name: 'a', variables: [] }] } },
      [],
      'No sandbox of this run has variables.',
    ],
    [
      'a run not started yet',
      { variables: { compiled: false, sandboxes: [] } },
      [],
      'The values are known once the run has started, and as long as its workflow is kept.',
    ],
  ])('shows %s', (_case, props, sections, text) => {
    show(props);
    expect(listed()).toEqual(sections);
    if (text) expect(screen.getByText(text)).toBeInTheDocument();
  });

  it('offers every sandbox again when one is selected', () => {
    const onShowAll = vi.fn();
    show({ selected: 'n0', onShowAll });
    fireEvent.click(screen.getByRole('button', { name: 'Show all sandboxes' }));
    expect(onShowAll).toHaveBeenCalledOnce();
  });

  it('puts the origin under the value on a narrow screen (no column of its own)', () => {
    show({ selected: 'n1', compact: true });
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Name', 'Value']);
    const [name, value] = within(screen.getByTestId('variable-row')).getAllByRole('cell');
    expect([name!.textContent, value!.textContent]).toEqual(['BANDS', 'B4,B8Sandbox default']);
  });

  it('shows long values whole, in monospace, wrapping', () => {
    show({ selected: 'n0' });
    const value = screen.getByText(LONG);
    expect(value.tagName).toBe('CODE');
    expect(getComputedStyle(value).whiteSpace).toBe('pre-wrap');
  });

  it('copies a value', () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    show({ selected: 'n1' });
    fireEvent.click(screen.getByRole('button', { name: 'Copy the value of BANDS' }));
    expect(writeText).toHaveBeenCalledWith('B4,B8');
    vi.unstubAllGlobals();
  });

  it.each<[string, Partial<Parameters<typeof VariablesTab>[0]>, string]>([
    ['loading', { variables: undefined, loading: true }, 'progressbar'],
    [
      'an error, with a retry',
      { variables: undefined, error: 'argo-server could not give the workflow.' },
      'alert',
    ],
  ])('shows %s', (_case, props, role) => {
    const onRetry = vi.fn();
    show({ ...props, onRetry });
    const shown = screen.getByRole(role);
    if (role === 'alert') {
      expect(shown).toHaveTextContent(
        'The variables could not be loaded: argo-server could not give the workflow.',
      );
      fireEvent.click(within(shown).getByRole('button', { name: 'Retry' }));
      expect(onRetry).toHaveBeenCalledOnce();
    } else expect(shown).toHaveAccessibleName('Loading…');
  });
});
