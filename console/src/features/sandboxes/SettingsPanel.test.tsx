import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEventBase from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiCall } from '../../test-support/api-stub';
import { clearToasts, renderWithProviders } from '../../test-support/render';
import { emptyForm, type SandboxForm } from './form';
import { SettingsPanel } from './SettingsPanel';

const userEvent = userEventBase.setup({ delay: null });
// These pages render MUI (and xterm) in jsdom: on a loaded machine a step can take seconds.
configure({ asyncUtilTimeout: 5000 });
const KNOWN = [{ label: 'geo', color: '#4caf50' }];

/** The panel with its form kept in state, as the sandbox page keeps it; the latest form is in `latest`. */
function Harness({ start, latest }: { start: SandboxForm; latest: { form?: SandboxForm } }) {
  const [form, setForm] = useState(start);
  latest.form = form;
  return (
    <SettingsPanel
      form={form}
      readOnly={false}
      knownTags={KNOWN}
      groups={[]}
      organizationMounts={['/data/shared']}
      avatarUrl={null}
      baseImage={{ source: null, image: null, registry: null }}
      onChange={(patch) => setForm((f) => ({ ...f, ...patch }))}
      onAvatar={() => undefined}
    />
  );
}
function renderPanel(start: SandboxForm = emptyForm()) {
  const latest: { form?: SandboxForm } = {};
  renderWithProviders(<Harness start={start} latest={latest} />);
  return latest;
}
const fileInput = (button: string) =>
  document.getElementById(
    screen.getByText(button).closest('label')!.getAttribute('for')!,
  ) as HTMLInputElement;

afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

describe('the settings panel', { timeout: 30_000 }, () => {
  it('shows cores and GB with the steps and minimums of spec 1 §5', () => {
    stubApi();
    renderPanel();
    const attributes = (name: string) => {
      const input = screen.getByRole('spinbutton', { name });
      return [input.getAttribute('step'), input.getAttribute('min'), (input as HTMLInputElement).value];
    };
    expect(attributes('CPU')).toEqual(['0.5', '0.5', '0.5']);
    expect(attributes('Memory')).toEqual(['0.5', '0.5', '0.5']);
    expect(attributes('Disk')).toEqual(['0.1', '0.1', '0.1']);
    expect(screen.getAllByText('GB')).toHaveLength(2);
    expect(screen.getByText('cores')).toBeInTheDocument();
  });

  it('warns while the version is invalid', async () => {
    stubApi();
    renderPanel();
    const version = screen.getByRole('textbox', { name: 'Version' });
    await userEvent.clear(version);
    await userEvent.type(version, '.1');
    expect(screen.getByText('Invalid sandbox version')).toBeInTheDocument();
    await userEvent.clear(version);
    await userEvent.type(version, '1.1');
    expect(screen.queryByText('Invalid sandbox version')).not.toBeInTheDocument();
  });

  it('imports variables from a file, replacing rows of the same name; other extensions are refused', async () => {
    const calls: ApiCall[] = stubApi({
      'POST /parse/variables': () => ({
        result: [
          { name: 'MODE', value: 'slow' },
          { name: 'TILE', value: '33TWM' },
        ],
      }),
    });
    const latest = renderPanel({
      ...emptyForm(),
      variables: [
        { name: 'MODE', value: 'fast' },
        { name: 'KEEP', value: '1' },
      ],
    });
    fireEvent.change(fileInput('Import file'), { target: { files: [new File(['x'], 'notes.txt')] } });
    expect(await screen.findByText('Only .csv files are accepted.')).toBeInTheDocument();
    expect(calls).toHaveLength(0);

    fireEvent.change(fileInput('Import file'), { target: { files: [new File(['MODE,slow'], 'vars.csv')] } });
    await waitFor(() => expect(screen.getAllByTestId('env-row')).toHaveLength(3));
    expect(latest.form!.variables).toEqual([
      { name: 'KEEP', value: '1' },
      { name: 'MODE', value: 'slow' },
      { name: 'TILE', value: '33TWM' },
    ]);
    expect((calls[0]!.body as Blob).size).toBeGreaterThan(0);
    expect(fileInput('Import file').accept).toBe('.csv,.json,.yml');
  });

  it.each([
    ['', '#f44336', 'Enter a valid tag label'],
    ['geo', '#f44336', 'Color or label already used in another tag'],
    ['water', '#4caf50', 'Color or label already used in another tag'],
  ])('a new tag %j in %s says %s', async (label, color, message) => {
    const calls = stubApi();
    renderPanel();
    if (label) await userEvent.type(screen.getByRole('textbox', { name: 'New tag' }), label);
    await userEvent.click(screen.getByRole('radio', { name: `Colour ${color}` }));
    await userEvent.click(screen.getByRole('button', { name: 'Add tag' }));
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(calls).toHaveLength(0);
  });

  it('adds a new tag in the chosen swatch (ten of them, #dddddd first) and puts it on the sandbox', async () => {
    const calls = stubApi({ 'PUT /tags': (call) => ({ result: call.body }) });
    const latest = renderPanel();
    const swatches = within(screen.getByRole('radiogroup', { name: 'New tag' })).getAllByRole('radio');
    expect(swatches).toHaveLength(10);
    expect(swatches[0]).toHaveAttribute('aria-label', 'Colour #dddddd');
    expect(swatches[0]).toHaveAttribute('aria-checked', 'true');
    await userEvent.type(screen.getByRole('textbox', { name: 'New tag' }), 'water');
    await userEvent.click(screen.getByRole('radio', { name: 'Colour #03a9f4' }));
    await userEvent.click(screen.getByRole('button', { name: 'Add tag' }));
    await waitFor(() => expect(latest.form!.tags).toEqual(['water']));
    expect(calls.find((c) => c.key === 'PUT /tags')!.body).toEqual({ label: 'water', color: '#03a9f4' });
  });

  it('refuses an avatar that is not jpg, jpeg or png', async () => {
    stubApi();
    renderPanel();
    fireEvent.change(fileInput('Choose image'), { target: { files: [new File(['x'], 'logo.gif')] } });
    expect(await screen.findByText('Only .jpg, .jpeg and .png images are accepted.')).toBeInTheDocument();
  });

  it('mounts a ticked organization mount point at its own path unless another destination is given', async () => {
    stubApi();
    const latest = renderPanel();
    const destination = screen.getByRole('textbox', { name: 'Destination' });
    expect(destination).toBeDisabled();
    await userEvent.click(screen.getByRole('checkbox', { name: '/data/shared' }));
    expect(latest.form!.mounts).toEqual({ '/data/shared': '/data/shared' });
    await userEvent.clear(destination);
    await userEvent.type(destination, '/mnt/in');
    expect(latest.form!.mounts).toEqual({ '/data/shared': '/mnt/in' });
    await userEvent.click(screen.getByRole('checkbox', { name: '/data/shared' }));
    expect(latest.form!.mounts).toEqual({});
  });
});
